"""Request and response bodies of the REST API (pydantic), and their conversion from engine results."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

from graph_builder.extraction.arguments import ENTITY_TYPES, UNKNOWN_TYPE
from graph_builder.windows import Window, window_of
from service.engine import Answer, HypothesisInput, Options, ReadingJudgement, describe_reading

# The argument types extraction assigns, from its registry: the only types evidence can carry.
ARGUMENT_TYPES: tuple[str, ...] = tuple(sorted({*ENTITY_TYPES.values(), UNKNOWN_TYPE}))
# Window ids whose days fall inside the calendar (years 1..9999) for any window length (1 day is the widest range).
WINDOW_MIN, WINDOW_MAX = window_of(dt.date.min, 1), window_of(dt.date.max, 1)
_TRIPLE = ("subject", "predicate", "object")


def opt_str(max_length: int, min_length: int = 0) -> Any:
    """An optional string field's type: may be left out; the schema says string (not null), bounds inside."""
    return Annotated[str, Field(min_length=min_length, max_length=max_length)] | SkipJsonSchema[None]


class ErrorDetail(BaseModel):
    """What went wrong and what to fix."""

    code: str
    message: str
    details: Any | None = None


class ErrorBody(BaseModel):
    """The one error body every failing request gets."""

    error: ErrorDetail


def _json_int(value: object) -> object:
    """A JSON integer: `2102.0` is one (JSON Schema says so), `true` and `"5"` are not (None: not given)."""
    if isinstance(value, bool):
        raise ValueError("must be an integer, not true or false")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _iso_date(value: object) -> object:
    """A date written as YYYY-MM-DD: not a number of seconds, not another format (None: not given)."""
    if value is None or isinstance(value, dt.date):
        return value
    if not isinstance(value, str) or not _ISO_DATE.fullmatch(value):
        raise ValueError("must be a date written YYYY-MM-DD")
    return value


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class QueryOptions(BaseModel):
    """Scoring options shared by single and batch queries."""

    model_config = ConfigDict(extra="forbid")

    scorer: opt_str(50) = Field(None, description="A scorer from GET /v1/graphs: a graph measure (binc, weeds, lin, "
                                "cos), `<measure>+smooth`, an extra graph set (e.g. berant), `exact` or `lm_cosine`.")
    exclude_same_predicate: bool = Field(False, description="Ignore evidence with the hypothesis' own predicate (benchmark protocol).")
    top_k: int = Field(5, ge=0, le=100, strict=True, description="Evidence items to return, best first.")
    threshold: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] | SkipJsonSchema[None] = Field(
        None, description="Answer is true when score >= threshold (0..1).")

    _top_k_is_an_integer = field_validator("top_k", mode="before")(_json_int)

    def to_options(self) -> Options:
        """Return the engine's options."""
        return Options(self.scorer, self.exclude_same_predicate, self.top_k, self.threshold)


