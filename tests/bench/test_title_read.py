"""bench/title_read.py: a blind read of title and body triples, shuffled together, judged against a hidden key."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson

from graph_builder.triples import shard_path, write_shard
import pytest

from tests.bench.scripts import BENCH, load_script

title_read = load_script("title_read")


def _row(n: int, sentence: str) -> dict[str, object]:
    return {"triple_id": f"{sentence}:000", "article_id": f"a{n}", "sentence_id": sentence,
            "date": dt.date(2012, 1, 2), "window": 5000, "split": "TEST", "subj": "acme", "subj_text": "Acme",
            "subj_type": "organization", "obj": "widget", "obj_text": "Widget", "obj_type": "organization",
            "predicate": "(buy.1,buy.2)", "predicate_text": "bought", "negated": False, "sentence": f"s {n}"}


def test_a_sample_mixes_both_sources_and_the_judge_counts_by_hand(tmp_path: Path) -> None:
    assert title_read.source_of("a1:t000") == "title" and title_read.source_of("a1:0012") == "body"
    triples, out = tmp_path / "triples", tmp_path / "read"
    triples.mkdir()
    rows = [_row(k, f"a{k}:t000") for k in range(5)] + [_row(k, f"a{k}:0003") for k in range(5, 12)]
    write_shard(rows, shard_path(triples, "one"))
    title_read.sample(triples, out, n=4, seed=1)
    key = [orjson.loads(line) for line in (out / "key.jsonl").read_bytes().splitlines()]
    assert sorted(k["source"] for k in key) == ["body"] * 4 + ["title"] * 4
    sheet = (out / "sheet.tsv").read_text().splitlines()
    assert sheet[0] == "item\tsentence\ttriple\tverdict" and "Acme | bought | Widget" in sheet[1]
    assert "title" not in (out / "sheet.tsv").read_text()
    # 3 of 4 title triples stated, 2 of 4 body triples: 75% and 50%, +25 points.
    stated = {"title": 3, "body": 2}
    verdicts = []
    for k in key:
        verdicts.append(f"{k['item']}\t{'Y' if stated[k['source']] > 0 else 'N'}")
        stated[k["source"]] -= 1
    (out / "verdicts.tsv").write_text("item\tverdict\n" + "\n".join(verdicts) + "\n")
    assert title_read.judge(out) == {"title": (3, 4), "body": (2, 4)}


@pytest.mark.parametrize(("read", "title", "body"), [("title-v13-seed71-annotator1", 84, 70),
                                                     ("title-v13-seed71-annotator2", 84, 71)])
def test_the_recorded_title_reads_give_the_documented_figures(read: str, title: int, body: int) -> None:
    assert title_read.judge(BENCH / "data" / "title_reads" / read) == {"title": (title, 100), "body": (body, 100)}


def test_the_v27_title_rule_read_gives_the_docs_figures() -> None:
    # docs/extraction.md, extractor v27: added 44/60 stated, kept 37/40.
    read = BENCH / "data" / "title_reads" / "title-prose-v27-seed2727-annotator1"
    assert title_read.judge(read) == {"added": (44, 60), "kept": (37, 40)}
