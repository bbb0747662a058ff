"""The Reuters-21578 half of the extraction gold set: well-formed labels that point at real sentences."""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from pathlib import Path

import pytest

from tests.graph_builder.graph_fixtures import SHARED_DATA

GOLD = Path(__file__).resolve().parents[1] / "data" / "extraction_gold" / "reuters21578.jsonl"
PREDICATE_RE = re.compile(
    r"^(NEG__)?([a-z][\w'.\-]*__)*\([^(),#\s]+\.[^(),#\s]+,[^(),#\s]+\.[^(),#\s]+\)$")
TYPES = {"person", "organization", "location", "event", "product", "building", "art", "law", "group",
         "language", "thing"}
KEYS = {"corpus", "file", "article_id", "start", "end", "sha1", "relations"}
RELATION_KEYS = {"subject", "predicate", "object", "subject_type", "object_type", "negated"}
_ARTICLE_RE = re.compile(r'<REUTERS\b[^>]*\bNEWID="(\d+)"[^>]*>(.*?)</REUTERS>', re.S)
_BODY_RE = re.compile(r"<BODY>(.*?)</BODY>", re.S)


def _records() -> list[dict]:
    return [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line.strip()]


@cache
def _bodies(file: str) -> dict[str, str]:
    """Raw bodies of one .sgm file by NEWID: the file decoded as latin-1, entities kept."""
    text = (SHARED_DATA / file).read_bytes().decode("latin-1")
    bodies = {}
    for newid, block in _ARTICLE_RE.findall(text):
        body = _BODY_RE.search(block)
        if body:
            bodies[newid] = body.group(1)
    return bodies


def test_records_are_well_formed() -> None:
    records = _records()
    assert len(records) == 110
    for rec in records:
        where = f"{rec.get('file')} NEWID={rec.get('article_id')}"
        assert KEYS <= set(rec) <= KEYS | {"note"}, where
        assert rec["corpus"] == "reuters21578", where
        assert re.fullmatch(r"reuters21578/reut2-\d{3}\.sgm", rec["file"]), where
        assert rec["article_id"].isdigit() and 0 <= rec["start"] < rec["end"], where
        assert re.fullmatch(r"[0-9a-f]{40}", rec["sha1"]), where
        for rel in rec["relations"]:
            assert set(rel) == RELATION_KEYS, where
            assert PREDICATE_RE.match(rel["predicate"]), (where, rel["predicate"])
            assert rel["negated"] == rel["predicate"].startswith("NEG__"), (where, rel["predicate"])
            assert {rel["subject_type"], rel["object_type"]} <= TYPES, (where, rel)
            assert rel["subject"] == rel["subject"].strip().lower() and rel["subject"], (where, rel)
            assert rel["object"] == rel["object"].strip().lower() and rel["object"], (where, rel)
            assert not (rel["subject_type"] == rel["object_type"] == "thing"), (where, rel)


def test_one_sentence_per_article() -> None:
    keys = [(rec["file"], rec["article_id"]) for rec in _records()]
    assert len(keys) == len(set(keys))


def test_spans_match_the_raw_corpus() -> None:
    if not (SHARED_DATA / "reuters21578").is_dir():
        pytest.skip(f"real data absent: {SHARED_DATA / 'reuters21578'} not found (place ../shared/data beside the repository)")
    for rec in _records():
        body = _bodies(rec["file"]).get(rec["article_id"])
        assert body is not None, f"{rec['file']} has no body for NEWID={rec['article_id']}"
        span = body[rec["start"]:rec["end"]]
        assert span == span.strip() and span, (rec["file"], rec["article_id"])
        assert hashlib.sha1(span.encode("utf-8")).hexdigest() == rec["sha1"], (rec["file"], rec["article_id"])
