"""The question sets shipped in benchmark/questions: well formed, about the evaluation period, and read by the
question path (a question the extractor reads nothing from can only ever be answered false)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson
import pytest

from benchmark.questions import read_questions
from graph_builder.extraction.questions import extract_question

QUESTIONS = Path(__file__).resolve().parents[2] / "benchmark" / "questions"
OURS = sorted(QUESTIONS.glob("*.jsonl"))
# Written by readers who never saw egqa, from randomly drawn articles: kept as written, so a question the extractor
# cannot read stays in (answered false) and counts against us.
BLIND = sorted((QUESTIONS / "held_out").glob("*.jsonl"))
FILES = OURS + BLIND
EVALUATION_PERIOD = (dt.date(2012, 1, 1), dt.date(2013, 11, 20))  # the 2006-2013 corpus' questions (docs/results.md)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_a_question_set_is_well_formed_and_about_the_evaluation_period(path: Path) -> None:
    questions = read_questions(path)
    assert len({q.id for q in questions}) == len(questions)
    assert all(EVALUATION_PERIOD[0] <= q.date <= EVALUATION_PERIOD[1] for q in questions)
    assert any(q.expected for q in questions) and any(not q.expected for q in questions)


def test_the_blind_sets_are_there_half_true_each_with_its_source() -> None:
    assert len(BLIND) == 9
    for path in BLIND:
        rows = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
        assert len(rows) == 80 and sum(r["expected"] for r in rows) == 40
        assert all(set(r) == {"id", "text", "date", "expected", "kind", "source"} and r["source"] for r in rows)


@pytest.mark.parametrize("path", OURS, ids=[p.name for p in OURS])
def test_every_question_is_read_as_a_proposition(path: Path) -> None:
    unread = [q.text for q in read_questions(path) if not extract_question(q.text)]
    assert unread == []


HEADLINES = sorted((QUESTIONS / "headlines").glob("*.jsonl"))


@pytest.mark.parametrize("path", HEADLINES, ids=[p.name for p in HEADLINES])
def test_a_headline_set_is_its_prose_set_written_as_headlines(path: Path) -> None:
    # The same questions, the same answers: only the text differs, and `prose` is the text as its set writes it.
    prose_path = QUESTIONS / path.name if path.name.startswith("people_ask") else QUESTIONS / "held_out" / path.name
    prose = [orjson.loads(line) for line in prose_path.read_bytes().splitlines() if line.strip()]
    rows = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    assert [r["id"] for r in rows] == [r["id"] for r in prose]
    for row, original in zip(rows, prose, strict=True):
        assert row["prose"] == original["text"] and row["style"] == "headline"
        assert {k: v for k, v in row.items() if k not in {"text", "prose", "style"}} == {
            k: v for k, v in original.items() if k != "text"}
    assert len(read_questions(path)) == len(rows)


def test_every_set_but_the_headline_styled_one_has_its_headlines() -> None:
    # Set 7 was written as headlines already.
    assert {p.name for p in HEADLINES} == {p.name for p in OURS} | {p.name for p in BLIND} - {"written_blind_7.jsonl"}
