"""The evidence-store contract: what every backend (embedded SQLite, Elasticsearch) must do alike.

Evidence for a query (window, a, b) is every triple of that window whose arguments are the pair in
either order (with `days`, every triple dated in those days, whichever windows hold them); `aligned`
says whether the triple's (subj, obj) is (a, b) rather than (b, a). Results are ordered by
(date, triple_id) in every backend, so two runs and two backends give the same list.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import pyarrow as pa

from graph_builder.errors import InputError
from graph_builder.triples import ARTICLE_SCHEMA, TRIPLE_SCHEMA
from graph_builder.windows import Days, windows_of

TRIPLE_FIELDS: tuple[str, ...] = tuple(TRIPLE_SCHEMA.names)
ARTICLE_FIELDS: tuple[str, ...] = tuple(ARTICLE_SCHEMA.names)

# Rows may come as a pyarrow Table/RecordBatch (fast path) or as mappings with the schema's fields.
TripleRows = pa.Table | pa.RecordBatch | Iterable[Mapping[str, object]]
ArticleRows = pa.Table | pa.RecordBatch | Iterable[Mapping[str, object]]


@dataclass(frozen=True, slots=True)
class Evidence:
    """One evidence triple (every field of TRIPLE_SCHEMA) and whether its order matches the query."""

    triple_id: str
    article_id: str
    sentence_id: str
    date: dt.date
    window: int
    split: str
    subj: str
    subj_text: str
    subj_type: str
    obj: str
    obj_text: str
    obj_type: str
    predicate: str
    predicate_text: str
    negated: bool
    sentence: str
    aligned: bool


@dataclass(frozen=True, slots=True)
class EvidenceQuery:
    """One evidence lookup, as batched by `evidence_many`."""

    window: int
    arg_a: str
    arg_b: str
    exclude_sentence_ids: tuple[str, ...] = ()
    limit: int | None = None
    days: Days | None = None  # (first, last), inclusive: the triples dated in them instead of `window`'s


def lookup_windows(q: EvidenceQuery, window_days: int) -> list[int]:
    """The windows a lookup reads: its `window`, or every window holding one of its `days`."""
    return [q.window] if q.days is None else windows_of(q.days, window_days)


@dataclass(frozen=True, slots=True)
class PredicateCount:
    """The evidence rows of one lookup that share a predicate and an argument order, counted.

    Scoring reads only these two fields, so a batch evaluation asks the store for these groups
    instead of whole rows (see `evidence_summary`)."""

    predicate: str
    aligned: bool
    count: int


@dataclass(frozen=True, slots=True)
class WindowInfo:
    """A context window with its dates (inclusive) and how many articles and triples it holds."""

    id: int
    start: dt.date
    end: dt.date
    articles: int
    triples: int


@dataclass(frozen=True, slots=True)
class TypeCount:
    """How often an argument was seen with one type (as subject or object)."""

    type: str
    count: int


NAME_RULES: tuple[str, ...] = ("alias", "prefix", "suffix")  # the kinds of NameMatch, in the order names_for gives them
WINDOW_NAMES = 5000  # the names `window_names` gives at most: a 3-day window of the 2006-2013 corpus names about 1,500
COMMON_NOUN_TYPE = "thing"  # the type of a common-noun argument (graph_builder.extraction.arguments.UNKNOWN_TYPE)


@dataclass(frozen=True, slots=True)
class NameMatch:
    """A name the store holds that a question's name may stand for, and why: `alias` (the canonical-entities
    pass renamed it so), `prefix` (the name's words begin it) or `suffix` (they end it)."""

    name: str
    type: str
    count: int
    how: str


@dataclass(frozen=True, slots=True)
class Alias:
    """A name as extracted (`alias`, with its type) and the canonical name the store holds for it."""

    alias: str
    type: str
    canonical: str
    mentions: int


@dataclass(frozen=True, slots=True)
class StoreStats:
    """Totals of a store: what it holds and where."""

    backend: str
    location: str
    triples: int
    articles: int
    windows: int
    first_window: int | None
    last_window: int | None


@runtime_checkable
class EvidenceStore(Protocol):
    """Triples held by window, so the evidence for a proposition is one indexed lookup."""

    backend: str

    def add_triples(self, rows: TripleRows) -> int:
        """Add triples, skipping any whose triple_id is already stored; return how many were new."""
        ...

    def add_articles(self, rows: ArticleRows) -> int:
        """Add or update article rows (window article counts include articles with no triple)."""
        ...

    def evidence(self, window: int, arg_a: str, arg_b: str, exclude_sentence_ids: Iterable[str] = (),
                 limit: int | None = None) -> list[Evidence]:
        """Return the window's triples about the pair (a, b) in either order, by (date, triple_id)."""
        ...

    def evidence_many(self, queries: Sequence[EvidenceQuery]) -> list[list[Evidence]]:
        """Answer many evidence lookups at once, one result list per query, in query order."""
        ...

    def evidence_summary(self, queries: Sequence[EvidenceQuery]) -> list[list[PredicateCount]]:
        """Per query, the rows `evidence_many` would return grouped by (predicate, aligned), counted,
        ordered by (predicate, aligned first)."""
        ...

    def windows(self) -> list[WindowInfo]:
        """Return every window that holds an article or a triple, by id."""
        ...

    def window(self, window_id: int) -> WindowInfo:
        """Return one window's counts; raise NotFoundError when the store holds nothing for it."""
        ...

    def argument_types(self, arg: str) -> list[TypeCount]:
        """Return the types an argument was seen with, most frequent first (ties by type name)."""
        ...

    def add_aliases(self, aliases: Iterable[Alias]) -> int:
        """Add or replace alias rows (the canonical-entities pass' table); return how many were written."""
        ...

    def names_for(self, name: str, limit: int = 50, rules: Sequence[str] = NAME_RULES) -> list[NameMatch]:
        """Names the store holds that `name` may stand for: its aliases, then names whose words begin or end
        with its words (whole words only), each with its type and mention count; `name` itself is not one.
        `rules` names the kinds looked for (a subset of NAME_RULES, in that order)."""
        ...

    def window_names(self, window: int, days: Days | None = None, limit: int = WINDOW_NAMES) -> list[NameMatch]:
        """The names (arguments of a type other than `thing`, the common nouns') of the window's triples, or of
        those dated in `days`, each with its type and how many of those triples name it (as subject or object),
        most named first (ties by name, then type), at most `limit`; each is a NameMatch of kind `window`."""
        ...

    def dataset(self) -> str | None:
        """The identity of the triples dataset this store was filled from (None: empty, or filled before it was kept)."""
        ...

    def mark_dataset(self, identity: str) -> None:
        """Record the identity of the dataset being added."""
        ...

    def stats(self) -> StoreStats:
        """Return the store's totals."""
        ...

    def drop(self) -> None:
        """Delete every triple, article and the recorded dataset identity."""
        ...

    def close(self) -> None:
        """Release connections; the store is unusable afterwards."""
        ...

    def __enter__(self) -> EvidenceStore:
        """Return the store itself, for `with open_store(url) as store:`."""
        ...

    def __exit__(self, *exc: object) -> None:
        """Close the store."""
        ...


def pair_filter(row_subj: str, row_obj: str, arg_a: str, arg_b: str) -> bool | None:
    """Return the `aligned` flag when (row_subj, row_obj) is the pair in some order, else None."""
    if row_subj == arg_a and row_obj == arg_b:
        return True
    if row_subj == arg_b and row_obj == arg_a:
        return False
    return None


def summarise(rows: Iterable[tuple[str, bool]]) -> list[PredicateCount]:
    """Group (predicate, aligned) rows into counts, ordered by (predicate, aligned first)."""
    counts: dict[tuple[str, bool], int] = {}
    for key in rows:
        counts[key] = counts.get(key, 0) + 1
    return [PredicateCount(p, a, n) for (p, a), n in sorted(counts.items(), key=lambda kv: (kv[0][0], not kv[0][1]))]


def rows_to_columns(rows: TripleRows | ArticleRows, fields: Sequence[str]) -> dict[str, list[object]]:
    """Turn a Table/RecordBatch or an iterable of mappings into one Python list per field."""
    if isinstance(rows, pa.Table | pa.RecordBatch):
        missing = [f for f in fields if f not in rows.schema.names]
        if missing:
            raise InputError(f"rows lack the field(s) {', '.join(missing)}")
        # to_numpy().tolist() is ~20x faster than to_pylist() on string columns (pyarrow 15-26).
        return {f: rows.column(f).to_numpy(zero_copy_only=False).tolist() for f in fields}
    columns: dict[str, list[object]] = {f: [] for f in fields}
    for row in rows:
        for f in fields:
            try:
                columns[f].append(row[f])
            except KeyError:
                raise InputError(f"row lacks the field {f!r}: {dict(row)!r}") from None
    return columns


def as_date(value: object) -> dt.date:
    """Return a date from a date, datetime or ISO string."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])