class Proposition(BaseModel):
    """A proposition in a window: free `text`, or `subject`, `predicate`, `object` (predicate may be normalised)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"allOf": [
        {"oneOf": [{"required": ["text"], "not": {"anyOf": [{"required": [f]} for f in _TRIPLE]}},
                   {"required": list(_TRIPLE), "not": {"required": ["text"]}}]},
        {"anyOf": [{"required": ["date"]}, {"required": ["window"]}]},
    ]})

    text: opt_str(2000, 1) = Field(None, examples=["Google was fined by the European Commission."],
                                   description="A sentence stating the proposition; or give `subject`, `predicate` "
                                   "and `object`.")
    subject: opt_str(300, 1) = None
    predicate: opt_str(300, 1) = Field(None, examples=["(visit.1,visit.2)", "was fined by"])
    object: opt_str(300, 1) = None
    subject_type: opt_str(50) = Field(None, json_schema_extra={"enum": list(ARGUMENT_TYPES)},
                                      description="The subject's type (default: from the store or the parser).")
    object_type: opt_str(50) = Field(None, json_schema_extra={"enum": list(ARGUMENT_TYPES)},
                                     description="The object's type (default: from the store or the parser).")
    date: dt.date | SkipJsonSchema[None] = Field(None, description="A date in the window (YYYY-MM-DD); or give `window`.")
    window: Annotated[int, Field(strict=True, ge=WINDOW_MIN, le=WINDOW_MAX)] | SkipJsonSchema[None] = Field(
        None, description="The window id (see GET /v1/windows); or give `date`.")
    exclude_sentence_ids: list[Annotated[str, Field(max_length=200)]] = Field(default_factory=list, max_length=1000)

    _window_is_an_integer = field_validator("window", mode="before")(_json_int)
    _date_is_iso = field_validator("date", mode="before")(_iso_date)

    @field_validator("subject_type", "object_type")
    @classmethod
    def _known_type(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if value.strip().lower() not in ARGUMENT_TYPES:
            raise ValueError(f"unknown argument type {value!r}; valid types: {', '.join(ARGUMENT_TYPES)}")
        return value.strip().lower()

    @model_validator(mode="after")
    def _one_form(self) -> Proposition:
        triple = [getattr(self, f) for f in _TRIPLE]
        if self.text is not None and any(v is not None for v in triple):
            raise ValueError("give either `text` or `subject`/`predicate`/`object`, not both")
        if self.text is None and not all(v is not None for v in triple):
            missing = ", ".join(f"`{f}`" for f, v in zip(_TRIPLE, triple, strict=True) if v is None)
            raise ValueError(f"give `text`, or `subject`, `predicate` and `object` (missing {missing})")
        if self.date is None and self.window is None:
            raise ValueError("give the proposition's `date` (YYYY-MM-DD) or its `window` id")
        return self

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


class DaysOut(BaseModel):
    """The first and last date (inclusive) whose news was read."""

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
    names: list[str] = Field(default_factory=list, description="How each argument was matched to a name the store "
                             "holds: `obama -> barack obama (alias)`; rules exact, legal form, alias, leading words, "
                             "surname, head; `unknown` or `ambiguous` when none matched.")
    readings: list[str] = Field(default_factory=list, description="Every binary reading of a question given as "
                                "text (`subject | predicate | object`), the one that answered first: a question "
                                "with three participants is judged on each pair of them.")
    judged: list[ReadingOut] = Field(default_factory=list, description="Each reading's own score, answer and "
                                     "evidence count, in the order of `readings`: the question takes the first, a "
                                     "true reading before a false one, then the highest score.")


class ReadingOut(BaseModel):
    """One binary reading of a question, judged on its own."""

    reading: str = Field(description="`subject | predicate | object`, as in `readings`.")
    score: float
    answer: bool
    evidence_count: int


class EvidenceOut(BaseModel):
    """One piece of evidence a person can check."""

    sentence: str
    sentence_id: str
    article_id: str
    date: dt.date
    subject: str
    subject_text: str = Field(description="The subject's words as the sentence writes them (`Norvale Mining Corp`).")
    predicate: str
    predicate_text: str
    object: str
    object_text: str = Field(description="The object's words as the sentence writes them.")
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
    days: DaysOut = Field(description="The days whose news was read: the window's for a proposition given by `window`; "
                          "for one given by `date`, the days around it (EGQA_DATE_DAYS=centred: the day before, the "
                          "day, the day after), which may reach into the next or the previous window.")
    hypothesis: HypothesisOut
    evidence_count: int
    evidence: list[EvidenceOut]


class BatchResponse(BaseModel):
    """Answers in request order."""

    results: list[QueryResponse]


def significant(score: float) -> float:
    """A score to 6 significant digits: short JSON, and tiny scores (an LM backoff's) keep their order."""
    return float(f"{score:.6g}")


def answer_out(answer: Answer, window: WindowOut) -> QueryResponse:
    """Build the response body of one answer."""
    h = answer.hypothesis
    return QueryResponse(
        score=significant(answer.score), answer=answer.answer, threshold=answer.threshold, scorer=answer.scorer,
        window=window, days=DaysOut(start=h.days[0], end=h.days[1]) if h.days else DaysOut(start=window.start,
                                                                                          end=window.end),
        hypothesis=HypothesisOut(subject=h.subj, predicate=h.predicate, object=h.obj, subject_type=h.subj_type,
                                 object_type=h.obj_type, predicate_text=h.predicate_text, types_from=h.types_from,
                                 names=list(h.names),
                                 readings=_readings(answer), judged=[ReadingOut(**r) for r in _judged(answer)]),
        evidence_count=answer.evidence_count,
        evidence=[EvidenceOut(sentence=s.evidence.sentence, sentence_id=s.evidence.sentence_id,
                              article_id=s.evidence.article_id, date=s.evidence.date, subject=s.evidence.subj,
                              subject_text=s.evidence.subj_text, predicate=s.evidence.predicate,
                              predicate_text=s.evidence.predicate_text, object=s.evidence.obj,
                              object_text=s.evidence.obj_text, aligned=s.evidence.aligned, score=significant(s.score),
                              match=s.match) for s in answer.evidence])


def _readings(answer: Answer) -> list[str]:
    """Every reading of the question, the answering one first; a hypothesis given as a triple is its one reading."""
    return answer.readings or [describe_reading(answer.hypothesis)]


def _judged(answer: Answer) -> list[dict[str, Any]]:
    """Each reading's own judgement, in the order of `_readings`."""
    judged = answer.judged or [ReadingJudgement(describe_reading(answer.hypothesis), answer.score, answer.answer,
                                                answer.evidence_count)]
    return [{"reading": r.reading, "score": significant(r.score), "answer": bool(r.answer),
             "evidence_count": int(r.evidence_count)} for r in judged]


def window_json(span: Window) -> dict[str, Any]:
    """A window as `WindowOut(...).model_dump(mode="json")` writes it."""
    return {"id": span.id, "start": span.start.isoformat(), "end": span.end.isoformat()}


def answer_json(answer: Answer, window: dict[str, Any]) -> dict[str, Any]:
    """The body of one answer exactly as `answer_out(...).model_dump(mode="json")` writes it, built without
    pydantic: a batch evaluation writes hundreds of thousands (tests/service/test_batch_body.py holds the two equal)."""
    h = answer.hypothesis
    return {
        "score": significant(answer.score), "answer": bool(answer.answer), "threshold": float(answer.threshold),
        "scorer": answer.scorer, "window": window,
        "days": {"start": h.days[0].isoformat(), "end": h.days[1].isoformat()} if h.days else
                {"start": window["start"], "end": window["end"]},
        "hypothesis": {"subject": h.subj, "predicate": h.predicate, "object": h.obj, "subject_type": h.subj_type,
                       "object_type": h.obj_type, "predicate_text": h.predicate_text, "types_from": h.types_from,
                       "names": list(h.names),
                       "readings": _readings(answer),
                       "judged": _judged(answer)},
        "evidence_count": int(answer.evidence_count),
        "evidence": [{"sentence": s.evidence.sentence, "sentence_id": s.evidence.sentence_id,
                      "article_id": s.evidence.article_id, "date": s.evidence.date.isoformat(),
                      "subject": s.evidence.subj, "subject_text": s.evidence.subj_text,
                      "predicate": s.evidence.predicate, "predicate_text": s.evidence.predicate_text,
                      "object": s.evidence.obj, "object_text": s.evidence.obj_text, "aligned": bool(s.evidence.aligned),
                      "score": significant(s.score), "match": s.match} for s in answer.evidence],
    }


_ISO_DATE_PREFIX = re.compile(r"\d{4}-\d{2}-\d{2}([T ].*)?")


def _article_date(value: object) -> object:
    """An article's date: YYYY-MM-DD, or an ISO timestamp whose date part is taken (as the corpus reader does)."""
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str) or not _ISO_DATE_PREFIX.fullmatch(value.strip()):
        raise ValueError("must be a date written YYYY-MM-DD (a timestamp's time is ignored)")
    return value.strip()[:10]


