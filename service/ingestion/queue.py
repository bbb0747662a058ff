"""The durable ingestion queue: one SQLite file (WAL, full sync) that every received article goes through.

An article is acknowledged only after its row is committed here, so a crash after the answer loses nothing.
Rows move `queued` -> `working` (claimed by the one dispatcher) -> `indexed` (its triples are in the store) or
`rejected`. After a crash the dispatcher that next takes the lock puts `working` rows back to `queued`: their
triples may already be in the store, but triple ids are deterministic and the store skips ids it holds, so an
article extracted twice is still indexed once. Any number of processes may add rows (one writer at a time,
each waiting its turn, never `database is locked`); one dispatcher at a time claims them (`DispatchLock`).
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from graph_builder.corpus import Article
from graph_builder.errors import StoreError
from graph_builder.extraction import EXTRACTOR_VERSION
from graph_builder.live import Prepared
from service.errors import QueueFull

SCHEMA_VERSION = "egqa.ingest-queue.v1"
QUEUED, WORKING, INDEXED, REJECTED, DUPLICATE, ACCEPTED = "queued", "working", "indexed", "rejected", "duplicate", "accepted"
MAX_TRIES = 3  # an article whose extraction failed this often is rejected instead of retried forever

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS articles (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    article_id TEXT NOT NULL UNIQUE,
    text_key TEXT UNIQUE,
    status TEXT NOT NULL,
    reason TEXT,
    date TEXT,
    title TEXT,
    text TEXT,
    split TEXT,
    triples INTEGER,
    tries INTEGER NOT NULL DEFAULT 0,
    received REAL NOT NULL,
    finished REAL
);
CREATE INDEX IF NOT EXISTS articles_status ON articles (status, seq);
"""


@dataclass(frozen=True)
class Receipt:
    """What became of one submitted record: accepted, duplicate or rejected, and why."""

    id: str
    status: str
    reason: str | None = None


@dataclass(frozen=True)
class ArticleState:
    """Where an article is: queued (also while extracted), indexed with its triple count, or rejected."""

    id: str
    status: str
    triples: int | None
    reason: str | None
    received: float
    finished: float | None


