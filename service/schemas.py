"""Request and response bodies of the REST API (pydantic), and their conversion from engine results."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from service.engine import Answer, HypothesisInput, Options


class ErrorDetail(BaseModel):
    """What went wrong and what to fix."""

    code: str
    message: str
    details: Any | None = None


class ErrorBody(BaseModel):
    """The one error body every failing request gets."""

    error: ErrorDetail


class QueryOptions(BaseModel):
    """Scoring options shared by single and batch queries."""

    model_config = ConfigDict(extra="forbid")

    scorer: str | None = Field(None, description="A scorer from GET /v1/graphs: a graph measure (binc, weeds, lin, cos), "
                                  "`<measure>+smooth`, an extra graph set (e.g. berant), `exact` or `lm_cosine`.")
    exclude_same_predicate: bool = Field(False, description="Ignore evidence with the hypothesis' own predicate (benchmark protocol).")
    top_k: int = Field(5, ge=0, le=100, description="Evidence items to return, best first.")
    threshold: float | None = Field(None, ge=0.0, le=1.0, description="Answer is true when score >= threshold.")

    def to_options(self) -> Options:
        """Return the engine's options."""
        return Options(self.scorer, self.exclude_same_predicate, self.top_k, self.threshold)


class Proposition(BaseModel):
    """A proposition in a window: free `text`, or `subject`, `predicate`, `object` (predicate may be normalised)."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(None, max_length=2000, examples=["Google was fined by the European Commission."])
    subject: str | None = Field(None, max_length=300)
    predicate: str | None = Field(None, max_length=300, examples=["(visit.1,visit.2)", "was fined by"])
    object: str | None = Field(None, max_length=300)
    subject_type: str | None = Field(None, max_length=50)
    object_type: str | None = Field(None, max_length=50)
    date: dt.date | None = Field(None, description="A date in the window (YYYY-MM-DD).")
    window: int | None = Field(None, description="The window id (see GET /v1/windows).")
    exclude_sentence_ids: list[str] = Field(default_factory=list, max_length=1000)

    def to_input(self) -> HypothesisInput:
        """Return the engine's input."""
        return HypothesisInput(self.text, self.subject, self.predicate, self.object, self.subject_type,
                               self.object_type, self.date, self.window, tuple(self.exclude_sentence_ids))


class QueryRequest(Proposition, QueryOptions):
    """POST /v1/query: one proposition and its scoring options."""

    model_config = ConfigDict(extra="forbid")


class BatchRequest(QueryOptions):
    """POST /v1/query/batch: many propositions scored with the same options."""

    model_config = ConfigDict(extra="forbid")

    queries: list[Proposition] = Field(..., min_length=1)


class WindowOut(BaseModel):
    """A context window and its dates."""

    id: int
    start: dt.date
    end: dt.date


class HypothesisOut(BaseModel):
    """The hypothesis as the engine read it."""

    subject: str
    predicate: str
    object: str
    subject_type: str
    object_type: str
    predicate_text: str
    types_from: str


class EvidenceOut(BaseModel):
    """One piece of evidence a person can check."""

    sentence: str
    sentence_id: str
    article_id: str
    date: dt.date
    subject: str
    predicate: str
    predicate_text: str
    object: str
    aligned: bool
    score: float
    match: str


class QueryResponse(BaseModel):
    """The judged and explained answer to one proposition."""

    score: float
    answer: bool
    threshold: float
    scorer: str
    window: WindowOut
    hypothesis: HypothesisOut
    evidence_count: int
    evidence: list[EvidenceOut]


class BatchResponse(BaseModel):
    """Answers in request order."""

    results: list[QueryResponse]


def answer_out(answer: Answer, window: WindowOut) -> QueryResponse:
    """Build the response body of one answer."""
    h = answer.hypothesis
    return QueryResponse(
        score=round(answer.score, 6), answer=answer.answer, threshold=answer.threshold, scorer=answer.scorer,
        window=window,
        hypothesis=HypothesisOut(subject=h.subj, predicate=h.predicate, object=h.obj, subject_type=h.subj_type,
                                 object_type=h.obj_type, predicate_text=h.predicate_text, types_from=h.types_from),
        evidence_count=answer.evidence_count,
        evidence=[EvidenceOut(sentence=s.evidence.sentence, sentence_id=s.evidence.sentence_id,
                              article_id=s.evidence.article_id, date=s.evidence.date, subject=s.evidence.subj,
                              predicate=s.evidence.predicate, predicate_text=s.evidence.predicate_text,
                              object=s.evidence.obj, aligned=s.evidence.aligned, score=round(s.score, 6),
                              match=s.match) for s in answer.evidence])
