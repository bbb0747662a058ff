"""The embedded store serves many concurrent readers (threads and processes) while one writer ingests."""

from __future__ import annotations

import datetime as dt
import multiprocessing as mp
import threading
import time
from pathlib import Path

import pytest

from graph_builder.errors import StoreError
from retrieval.backends.sqlite import SQLiteStore
from tests.retrieval.rows import triple

DAY = dt.date(1987, 3, 4)
BATCHES, PER_BATCH = 20, 50


def _batch(b: int) -> list[dict[str, object]]:
    return [triple(b * PER_BATCH + i, DAY, "opec", "oil", article=f"x{b}") for i in range(PER_BATCH)]


def _reader_process(path: str, rounds: int, out: "mp.Queue[object]") -> None:
    """Read repeatedly in another process; report the counts seen (or the error)."""
    try:
        store = SQLiteStore(path, create=False)
        seen = [len(store.evidence(store.windows()[0].id, "oil", "opec")) for _ in range(rounds)]
        out.put(seen)
    except Exception as exc:  # pragma: no cover - reported to the test
        out.put(repr(exc))


def test_readers_never_fail_or_see_partial_batches_while_writing(tmp_path: Path) -> None:
    """Readers in 4 threads and 2 processes see only whole batches, growing, and never an error."""
    path = tmp_path / "store.db"
    store = SQLiteStore(path)
    store.add_triples(_batch(0))
    window = store.windows()[0].id
    errors: list[BaseException] = []
    seen: dict[int, list[int]] = {}
    done = threading.Event()

    def reader(k: int) -> None:
        counts = seen.setdefault(k, [])
        try:
            while not done.is_set():
                counts.append(len(store.evidence(window, "opec", "oil")))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    ctx = mp.get_context("spawn")
    queue: mp.Queue[object] = ctx.Queue()
    procs = [ctx.Process(target=_reader_process, args=(str(path), 200, queue)) for _ in range(2)]
    threads = [threading.Thread(target=reader, args=(k,)) for k in range(4)]
    for worker in [*procs, *threads]:
        worker.start()
    writer = SQLiteStore(path)
    for b in range(1, BATCHES):
        assert writer.add_triples(_batch(b)) == PER_BATCH
    done.set()
    for t in threads:
        t.join()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join()
    assert errors == []
    for counts in [*seen.values(), *results]:
        assert isinstance(counts, list) and counts, counts
        assert all(c % PER_BATCH == 0 for c in counts)  # a batch is one transaction
        assert counts == sorted(counts)  # a reader never goes back in time
    assert len(store.evidence(window, "oil", "opec")) == BATCHES * PER_BATCH


def _open_files(path: Path) -> int:
    """Return how many file descriptors of this process point at `path` (one per SQLite connection)."""
    target = str(path.resolve())
    count = 0
    for fd in Path("/proc/self/fd").iterdir():
        try:
            count += fd.resolve() == Path(target) if fd.is_symlink() else 0
        except OSError:
            continue
    return count


def test_connections_stay_bounded_as_threads_come_and_go(tmp_path: Path) -> None:
    """A server's worker threads come and go; the store's connections (and their page caches) must not."""
    path = tmp_path / "store.db"
    store = SQLiteStore(path, max_connections=3)
    store.add_triples(_batch(0))
    window = store.windows()[0].id
    counts: list[int] = []

    def read() -> None:
        counts.append(len(store.evidence(window, "oil", "opec")))

    for _ in range(10):  # ten bursts of twenty fresh threads
        threads = [threading.Thread(target=read) for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert counts == [PER_BATCH] * 200
    assert store.open_connections <= 3 and _open_files(path) <= 3
    store.close()
    assert store.open_connections == 0 and _open_files(path) == 0


def test_busy_pool_gives_a_store_error_after_the_timeout(tmp_path: Path) -> None:
    """When every connection stays lent longer than the timeout, the caller gets StoreError, not a hang."""
    store = SQLiteStore(tmp_path / "store.db", max_connections=1, request_timeout=0.3)
    with store._borrow():  # hold the only connection
        start = time.monotonic()
        with pytest.raises(StoreError, match="busy"):
            store.windows()
        assert 0.25 < time.monotonic() - start < 2.0
    assert store.windows() == []
    store.close()


@pytest.mark.parametrize(("connections", "kib"), [(1, 32_768), (4, 8_192), (64, 4_096)])
def test_the_page_cache_budget_is_shared_out_among_the_pool(tmp_path: Path, connections: int, kib: int) -> None:
    """A process's SQLite page caches stay within one budget however many connections its pool may open."""
    store = SQLiteStore(tmp_path / "store.db", max_connections=connections)
    with store._borrow() as conn:
        assert conn.execute("PRAGMA cache_size").fetchone()[0] == -kib
    store.close()
