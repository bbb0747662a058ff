"""bench/type_read.py: a blind read of the mentions a typing pass changed, sampled from two datasets and judged."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson
import pytest

from graph_builder.triples import shard_path, write_shard
from tests.bench.scripts import BENCH, load_script

type_read = load_script("type_read")


def _row(n: int, subj_type: str) -> dict[str, object]:
    return {"triple_id": f"a{n}:0000:000", "article_id": f"a{n}", "sentence_id": f"a{n}:0000",
            "date": dt.date(2012, 1, 2), "window": 5000, "split": "TEST", "subj": "pfizer", "subj_text": "Pfizer",
            "subj_type": subj_type, "obj": "paris", "obj_text": "Paris", "obj_type": "location",
            "predicate": "(visit.1,visit.2)", "predicate_text": "visited", "negated": False, "sentence": f"s {n}"}


def test_a_sample_draws_only_changed_mentions_and_the_judge_counts_by_hand(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    old, new, out = tmp_path / "old", tmp_path / "new", tmp_path / "read"
    old.mkdir()
    new.mkdir()
    write_shard([_row(k, "person") for k in range(4)] + [_row(9, "thing")], shard_path(old, "one"))
    write_shard([_row(k, "organization") for k in range(3)] + [_row(3, "person"), _row(9, "organization")],
                shard_path(new, "one"))
    monkeypatch.setattr("sys.argv", ["type_read.py", "sample", str(old), str(new), "--out", str(out)])
    type_read.main()
    key = [orjson.loads(line) for line in (out / "key.jsonl").read_bytes().splitlines()]
    assert sorted(k["triple_id"] for k in key) == ["a0:0000:000", "a1:0000:000", "a2:0000:000", "a9:0000:000"]
    assert all({k["A"], k["B"]} == {k["old"], k["new"]} and k["side"] == "subj" for k in key)
    # By hand: the new type right for two typed mentions, the old one for the third, neither for the untyped one.
    verdicts = {}
    typed = [k for k in key if k["old"] == "person"]
    for k, outcome in zip(typed, ("new", "new", "old"), strict=True):
        verdicts[k["item"]] = "A" if k["A"] == k[outcome] else "B"
    verdicts[next(k["item"] for k in key if k["old"] == "thing")] = "neither"
    (out / "verdicts.tsv").write_text("item\tverdict\n" + "".join(f"{i}\t{v}\n" for i, v in verdicts.items()))
    assert type_read.judge(out) == {"all": {"new": 2, "old": 1, "neither": 1}, "typed": {"new": 2, "old": 1},
                                    "untyped": {"neither": 1}}


@pytest.mark.parametrize(("read", "new", "old"), [("types-v2-seed92-annotator1", 87, 10),
                                                  ("types-v2-seed92-annotator2", 87, 10),
                                                  ("types-v2first-seed91-annotator1", 89, 8),
                                                  ("types-v2first-seed91-annotator2", 87, 10),
                                                  ("types-v4-seed93-annotator1", 96, 2),
                                                  ("types-v4-seed93-annotator2", 94, 2)])
def test_the_recorded_type_reads_give_the_documented_figures(read: str, new: int, old: int) -> None:
    result = type_read.judge(BENCH / "data" / "type_reads" / read)
    assert (result["all"]["new"], result["all"]["old"], sum(result["all"].values())) == (new, old, 100)