class ArticleIn(BaseModel):
    """One news article in the corpus JSON Lines shape; other fields a corpus carries (url, ...) are ignored."""

    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True)

    id: str = Field(..., min_length=1, max_length=200, pattern=r"\S", description="The article's id: a second "
                    "article with this id is a duplicate.")
    date: dt.date = Field(..., description="Publication date (YYYY-MM-DD): the article's evidence goes into this "
                          "date's window.")
    title: opt_str(2000) = Field(None, description="The headline (optional).")
    text: str = Field(..., description="The article's body, cleaned as news before extraction.")
    split: opt_str(50) = Field(None, description="Corpus split label kept with the triples (e.g. TEST).")

    _date_is_iso = field_validator("date", mode="before")(_article_date)

    @field_validator("id")
    @classmethod
    def _trimmed(cls, value: str) -> str:
        return value.strip()


class ArticlesRequest(BaseModel):
    """POST /v1/articles: articles to extract into the store."""

    model_config = ConfigDict(extra="forbid")

    articles: list[ArticleIn] = Field(..., min_length=1)


class ReceiptOut(BaseModel):
    """What became of one article of the request: `accepted` (durably queued), `duplicate` (same id, or same
    cleaned text as an article received before) or `rejected` (nothing to extract), with the reason."""

    id: str
    status: str
    reason: str | None = None


class ArticlesResponse(BaseModel):
    """One receipt per article, in request order."""

    articles: list[ReceiptOut]


class ArticleStatusOut(BaseModel):
    """An article's state: `queued` (waiting or being extracted), `indexed` (its evidence is searchable; `triples`
    is its triple count) or `rejected` (with the reason)."""

    id: str
    status: str
    triples: int | None = None
    reason: str | None = None


class ReloadRequest(BaseModel):
    """POST /v1/admin/reload: which graph set to make live (default: the live set's folder, read again)."""

    model_config = ConfigDict(extra="forbid")

    graphs_dir: opt_str(500, 1) = Field(None, description="A graph set folder beside the live one (same parent "
                                        "folder), by name or path.")
