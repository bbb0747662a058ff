"""The committed extraction gold set: well-formed labels, no corpus text, and spans that still match the corpora."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench.test_extraction_eval import ev

GOLD = Path(__file__).resolve().parents[1] / "data" / "extraction_gold"
DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
REFERENCE_KEYS = {"corpus", "file", "article_id", "start", "end", "sha1", "relations"}
ALLOWED_KEYS = REFERENCE_KEYS | {"line", "note"}


def _rows() -> list[dict[str, object]]:
    return [json.loads(line) for path in sorted(GOLD.glob("*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_ding2014_half_has_110_sentences_with_references_only() -> None:
    rows = [r for r in _rows() if r["corpus"] == "reuters_ding2014"]
    assert len(rows) == 110
    assert len({(r["line"], r["start"]) for r in rows}) == 110  # no sentence twice
    for row in rows:
        assert REFERENCE_KEYS <= set(row) <= ALLOWED_KEYS, row.keys()  # no `text`: corpus text stays out
        assert isinstance(row["line"], int) and 0 <= row["start"] < row["end"]


def test_every_gold_label_is_well_formed() -> None:
    problems = {f"{r['corpus']}:{r.get('line', r['article_id'])} {rel['predicate']}": p
                for r in _rows() for rel in r["relations"]
                if (p := ev.label_problems(ev.Triple.from_dict(rel)))}
    assert problems == {}


def test_label_problems_catch_a_bad_label() -> None:
    bad = ev.Triple("Exxon", "NEG__(buy.1,buy)", "texaco", "company", "organization", negated=False)
    assert len(ev.label_problems(bad)) == 4  # NEG flag, role number, uppercase norm, unknown type
    assert ev.label_problems(ev.Triple("fiat", "agree__(buy.1,buy.2)", "chrysler", "organization", "organization")) == []


def test_every_gold_span_matches_its_corpus() -> None:
    if not DATA.is_dir():
        pytest.skip(f"corpora not found at {DATA} (../shared/data relative to the repository)")
    gold = ev.load_gold(GOLD)
    run = ev.evaluate(gold, DATA, lambda text: [])
    assert run.errors == {}
    assert len(run.scores) == len(gold)
