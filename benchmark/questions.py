"""Questions written as people type them, answered by a running service and scored against their expected answers.

A question file is JSON Lines: `{"id", "text", "date", "expected": true|false, "kind"}` (our own sentences
about the news of a date; `kind` says what makes it hard: a surname, a short company name, a plural, a
passive). Each is sent as `POST /v1/query` with its text and date; a question the service cannot read (4xx)
counts as answered false, so it is right only when false is expected.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson

from graph_builder.errors import InputError


@dataclass(frozen=True)
class Question:
    """One question with the answer the news gives."""

    id: str
    text: str
    date: dt.date
    expected: bool
    kind: str = ""


@dataclass(frozen=True)
class QuestionResult:
    """What the service said: its answer, whether it found any evidence, how it read the names, or its error."""

    question: Question
    answer: bool
    evidence: int
    score: float
    names: tuple[str, ...]
    error: str | None = None

    @property
    def right(self) -> bool:
        """Whether the answer is the expected one."""
        return self.answer == self.question.expected

    def to_dict(self) -> dict[str, object]:
        """The question and what the service said, as `egqa benchmark questions --json` prints each answer."""
        q = self.question
        return {"id": q.id, "text": q.text, "date": q.date.isoformat(), "expected": q.expected, "answer": self.answer,
                "right": self.right, "evidence": self.evidence, "score": self.score, "names": list(self.names),
                "error": self.error}


def read_questions(path: Path) -> list[Question]:
    """Read a question file; a line without `text`, `date` or a boolean `expected` is an error naming it."""
    questions = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
            if not isinstance(row.get("expected"), bool):
                raise ValueError("`expected` must be true or false")
            questions.append(Question(str(row.get("id", lineno)), str(row["text"]), dt.date.fromisoformat(row["date"]),
                                      row["expected"], str(row.get("kind", ""))))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"{path}:{lineno}: not a question ({exc})") from None
    if not questions:
        raise InputError(f"{path}: no questions")
    return questions


def ask_questions(questions: Sequence[Question], url: str, scorer: str | None = None,
                  api_key: str | None = None, timeout: float = 60.0) -> list[QuestionResult]:
    """Ask a running service every question, one request each; return what it answered."""
    headers = {"X-API-Key": api_key} if api_key else {}
    results = []
    with httpx.Client(base_url=url, timeout=timeout, headers=headers) as client:
        for q in questions:
            body: dict[str, object] = {"text": q.text, "date": q.date.isoformat(), "top_k": 1}
            if scorer:
                body["scorer"] = scorer
            response = client.post("/v1/query", json=body)
            if response.status_code >= 500:
                raise InputError(f"{url} answered {response.status_code} to {q.id}: {response.text[:200]}")
            data = response.json()
            if response.status_code != 200:
                results.append(QuestionResult(q, False, 0, 0.0, (), str(data.get("error", {}).get("message", data))))
                continue
            names = tuple(data["hypothesis"].get("names", ()))
            results.append(QuestionResult(q, bool(data["answer"]), int(data["evidence_count"]), float(data["score"]),
                                          names))
    return results


def summary(results: Sequence[QuestionResult]) -> dict[str, object]:
    """Right answers overall and among true questions, and how many true questions found any evidence."""
    true = [r for r in results if r.question.expected]
    return {"questions": len(results), "right": sum(r.right for r in results),
            "true_questions": len(true), "true_right": sum(r.right for r in true),
            "true_with_evidence": sum(r.evidence > 0 for r in true),
            "unread": sum(r.error is not None for r in results),
            "always_false": sum(not r.question.expected for r in results)}
