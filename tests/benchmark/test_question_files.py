"""The question sets shipped in benchmark/questions: well formed, about the evaluation period, and read by the
question path (a question the extractor reads nothing from can only ever be answered false)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from benchmark.questions import read_questions
from graph_builder.extraction.questions import extract_question

FILES = sorted((Path(__file__).resolve().parents[2] / "benchmark" / "questions").glob("*.jsonl"))
EVALUATION_PERIOD = (dt.date(2012, 1, 1), dt.date(2013, 11, 20))  # the 2006-2013 corpus' questions (docs/results.md)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_a_question_set_is_well_formed_and_about_the_evaluation_period(path: Path) -> None:
    questions = read_questions(path)
    assert len({q.id for q in questions}) == len(questions)
    assert all(EVALUATION_PERIOD[0] <= q.date <= EVALUATION_PERIOD[1] for q in questions)
    assert any(q.expected for q in questions) and any(not q.expected for q in questions)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_question_is_read_as_a_proposition(path: Path) -> None:
    unread = [q.text for q in read_questions(path) if not extract_question(q.text)]
    assert unread == []
