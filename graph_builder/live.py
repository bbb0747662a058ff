"""Articles one at a time, as a live feed sends them: cleaned, parsed and turned into triple rows.

The same extractor (version, model, sentence parser, triple ids, windows) as `egqa extract`, so an article
ingested live gets the triple ids an offline extraction of it gets. What the offline pipeline decides from the
whole corpus cannot be decided from one article: live articles get each name's majority type and its
canonical name *within the article* (`canonical_rows`), not the corpus-wide majority type and corpus-wide
aliases that `egqa extract` adds (docs/live.md).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import pyarrow as pa

from graph_builder.corpus import Article, clean_text
from graph_builder.entities import Mention, base_reading, resolve_article
from graph_builder.entity_types import majority_types
from graph_builder.extraction import DEFAULT_MODEL
from graph_builder.extraction.arguments import UNKNOWN_TYPE
from graph_builder.news import clean_news
from graph_builder.pipeline import _exit_with_parent, _shard_parser, article_record, article_rows, parse_articles
from graph_builder.windows import DEFAULT_WINDOW_DAYS, window_of, window_span

MAX_ARTICLE_CHARS = 200_000  # ten times the longest ding2014 article: longer is a dump, not an article

Row = dict[str, object]


@dataclass(frozen=True)
class Prepared:
    """A record made ready for extraction: the cleaned article and its text key, or why it cannot be used."""

    article: Article | None
    text_key: str | None
    reason: str | None = None


def text_key(text: str) -> str:
    """The key two articles with the same cleaned text share (as `egqa extract` drops duplicates by)."""
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def prepare(article_id: str, date: dt.date, title: str | None, text: str, split: str | None = None,
            window_days: int = DEFAULT_WINDOW_DAYS) -> Prepared:
    """Clean a record as the JSON Lines reader does; a record with nothing to extract gets a reason instead."""
    try:
        window_span(window_of(date, window_days), window_days)
    except OverflowError:
        return Prepared(None, None, f"date_out_of_range: the {window_days}-day window of {date} does not lie "
                                    "within years 1..9999")
    if len(text) > MAX_ARTICLE_CHARS:
        return Prepared(None, None, f"text_too_long: {len(text):,} characters; the limit is {MAX_ARTICLE_CHARS:,}")
    body = clean_news(text)
    if not body:
        return Prepared(None, None, "headline_only: the text is empty once cleaned" if (title or "").strip()
                        else "missing_text: the text is empty once cleaned")
    clean_title = " ".join(clean_text(title).split()) if title else ""
    return Prepared(Article(article_id, date, clean_title, body, split or ""), text_key(body))


@dataclass(frozen=True)
class Extracted:
    """One article's article-table row and its triple rows (TRIPLE_SCHEMA fields), ready for a store."""

    article: Row
    triples: list[Row]

    @property
    def id(self) -> str:
        """The article's id."""
        return str(self.article["article_id"])


def extract_articles(articles: Sequence[Article], model: str = DEFAULT_MODEL,
                     window_days: int = DEFAULT_WINDOW_DAYS) -> list[Extracted]:
    """Parse articles with this process' sentence parser and return their rows, typed and named per article."""
    parser = _shard_parser(model)
    out = []
    for article, (sentences, title) in zip(articles, parse_articles(parser, articles), strict=True):
        rows = canonical_rows(article_rows(article, sentences, window_days, title)[0])
        out.append(Extracted(article_record(article, [*sentences, *title], len(rows), window_days), rows))
    return out


def canonical_rows(rows: list[Row]) -> list[Row]:
    """One article's triples with each capitalised name given its majority type in the article, then each
    argument its canonical name in the article (base name; surname, leading words or acronym of a longer name
    mentioned no later), by the rules of `graph_builder.entity_types` and `graph_builder.entities`."""
    columns = ("subj", "subj_text", "subj_type", "obj", "obj_text", "obj_type")
    majority = majority_types(pa.table({c: pa.array([str(r[c]) for r in rows], pa.string()) for c in columns}))
    typed = []
    for row in rows:
        row = dict(row)
        for side in ("subj", "obj"):
            row[f"{side}_type"] = majority.of(str(row[side]), str(row[f"{side}_text"]), str(row[f"{side}_type"]))
        typed.append(row)
    mentions = []
    for row in typed:
        for side in ("subj", "obj"):
            base, rule = base_reading(str(row[side]), str(row[f"{side}_text"]), str(row[f"{side}_type"]))
            mentions.append(Mention(str(row["article_id"]), str(row["sentence_id"]), base, str(row[f"{side}_type"]),
                                    str(row[f"{side}_text"]), rule == "legal form"))
    resolved = resolve_article(mentions)
    for row in typed:
        for side in ("subj", "obj"):
            type_ = str(row[f"{side}_type"])
            base, rule = base_reading(str(row[side]), str(row[f"{side}_text"]), type_)
            hit = None if rule == "legal form" else resolved.get((base, type_))
            row[side] = hit[0] if hit else base
            if hit:
                row[f"{side}_type"] = hit[1]
    return typed


def _start_worker(parent: int, model: str) -> None:
    """Worker initializer: end with the parent (even after kill -9), and load the pipeline before any article."""
    _exit_with_parent(parent)
    _shard_parser(model)


def warm(model: str = DEFAULT_MODEL) -> int:
    """A no-op task that makes the pool start a worker; returns its process id."""
    _shard_parser(model)
    return os.getpid()


def extraction_pool(workers: int, model: str = DEFAULT_MODEL) -> ProcessPoolExecutor:
    """A pool of extraction processes, one spaCy pipeline each, that end when their parent dies, even by kill -9.

    Workers are spawned, not forked: the service forking from its threads could copy a lock another thread holds."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker, initargs=(os.getpid(), model))

