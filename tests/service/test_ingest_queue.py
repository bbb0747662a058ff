"""The ingestion queue and its dispatcher on their own: failed extractions retried then rejected, a store that
fails once costing no try, claimed articles put back after a crash, one dispatcher per queue file."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path
from typing import Any

from graph_builder.errors import StoreError
from graph_builder.live import prepare
from retrieval.backends.sqlite import SQLiteStore
from service.ingestion.dispatcher import Ingestor
from service.ingestion.queue import MAX_TRIES, DispatchLock, IngestQueue
from tests.service.articles import article


def _queued(queue: IngestQueue, n: int) -> list[str]:
    records = [article(k) for k in range(n)]
    receipts = queue.submit([(r["id"], prepare(r["id"], dt.date.fromisoformat(r["date"]), r["title"], r["text"]))
                             for r in records])
    assert {r.status for r in receipts} == {"accepted"}
    return [r["id"] for r in records]


def test_an_article_whose_extraction_keeps_failing_is_rejected_after_max_tries(tmp_path: Path) -> None:
    queue = IngestQueue(tmp_path / "q.db")
    [aid] = _queued(queue, 1)
    for attempt in range(1, MAX_TRIES + 1):
        assert [a.id for a in queue.claim(10)] == [aid]
        rejected = queue.release([aid], "ValueError: boom")
        assert rejected == (1 if attempt == MAX_TRIES else 0)
    state = queue.state(aid)
    assert state is not None and (state.status, state.reason) == ("rejected", "extraction_failed: ValueError: boom")
    assert queue.claim(10) == []


def test_articles_of_a_failed_batch_are_retried_one_by_one(tmp_path: Path) -> None:
    queue = IngestQueue(tmp_path / "q.db")
    ids = _queued(queue, 4)
    batch = [a.id for a in queue.claim(10)]
    assert batch == ids
    queue.release(batch, "BrokenProcessPool: a worker process died")
    assert [[a.id for a in queue.claim(10)] for _ in range(2)] == [ids[:1], ids[1:2]]
    queue.done([(ids[0], 3), (ids[1], 2)])
    assert [a.id for a in queue.claim(10)] == ids[2:3]


def test_a_failure_that_is_not_the_articles_costs_no_try(tmp_path: Path) -> None:
    queue = IngestQueue(tmp_path / "q.db")
    [aid] = _queued(queue, 1)
    for _ in range(MAX_TRIES + 2):
        assert [a.id for a in queue.claim(10)] == [aid]
        assert queue.release([aid], "store write failed", failed=False) == 0
    state = queue.state(aid)
    assert state is not None and state.status == "queued"


def test_claimed_articles_are_queued_again_by_the_next_dispatcher_and_claimed_in_order(tmp_path: Path) -> None:
    queue = IngestQueue(tmp_path / "q.db")
    ids = _queued(queue, 5)
    assert [a.id for a in queue.claim(3)] == ids[:3]
    assert queue.counts() == {"queued": 2, "working": 3, "indexed": 0, "rejected": 0}
    assert {queue.state(i).status for i in ids} == {"queued"}  # type: ignore[union-attr]  (working reads as queued)
    reopened = IngestQueue(tmp_path / "q.db")  # as after a crash: a new process opens the same file
    assert reopened.recover() == 3
    assert [a.id for a in reopened.claim(10)] == ids


def test_one_dispatcher_per_queue_file(tmp_path: Path) -> None:
    first, second = DispatchLock(tmp_path / "q.db"), DispatchLock(tmp_path / "q.db")
    assert first.acquire() and not second.acquire()
    first.release()
    assert second.acquire() and second.held
    second.release()


class FlakyStore:
    """A SQLite store whose first write fails as an unreachable store's does."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self.failed = False

    def add_triples(self, rows: Any) -> int:
        if not self.failed:
            self.failed = True
            raise StoreError("the store did not answer")
        return self.store.add_triples(rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def test_a_store_that_fails_once_gets_the_articles_again_and_they_are_indexed_once(tmp_path: Path,
                                                                                   monkeypatch: Any) -> None:
    monkeypatch.setattr("service.ingestion.dispatcher.STORE_RETRY_SECONDS", 0.1)
    queue = IngestQueue(tmp_path / "q.db")
    ids = _queued(queue, 4)
    store = SQLiteStore(tmp_path / "evidence.db")
    ingestor = Ingestor(queue, FlakyStore(store), workers=1, batch_size=2)  # type: ignore[arg-type]
    ingestor.start()
    try:
        deadline = time.monotonic() + 120
        while queue.counts()["indexed"] < len(ids):
            assert time.monotonic() < deadline, queue.counts()
            time.sleep(0.1)
    finally:
        ingestor.stop()
    assert ingestor.stats.failures == 1 and ingestor.stats.articles == len(ids)
    states = [queue.state(i) for i in ids]
    assert sum(s.triples for s in states) == store.stats().triples > 0  # type: ignore[union-attr, misc]
    assert store.stats().articles == len(ids)
