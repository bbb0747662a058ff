"""bench/condition_read.py: a blind read of conditional and other relations, shuffled together, judged by group."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from tests.bench.scripts import BENCH, load_script

condition_read = load_script("condition_read")


def test_a_sample_mixes_marked_and_unmarked_and_hides_the_controller(tmp_path: Path) -> None:
    store, out = tmp_path / "store.db", tmp_path / "read"
    with sqlite3.connect(store) as conn:
        conn.execute("CREATE TABLE triples (sentence TEXT)")
        conn.executemany("INSERT INTO triples VALUES (?)", [
            ("If Acme Corp buys Widget Inc, prices will rise.",), ("Acme Corp will buy Widget Inc if regulators "
                                                                  "approve the deal.",),
            ("Unless Google buys Motorola, the deal fails.",), ("Google bought Motorola.",),
            ("Microsoft sold Skype to eBay if the report is right.",)])
    condition_read.sample(store, out, n=2, seed=1, skip=0)
    key = dict(line.split("\t") for line in (out / "key.tsv").read_text().splitlines())
    assert sorted(key.values()) == ["m", "m", "p", "p"]
    rows = [line.split("\t") for line in (out / "sample.tsv").read_text().splitlines()[1:]]
    assert not any(r[3].startswith(("if__", "unless__")) for r in rows)
    assert all(r[5] == "" for r in rows)
    # 2 marked judged C and C, 2 unmarked judged A and X
    verdict = {"m": ["C", "C"], "p": ["A", "X"]}
    lines = [f"{n}\t{verdict[group].pop()}" for n, group in key.items()]
    (out / "verdicts.tsv").write_text("n\tstated\n" + "\n".join(lines) + "\n")
    assert condition_read.judge(out) == {"m": Counter({"C": 2}), "p": Counter({"A": 1, "X": 1})}


@pytest.mark.parametrize(("read", "marked", "unmarked"), [
    ("v14-conditions-seed2029-annotator1", {"C": 90, "A": 6, "X": 4}, {"A": 88, "C": 3, "X": 9}),
    ("v14-conditions-seed2029-annotator2", {"C": 90, "A": 6, "X": 4}, {"A": 85, "C": 3, "X": 12})])
def test_the_recorded_reads_give_the_documented_figures(read: str, marked: dict[str, int],
                                                        unmarked: dict[str, int]) -> None:
    assert condition_read.judge(BENCH / "data" / "condition_reads" / read) == {"m": Counter(marked),
                                                                               "p": Counter(unmarked)}
