"""Load a triples dataset (Parquet shards + article table) into any evidence store, in bounded memory."""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from graph_builder.entities import read_aliases
from graph_builder.errors import ArtefactError, InputError
from graph_builder.corpus import Article
from graph_builder.extraction import DEFAULT_MODEL
from graph_builder.live import Extracted, extract_articles, extraction_pool
from graph_builder.triples import ARTICLE_GLOB, ARTICLE_SCHEMA, TRIPLE_SCHEMA, dataset_identity, read_articles, shard_files
from graph_builder.windows import DEFAULT_WINDOW_DAYS
from retrieval.protocol import Alias, EvidenceStore, StoreStats

log = logging.getLogger(__name__)
DEFAULT_BATCH_SIZE = 20_000


@dataclass(frozen=True, slots=True)
class IndexSummary:
    """What one `index_dataset` run did."""

    triples_read: int
    triples_added: int
    articles: int
    seconds: float
    stats: StoreStats
    aliases: int = 0

    @property
    def triples_skipped(self) -> int:
        """Triples already in the store (same triple_id), hence not added again."""
        return self.triples_read - self.triples_added

    @property
    def rate(self) -> float:
        """Triples read per second."""
        return self.triples_read / self.seconds if self.seconds > 0 else 0.0


def count_triples(path: Path) -> int:
    """Return the number of triples in a dataset from the Parquet footers (no data read)."""
    return sum(pq.ParquetFile(f).metadata.num_rows for f in shard_files(path))


def _only(batch: pa.RecordBatch, splits: tuple[str, ...] | None) -> pa.RecordBatch:
    if splits is None:
        return batch
    return batch.filter(pc.is_in(batch.column("split"), value_set=pa.array(splits, pa.string())))


def check_dataset(path: Path, store: EvidenceStore, replace: bool = False) -> str | None:
    """Refuse to add a dataset to a store filled from another one (else triple ids shared by both keep the old
    rows); with `replace`, empty the store first. Return the dataset's identity (None without a manifest)."""
    identity = dataset_identity(path)
    if replace:
        store.drop()
    held = store.dataset()
    if identity is not None and held is not None and held != identity:
        raise InputError(f"{store.stats().location} holds triples of another dataset ({held}); this one is "
                         f"{identity}. Index into a new store, or pass --replace to empty this one first")
    if identity is not None and held is None and store.stats().triples:
        log.warning("%s holds triples but no record of their dataset (indexed by an older egqa); adding %s to "
                    "them: if it was re-extracted, re-index with --replace", store.stats().location, path)
    return identity


def index_dataset(path: Path, store: EvidenceStore, *, batch_size: int = DEFAULT_BATCH_SIZE,
                  progress: Callable[[int], object] | None = None,
                  splits: tuple[str, ...] | None = None, replace: bool = False) -> IndexSummary:
    """Add every triple (and the article table, when present) of the dataset at `path` to `store`.

    With `splits`, only triples and articles of those corpus splits are added: an evaluation store holds the
    evaluation period only, never the articles the graphs were induced from. A store remembers the dataset it
    was filled from: another dataset (a re-extraction, another corpus) is refused unless `replace` empties the
    store first.
    """
    start = time.perf_counter()
    identity = check_dataset(path, store, replace)
    if identity is not None:
        store.mark_dataset(identity)
    read = added = 0
    for shard in shard_files(path):
        try:
            batches = pq.ParquetFile(shard).iter_batches(batch_size=batch_size, columns=TRIPLE_SCHEMA.names)
            for batch in batches:
                kept = _only(batch, splits)
                added += store.add_triples(kept)
                read += kept.num_rows
                if progress is not None:
                    progress(batch.num_rows)
        except OSError as exc:
            raise ArtefactError(f"{shard}: unreadable triples shard: {exc}") from exc
    articles = 0
    if path.is_dir() and any(path.glob(ARTICLE_GLOB)):
        table = read_articles(path)
        for batch in table.to_batches(max_chunksize=batch_size):
            articles += store.add_articles(_only(batch, splits))
    else:
        log.warning("%s has no article table: window article counts will cover only articles with triples",
                    path)
    aliases = _index_aliases(path, store, batch_size)
    return IndexSummary(read, added, articles, time.perf_counter() - start, store.stats(), aliases)


def _index_aliases(path: Path, store: EvidenceStore, batch_size: int) -> int:
    """Give the store the dataset's alias table (canonical entities), so questions naming a short form find it."""
    table = read_aliases(path) if path.is_dir() else None
    if table is None:
        return 0
    written = 0
    for batch in table.to_batches(max_chunksize=batch_size):
        written += store.add_aliases(Alias(a, t, c, m) for a, t, c, m in zip(
            *(batch.column(k).to_pylist() for k in ("alias", "type", "canonical", "mentions")), strict=True))
    return written


def add_extracted(store: EvidenceStore, items: Sequence[Extracted]) -> int:
    """Write live-extracted articles to `store`: their triples (ids the store holds are skipped, so writing an
    article twice adds it once), then their article rows. Return how many triples were new."""
    if not items:
        return 0
    triples = [row for item in items for row in item.triples]
    added = store.add_triples(pa.Table.from_pylist(triples, schema=TRIPLE_SCHEMA)) if triples else 0
    store.add_articles(pa.Table.from_pylist([item.article for item in items], schema=ARTICLE_SCHEMA))
    return added


@dataclass
class ArticleSummary:
    """What one `ingest_articles` run did."""

    articles: int = 0
    triples_read: int = 0
    triples_added: int = 0
    seconds: float = 0.0


def ingest_articles(articles: Iterable[Article], store: EvidenceStore, *, workers: int = 1, batch_size: int = 32,
                    window_days: int = DEFAULT_WINDOW_DAYS, model: str = DEFAULT_MODEL,
                    progress: Callable[[int], object] | None = None) -> ArticleSummary:
    """Extract articles in `workers` processes and write them to `store` as they come back (triple ids the store
    holds are skipped, so a second run adds nothing twice). At most two batches per worker are in flight."""
    start = time.perf_counter()
    summary = ArticleSummary()

    def write(items: list[Extracted]) -> None:
        summary.articles += len(items)
        summary.triples_read += sum(len(e.triples) for e in items)
        summary.triples_added += add_extracted(store, items)
        if progress is not None:
            progress(len(items))

    batches = _batches(articles, batch_size)
    if workers <= 1:
        for batch in batches:
            write(extract_articles(batch, model, window_days))
    else:
        with extraction_pool(workers, model) as pool:
            inflight: deque[Future[list[Extracted]]] = deque()
            for batch in batches:
                inflight.append(pool.submit(extract_articles, batch, model, window_days))
                if len(inflight) >= 2 * workers:
                    write(inflight.popleft().result())
            while inflight:
                write(inflight.popleft().result())
    summary.seconds = time.perf_counter() - start
    return summary


def _batches(articles: Iterable[Article], size: int) -> Iterator[list[Article]]:
    batch: list[Article] = []
    for article in articles:
        batch.append(article)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
