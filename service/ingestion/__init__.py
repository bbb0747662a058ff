"""Live ingestion: articles received over HTTP, queued durably, extracted by worker processes into the store.

`Ingestion` is what the routes talk to: `submit` (clean, deduplicate, queue, acknowledge) and `state`. The
queue file is opened at start-up when it exists (so a queue a crash left behind resumes at once), else on the
first article received.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI

from graph_builder.extraction import DEFAULT_MODEL
from graph_builder.live import Extracted, prepare
from retrieval.protocol import EvidenceStore
from service.engine import ScoringEngine
from service.errors import IngestionUnavailable
from service.ingestion.dispatcher import Ingestor
from service.ingestion.queue import ArticleState, IngestQueue, Receipt
from service.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Record:
    """One article as a client sends it (the corpus JSON Lines fields)."""

    id: str
    date: dt.date
    title: str | None
    text: str
    split: str | None = None


def queue_path(configured: Path | None, store: EvidenceStore) -> Path | None:
    """The queue file: the configured one, else beside a SQLite store (`evidence.db` -> `evidence.ingest.db`);
    None when neither applies (an Elasticsearch store and no EGQA_INGEST_QUEUE)."""
    if configured is not None:
        return Path(configured)
    path = getattr(store, "path", None)
    return Path(path).with_suffix(".ingest.db") if path is not None else None


class Ingestion:
    """The queue and its dispatcher for one service process."""

    def __init__(self, path: Path | None, store: EvidenceStore, *, workers: int, batch_size: int, max_pending: int,
                 window_days: int, model: str = DEFAULT_MODEL,
                 on_written: Callable[[list[Extracted]], None] | None = None) -> None:
        self.path = path
        self.store = store
        self._options = {"workers": workers, "batch_size": batch_size, "window_days": window_days, "model": model,
                         "on_written": on_written}
        self.max_pending = max_pending
        self.window_days = window_days
        self._queue: IngestQueue | None = None
        self.ingestor: Ingestor | None = None
        self._lock = threading.Lock()
        self._closed = False
        if path is not None and path.is_file():
            self.queue()  # resume what a previous run left queued

    def queue(self) -> IngestQueue:
        """The open queue (opened, and its dispatcher started, on first use)."""
        if self._queue is not None:
            return self._queue
        if self.path is None:
            raise IngestionUnavailable("this service takes no articles: its evidence store is not SQLite, so set "
                                       "EGQA_INGEST_QUEUE to a file for the ingestion queue")
        with self._lock:
            if self._closed:
                raise IngestionUnavailable("the service is stopping")
            if self._queue is None:
                try:
                    queue = IngestQueue(self.path, self.max_pending)
                except Exception as exc:
                    log.error("ingestion queue %s failed to open: %s", self.path, exc)
                    raise IngestionUnavailable("the ingestion queue failed to open; see the service log") from exc
                self.ingestor = Ingestor(queue, self.store, **self._options)  # type: ignore[arg-type]
                self.ingestor.start()
                self._queue = queue
        return self._queue

    def submit(self, records: Sequence[Record]) -> list[Receipt]:
        """Clean and queue records durably; return a receipt per record, in order (QueueFull when full)."""
        queue = self.queue()
        prepared = []
        for r in records:
            prepared.append((r.id, prepare(r.id, r.date, r.title, r.text, r.split, self.window_days)))
            # Cleaning is about a millisecond of pure Python per article: let the threads answering questions
            # take the interpreter lock between articles, instead of waiting out its 5 ms switch interval.
            time.sleep(0)
        assert self.ingestor is not None
        retry = self.ingestor.retry_after(max(1, queue.pending() - queue.max_pending // 2))
        receipts = queue.submit(prepared, retry_after=retry)
        if any(r.status == "accepted" for r in receipts):
            self.ingestor.wake()
        return receipts

    def state(self, article_id: str) -> ArticleState | None:
        """An article's state (None: never received here)."""
        if self._queue is None and (self.path is None or not self.path.is_file()):
            return None
        return self.queue().state(article_id)

    def close(self) -> None:
        """Stop the dispatcher and close the queue."""
        with self._lock:
            self._closed = True
            if self.ingestor is not None:
                self.ingestor.stop()
            if self._queue is not None:
                self._queue.close()


def open_ingestion(app: FastAPI, settings: Settings, engine: ScoringEngine) -> Ingestion:
    """The ingestion queue and dispatcher over the engine's store; new names make the resolver forget its answers,
    and the windows written to the engine's remembered evidence."""
    def forget(extracted: list[Extracted]) -> None:
        live: ScoringEngine | None = getattr(app.state, "engine", None)
        if live is not None:
            live.evidence.forget({int(r["window"]) for e in extracted for r in e.triples})  # type: ignore[call-overload]
            live.names.forget({str(r[side]) for e in extracted for r in e.triples for side in ("subj", "obj")})

    return Ingestion(queue_path(settings.ingest_queue, engine.store), engine.store, workers=settings.ingest_workers,
                     batch_size=settings.ingest_batch, max_pending=settings.ingest_max_pending,
                     window_days=engine.window_days, on_written=forget)
