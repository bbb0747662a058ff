"""The dispatcher: claims queued articles, has worker processes extract them, and writes their triples.

One thread per service process, and one dispatcher per queue file (the `DispatchLock`; a second process waits
to take over). Extraction runs in a pool of worker processes, off the request path; the dispatcher thread is
the store's one writer for live articles, and marks an article indexed only after its triples are written (and,
on Elasticsearch, refreshed, so `indexed` means searchable).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from graph_builder.corpus import Article
from graph_builder.errors import EgqaError
from graph_builder.extraction import DEFAULT_MODEL
from graph_builder.live import Extracted, extract_articles, extraction_pool, warm
from retrieval.ingest import add_extracted
from retrieval.protocol import EvidenceStore
from service.ingestion.queue import DispatchLock, IngestQueue

log = logging.getLogger(__name__)
POLL_SECONDS = 0.2  # how often a busy dispatcher looks for newly queued articles
TAKEOVER_SECONDS = 1.0  # how often a process without the lock tries to take it
STORE_RETRY_SECONDS = 2.0  # pause after a store write failed (the articles go back to the queue)
RESTART_SECONDS = 5.0  # pause before the dispatcher starts over after an unexpected failure


@dataclass
class DispatchStats:
    """What this dispatcher did since it started."""

    batches: int = 0
    articles: int = 0
    triples_written: int = 0
    failures: int = 0
    recovered: int = 0


class Ingestor:
    """Runs the dispatcher thread over `queue` into `store`."""

    def __init__(self, queue: IngestQueue, store: EvidenceStore, *, workers: int = 1, batch_size: int = 32,
                 window_days: int = 3, model: str = DEFAULT_MODEL,
                 on_written: Callable[[list[Extracted]], None] | None = None) -> None:
        self.queue = queue
        self.store = store
        self.workers = workers
        self.batch_size = batch_size
        self.window_days = window_days
        self.model = model
        self.on_written = on_written
        self.stats = DispatchStats()
        self.lock = DispatchLock(queue.path)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._done_at: deque[tuple[float, int]] = deque(maxlen=64)  # (time, articles) of recent batches

    @property
    def dispatching(self) -> bool:
        """Whether this process holds the dispatch lock (another process may be the dispatcher)."""
        return self.lock.held

    def start(self) -> None:
        """Start the dispatcher thread."""
        self._thread = threading.Thread(target=self._run, name="egqa-ingest", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Tell the dispatcher new articles are queued."""
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop claiming, finish or abandon the batches in flight, release the lock (unfinished rows are
        put back to `queued` by whoever takes the lock next)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        if self.dispatching:
            try:
                self.queue.recover()
            except EgqaError as exc:
                log.warning("ingestion queue: could not put unfinished articles back: %s", exc)
        self.lock.release()

    def retry_after(self, waiting: int) -> int:
        """Seconds after which the queue has room again, from the recent rate (1..60)."""
        if len(self._done_at) >= 2:
            span = self._done_at[-1][0] - self._done_at[0][0]
            rate = sum(n for _, n in list(self._done_at)[1:]) / span if span > 0 else 0.0
            if rate > 0:
                return max(1, min(60, math.ceil(waiting / rate)))
        return 5

    # -- the thread --------------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.lock.acquire():
                break
            self._stop.wait(TAKEOVER_SECONDS)
        else:
            return
        while not self._stop.is_set():
            try:
                self._pool_now()
                recovered = self.queue.recover()
                self.stats.recovered += recovered
                if recovered:
                    log.info("ingestion queue: %d articles claimed before a crash are queued again", recovered)
                self._loop()
            except Exception:  # e.g. the queue's disk full: keep the lock, say so, start over after a pause
                log.exception("ingestion dispatcher failed; starting over in %g s", RESTART_SECONDS)
                self.stats.failures += 1
                self._stop.wait(RESTART_SECONDS)

    def _pool_now(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = extraction_pool(self.workers, self.model)
            for _ in range(self.workers):  # start every worker (and load its pipeline) before articles wait for it
                self._pool.submit(warm, self.model)
        return self._pool

    def _drop_pool(self) -> None:
        """Forget a broken pool (its other batches fail too, and go back to the queue); a new one starts on use."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _loop(self) -> None:
        inflight: dict[Future[list[Extracted]], list[Article]] = {}
        while not self._stop.is_set():
            while len(inflight) < self.workers + 1:  # one batch waiting per worker keeps every worker busy
                batch = self.queue.claim(self.batch_size)
                if not batch:
                    break
                try:
                    future = self._pool_now().submit(extract_articles, batch, self.model, self.window_days)
                except BrokenProcessPool:
                    self._drop_pool()
                    self.queue.release([a.id for a in batch], "a worker process died", failed=False)
                    continue
                inflight[future] = batch
            if not inflight:
                self._wake.wait(1.0)
                self._wake.clear()
                continue
            finished, _ = wait(list(inflight), timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
            for future in finished:
                self._finish(future, inflight.pop(future))
        for batch in inflight.values():  # stopping: what was not written goes back to the queue
            self.queue.release([a.id for a in batch], "the service stopped", failed=False)

    def _finish(self, future: Future[list[Extracted]], batch: list[Article]) -> None:
        ids = [a.id for a in batch]
        try:
            extracted = future.result()
        except BrokenProcessPool:
            log.error("ingestion: a worker process died extracting %d articles; they are queued again", len(ids))
            self._drop_pool()
            self.stats.failures += 1
            self.queue.release(ids, "a worker process died")  # counts: an article may kill its worker
            return
        except Exception as exc:
            log.exception("ingestion: extraction failed on %d articles", len(ids))
            self.stats.failures += 1
            rejected = self.queue.release(ids, f"{type(exc).__name__}: {exc}")
            if rejected:
                log.error("ingestion: %d articles rejected after repeated extraction failures", rejected)
            return
        try:
            written = add_extracted(self.store, extracted)
        except EgqaError as exc:
            log.error("ingestion: writing %d articles to the store failed (%s); they are queued again", len(ids), exc)
            self.stats.failures += 1
            self.queue.release(ids, f"store write failed: {exc}", failed=False)
            self._stop.wait(STORE_RETRY_SECONDS)
            return
        if self.on_written is not None:  # before the articles read as indexed: a client then asking sees them
            try:
                self.on_written(extracted)
            except Exception:
                log.exception("ingestion: after-write hook failed")
        self.queue.done([(e.id, len(e.triples)) for e in extracted])
        self.stats.batches += 1
        self.stats.articles += len(extracted)
        self.stats.triples_written += written
        self._done_at.append((time.monotonic(), len(extracted)))