class IngestQueue:
    """The queue file; every method is one short transaction, safe from any thread."""

    def __init__(self, path: Path, max_pending: int = 10_000) -> None:
        self.path = Path(path)
        self.max_pending = max_pending
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, timeout=60.0, check_same_thread=False, isolation_level=None)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")  # an acknowledged article survives a power cut too
            self._conn.executescript(_SCHEMA)
            self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?), ('extractor', ?)",
                               (SCHEMA_VERSION, EXTRACTOR_VERSION))
            meta = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"{self.path}: cannot open the ingestion queue: {exc}") from exc
        if meta.get("schema") != SCHEMA_VERSION:
            raise StoreError(f"{self.path}: queue schema {meta.get('schema')!r}, expected {SCHEMA_VERSION!r}")
        self.extractor = meta.get("extractor", EXTRACTOR_VERSION)

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken before any read so no other process can slip in between."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self._conn
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: ingestion queue write failed: {exc}") from exc

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: ingestion queue read failed: {exc}") from exc

    def submit(self, records: Sequence[tuple[str, Prepared]], retry_after: int = 5) -> list[Receipt]:
        """Queue the usable records, in order, in one durable transaction; return a receipt per record.

        A record whose id or cleaned text the queue has seen (or that came earlier in the same call) is a
        duplicate; one with nothing to extract is recorded as rejected, so its status can be asked. A record
        rejected before may be sent again. Raises QueueFull, queueing nothing, when the records would take
        the queue over `max_pending`."""
        now = time.time()
        receipts: list[Receipt] = []
        with self._write() as conn:
            pending = conn.execute("SELECT count(*) FROM articles WHERE status IN (?, ?)", (QUEUED, WORKING)).fetchone()[0]
            for article_id, prepared in records:
                old = conn.execute("SELECT status FROM articles WHERE article_id = ?", (article_id,)).fetchone()
                if old is not None and old[0] != REJECTED:
                    receipts.append(Receipt(article_id, DUPLICATE, "same id as an article received before"))
                    continue
                if prepared.article is None:
                    conn.execute("INSERT OR REPLACE INTO articles (article_id, status, reason, received, finished) "
                                 "VALUES (?, ?, ?, ?, ?)", (article_id, REJECTED, prepared.reason, now, now))
                    receipts.append(Receipt(article_id, REJECTED, prepared.reason))
                    continue
                same = conn.execute("SELECT article_id FROM articles WHERE text_key = ? AND article_id != ?",
                                    (prepared.text_key, article_id)).fetchone()
                if same is not None:
                    receipts.append(Receipt(article_id, DUPLICATE, f"same text as article {same[0]!r}"))
                    continue
                a = prepared.article
                conn.execute("INSERT OR REPLACE INTO articles (article_id, text_key, status, date, title, text, split, "
                             "received) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             (article_id, prepared.text_key, QUEUED, a.date.isoformat(), a.title, a.text, a.split, now))
                receipts.append(Receipt(article_id, ACCEPTED))
            accepted = sum(r.status == ACCEPTED for r in receipts)
            if accepted and pending + accepted > self.max_pending:  # raised inside the transaction: nothing is kept
                raise QueueFull(f"the ingestion queue holds {pending:,} articles waiting and the request adds "
                                f"{accepted:,} (the limit is {self.max_pending:,}): retry after {retry_after} s",
                                retry_after=retry_after)
        return receipts

    def claim(self, limit: int) -> list[Article]:
        """Take up to `limit` queued articles, oldest first, marking them `working`. An article tried before (its
        batch failed) is taken alone, so one article that breaks extraction takes no other down with it."""
        with self._write() as conn:
            oldest = conn.execute("SELECT tries FROM articles WHERE status = ? ORDER BY seq LIMIT 1", (QUEUED,)).fetchone()
            if oldest is not None and oldest[0] > 0:
                limit = 1
            rows = conn.execute(
                "UPDATE articles SET status = ?, tries = tries + 1 WHERE seq IN (SELECT seq FROM articles "
                "WHERE status = ? ORDER BY seq LIMIT ?) RETURNING seq, article_id, date, title, text, split",
                (WORKING, QUEUED, limit)).fetchall()
        rows.sort()
        return [Article(aid, dt.date.fromisoformat(date), title or "", text, split or "")
                for _, aid, date, title, text, split in rows]

    def done(self, counts: Sequence[tuple[str, int]]) -> None:
        """Mark articles indexed with their triple counts (their text is dropped; its key stays for duplicates)."""
        now = time.time()
        with self._write() as conn:
            conn.executemany("UPDATE articles SET status = ?, triples = ?, text = NULL, finished = ? "
                             "WHERE article_id = ? AND status = ?",
                             [(INDEXED, n, now, aid, WORKING) for aid, n in counts])

    def release(self, ids: Sequence[str], reason: str, failed: bool = True) -> int:
        """Put claimed articles back in the queue. After an extraction failure (`failed`), those tried MAX_TRIES
        times are rejected instead; after any other failure (the store, a stop) the try does not count.
        Return how many were rejected."""
        if not ids:
            return 0
        now = time.time()
        marks = ", ".join("?" * len(ids))
        with self._write() as conn:
            rejected = 0
            if failed:
                rejected = conn.execute(f"UPDATE articles SET status = ?, reason = ?, text = NULL, finished = ? "
                                        f"WHERE status = ? AND tries >= ? AND article_id IN ({marks})",
                                        (REJECTED, f"extraction_failed: {reason}", now, WORKING, MAX_TRIES, *ids)).rowcount
            conn.execute(f"UPDATE articles SET status = ?, tries = tries - ? WHERE status = ? AND article_id IN ({marks})",
                         (QUEUED, 0 if failed else 1, WORKING, *ids))
        return int(rejected)

    def recover(self) -> int:
        """Put back every `working` article (its dispatcher is gone, which costs the article no try); return how
        many. Only the lock holder may."""
        with self._write() as conn:
            return int(conn.execute("UPDATE articles SET status = ?, tries = tries - 1 WHERE status = ?",
                                    (QUEUED, WORKING)).rowcount)

    def state(self, article_id: str) -> ArticleState | None:
        """The article's state, or None when the queue never received it."""
        rows = self._read("SELECT status, triples, reason, received, finished FROM articles WHERE article_id = ?",
                          (article_id,))
        if not rows:
            return None
        status, triples, reason, received, finished = rows[0]
        return ArticleState(article_id, QUEUED if status == WORKING else str(status),
                            None if triples is None else int(triples),  # type: ignore[call-overload]
                            None if reason is None else str(reason), float(received),  # type: ignore[arg-type]
                            None if finished is None else float(finished))  # type: ignore[arg-type]

    def counts(self) -> dict[str, int]:
        """How many articles are queued, working, indexed and rejected."""
        found = dict(self._read("SELECT status, count(*) FROM articles GROUP BY status"))
        return {s: int(found.get(s, 0)) for s in (QUEUED, WORKING, INDEXED, REJECTED)}  # type: ignore[call-overload]

    def pending(self) -> int:
        """Articles waiting or being extracted."""
        counts = self.counts()
        return counts[QUEUED] + counts[WORKING]

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._conn.close()


class DispatchLock:
    """An exclusive lock beside the queue file: the one process that claims articles. The kernel releases it
    when its holder dies, even by kill -9, so the next process to try takes over."""

    def __init__(self, queue_path: Path) -> None:
        self.path = queue_path.with_name(queue_path.name + ".lock")
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None

    def acquire(self) -> bool:
        """Take the lock if no other holder has it; return whether this object holds it."""
        if self._fd is not None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        """Give the lock up."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
