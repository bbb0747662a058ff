"""The embedded evidence store: one SQLite file in WAL mode, a small bounded pool of connections.

WAL lets any number of reader threads and processes read while one writer ingests. Connections are
borrowed from a pool of at most `max_connections` for one operation each and returned, so a server
whose worker threads come and go holds a fixed number of connections (and their page caches). Lookups use the
index (window_id, subj, obj): the evidence query is two index probes, one per argument order. Ingest
is one INSERT OR IGNORE per batch (idempotent by the unique triple_id); the running argument-type
counts and article stubs are then computed by SQL over the batch's new rows only (rowid > max before).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import queue
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from graph_builder.errors import InputError, NotFoundError, StoreCorrupted, StoreError
from graph_builder.windows import DEFAULT_WINDOW_DAYS, Days, window_span, windows_of
from retrieval.protocol import (
    ARTICLE_FIELDS,
    TRIPLE_FIELDS,
    Alias,
    ArticleRows,
    Evidence,
    EvidenceQuery,
    COMMON_NOUN_TYPE,
    NAME_RULES,
    WINDOW_NAMES,
    NameMatch,
    PredicateCount,
    StoreStats,
    TripleRows,
    TypeCount,
    WindowInfo,
    rows_to_columns,
)

SCHEMA_VERSION = "egqa.sqlite-store.v1"
PAGE_CACHE_KIB = 32_768  # SQLite's page cache of one store, in KiB, split among its pooled connections
MIN_CONNECTION_CACHE_KIB = 4_096
# `window` is an SQL keyword, so the column is window_id; every other column keeps its schema name.
_COLS = tuple("window_id" if f == "window" else f for f in TRIPLE_FIELDS)
_COL_LIST = ", ".join(_COLS)
_TRIPLE_DDL = """
    triple_id TEXT NOT NULL {pk}, article_id TEXT NOT NULL, sentence_id TEXT NOT NULL,
    date TEXT NOT NULL, window_id INTEGER NOT NULL, split TEXT NOT NULL,
    subj TEXT NOT NULL, subj_text TEXT NOT NULL, subj_type TEXT NOT NULL,
    obj TEXT NOT NULL, obj_text TEXT NOT NULL, obj_type TEXT NOT NULL,
    predicate TEXT NOT NULL, predicate_text TEXT NOT NULL, negated INTEGER NOT NULL, sentence TEXT NOT NULL
"""
# The last word of a name, as an SQL expression an index can hold ("barack obama" -> "obama"): the trailing run of
# non-space characters. Names that end with a given name are found through it without reading every name.
_LAST_WORD = "replace(arg, rtrim(arg, replace(arg, ' ', '')), '')"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS triples ({_TRIPLE_DDL.format(pk="UNIQUE")});
CREATE INDEX IF NOT EXISTS triples_pair ON triples (window_id, subj, obj, date, triple_id, predicate, sentence_id);
DROP INDEX IF EXISTS triples_lookup;
CREATE TABLE IF NOT EXISTS articles (
    article_id TEXT PRIMARY KEY, date TEXT NOT NULL, window_id INTEGER NOT NULL, split TEXT,
    title TEXT, sentences INTEGER, tokens INTEGER, triples INTEGER
);
CREATE INDEX IF NOT EXISTS articles_window ON articles (window_id);
CREATE TABLE IF NOT EXISTS arg_types (
    arg TEXT NOT NULL, type TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (arg, type)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS arg_types_last ON arg_types ({_LAST_WORD});
CREATE TABLE IF NOT EXISTS aliases (
    alias TEXT NOT NULL, type TEXT NOT NULL, canonical TEXT NOT NULL, mentions INTEGER NOT NULL,
    PRIMARY KEY (alias, type)
) WITHOUT ROWID;
"""
_DATE_COL = _COLS.index("date")
_NEG_COL = _COLS.index("negated")
_SUBJ_COL = _COLS.index("subj")
_SENT_COL = _COLS.index("sentence_id")


def _iso(value: object) -> str:
    """Return an ISO date string for a date, datetime or string."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)[:10]


def _is_int64(value: int) -> bool:
    """Return True when SQLite can bind `value` (no window outside int64 holds anything)."""
    return -(2**63) <= value < 2**63


def _failure(exc: sqlite3.Error) -> type[StoreError]:
    """The error a failed SQLite call raises: StoreCorrupted when the file's content cannot be read (a damaged
    page, a file that is no database), else StoreError (locked, busy, out of disk: worth a retry)."""
    damaged = type(exc) is sqlite3.DatabaseError or "malformed" in str(exc) or "not a database" in str(exc)
    return StoreCorrupted if damaged else StoreError


class SQLiteStore:
    """Evidence store in a single SQLite file (the embedded default)."""

    backend = "sqlite"

    def __init__(self, path: str | Path, *, create: bool = True, window_days: int = DEFAULT_WINDOW_DAYS,
                 max_connections: int = 8, request_timeout: float = 30.0) -> None:
        """Open (and with `create`, make) the store file at `path`; at most `max_connections` stay open.

        `request_timeout` is how long a call waits for a free connection before raising StoreError.
        """
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise StoreError(f"{self.path}: no evidence store here (build one with `egqa index`)")
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if max_connections < 1:
            raise InputError(f"max_connections must be 1 or more, got {max_connections}")
        self.window_days = window_days
        self.max_connections = max_connections
        self.request_timeout = request_timeout
        self._idle: queue.LifoQueue[sqlite3.Connection] = queue.LifoQueue()
        self._lock = threading.Lock()
        self._opened = 0
        self._closed = False
        try:
            with self._borrow() as conn:
                self._init_file(conn, create, window_days)
        except BaseException:
            self.close()  # a file that is no store must not keep its connection open
            raise

    def _init_file(self, conn: sqlite3.Connection, create: bool, window_days: int) -> None:
        """Create the schema (with `create`) and check the file is a store of our schema version."""
        try:
            if create:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(_SCHEMA)
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?), ('window_days', ?)",
                             (SCHEMA_VERSION, str(window_days)))
                conn.commit()
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            raise StoreCorrupted(f"{self.path}: not a readable evidence store: {exc}") from exc
        if meta.get("schema") != SCHEMA_VERSION:
            raise StoreError(f"{self.path}: store schema {meta.get('schema')!r}, expected {SCHEMA_VERSION!r}")
        self.window_days = int(meta.get("window_days", window_days))

    @classmethod
    def from_url(cls, url: str, **options: object) -> SQLiteStore:
        """Open `sqlite:///relative/path.db` or `sqlite:////absolute/path.db`."""
        prefix = "sqlite:///"
        if not url.startswith(prefix) or len(url) == len(prefix):
            raise InputError(f"bad SQLite store URL {url!r}: expected sqlite:///path/to/store.db")
        return cls(url[len(prefix):], **options)  # type: ignore[arg-type]

    # -- connections -------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        """Open one connection with the store's pragmas."""
        try:
            conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, cached_statements=256)
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA temp_store=MEMORY")
            # One page-cache budget per store, shared out among its connections: each connection's cache is its
            # own, so a fixed size per connection grew a process's resident memory with its pool (64 MB each).
            conn.execute(f"PRAGMA cache_size=-{max(PAGE_CACHE_KIB // self.max_connections, MIN_CONNECTION_CACHE_KIB)}")
            # No memory map: each pooled connection maps the file on its own, so a process reading with four
            # held up to four copies of the hot pages in its resident memory; reads through the OS page cache
            # cost no more CPU on the evaluation's covering-index scans.
            conn.execute("PRAGMA mmap_size=0")
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: cannot open evidence store: {exc}") from exc
        return conn

    @contextmanager
    def _borrow(self) -> Iterator[sqlite3.Connection]:
        """Lend a pooled connection for one operation: an idle one, a new one under the cap, or wait."""
        if self._closed:
            raise StoreError(f"{self.path}: store is closed")
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            with self._lock:
                grow = self._opened < self.max_connections
                self._opened += grow
            if grow:
                try:
                    conn = self._open()
                except BaseException:
                    with self._lock:
                        self._opened -= 1
                    raise
            else:
                try:
                    conn = self._idle.get(timeout=self.request_timeout)
                except queue.Empty:
                    raise StoreError(f"{self.path}: all {self.max_connections} connections stayed busy for "
                                     f"{self.request_timeout:g} s") from None
        try:
            yield conn
        finally:
            if conn.in_transaction:  # an operation that failed midway must not leave its transaction open
                conn.rollback()
            if self._closed:
                conn.close()
                with self._lock:
                    self._opened -= 1
            else:
                self._idle.put(conn)

    @property
    def open_connections(self) -> int:
        """How many connections the store holds open now (idle or lent)."""
        return self._opened

    def close(self) -> None:
        """Close every idle connection now and every lent one when it comes back."""
        self._closed = True
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                break
            with self._lock:
                self._opened -= 1

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes --------------------------------------------------------------------------------

    def add_triples(self, rows: TripleRows) -> int:
        """Add triples, skipping any whose triple_id is already stored; return how many were new."""
        if isinstance(rows, pa.Table | pa.RecordBatch) and "date" in rows.schema.names:
            # Vectorised ISO dates: the per-row Python conversion costs a fifth of the ingest time.
            rows = rows.set_column(rows.schema.get_field_index("date"), "date",
                                   pc.cast(rows.column("date"), pa.string()))
        cols = rows_to_columns(rows, TRIPLE_FIELDS)
        if not cols["triple_id"]:
            return 0
        cols["date"] = [d if isinstance(d, str) else _iso(d) for d in cols["date"]]
        values = zip(*(cols[f] for f in TRIPLE_FIELDS), strict=True)  # sqlite stores bool as 0/1
        placeholders = ", ".join("?" * len(_COLS))
        try:
            with self._borrow() as conn, conn:
                # IMMEDIATE takes the write lock first, so no other writer can slip rows in between
                # reading max(rowid) and inserting: rows with a larger rowid are exactly this batch's new ones.
                conn.execute("BEGIN IMMEDIATE")
                before = conn.execute("SELECT coalesce(max(rowid), 0) FROM main.triples").fetchone()[0]
                added = conn.executemany(f"INSERT OR IGNORE INTO main.triples ({_COL_LIST}) VALUES ({placeholders})",
                                         values).rowcount
                if added == len(cols["triple_id"]):
                    # Every row was new (the usual first ingest): count from the batch in Python, which
                    # is cheaper than reading the new rows (with their sentences) back.
                    self._count_new_rows(conn, cols)
                elif added:
                    self._count_new_rows_sql(conn, before)
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: cannot add triples: {exc}") from exc
        return added

    @staticmethod
    def _count_new_rows(conn: sqlite3.Connection, cols: dict[str, list[object]]) -> None:
        """Add the batch's argument-type counts and article stubs (all rows of `cols` are new)."""
        types = Counter(zip(cols["subj"], cols["subj_type"], strict=True))
        types.update(zip(cols["obj"], cols["obj_type"], strict=True))
        conn.executemany("INSERT INTO main.arg_types (arg, type, n) VALUES (?, ?, ?) "
                         "ON CONFLICT (arg, type) DO UPDATE SET n = n + excluded.n",
                         ((a, t, n) for (a, t), n in types.items()))
        stubs: dict[object, tuple[object, object]] = {}
        for aid, date, window in zip(cols["article_id"], cols["date"], cols["window"], strict=True):
            stubs.setdefault(aid, (date, window))
        # Articles known only from their triples still count in their window.
        conn.executemany("INSERT OR IGNORE INTO main.articles (article_id, date, window_id) VALUES (?, ?, ?)",
                         ((aid, d, w) for aid, (d, w) in stubs.items()))

    @staticmethod
    def _count_new_rows_sql(conn: sqlite3.Connection, before: int) -> None:
        """Add argument-type counts and article stubs for the rows stored after rowid `before`."""
        for arg, typ in (("subj", "subj_type"), ("obj", "obj_type")):
            conn.execute(f"INSERT INTO main.arg_types (arg, type, n) SELECT {arg}, {typ}, count(*) "
                         f"FROM main.triples WHERE rowid > ? GROUP BY {arg}, {typ} "
                         "ON CONFLICT (arg, type) DO UPDATE SET n = n + excluded.n", (before,))
        conn.execute("INSERT OR IGNORE INTO main.articles (article_id, date, window_id) "
                     "SELECT article_id, min(date), min(window_id) FROM main.triples WHERE rowid > ? "
                     "GROUP BY article_id", (before,))

    def add_articles(self, rows: ArticleRows) -> int:
        """Add or update article rows; return how many rows were written."""
        cols = rows_to_columns(rows, ARTICLE_FIELDS)
        cols["date"] = [_iso(d) for d in cols["date"]]
        values = list(zip(*(cols[f] for f in ARTICLE_FIELDS), strict=True))
        names = ", ".join("window_id" if f == "window" else f for f in ARTICLE_FIELDS)
        updates = ", ".join(f"{n} = excluded.{n}" for n in names.split(", ") if n != "article_id")
        try:
            with self._borrow() as conn, conn:
                conn.executemany(f"INSERT INTO articles ({names}) VALUES ({', '.join('?' * len(ARTICLE_FIELDS))}) "
                                 f"ON CONFLICT (article_id) DO UPDATE SET {updates}", values)
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: cannot add articles: {exc}") from exc
        return len(values)

    # -- reads ---------------------------------------------------------------------------------

    def _scope(self, window: int, days: Days | None) -> tuple[str, list[object]]:
        """The WHERE clause (before the pair's) and parameters of a lookup's window, or of its days."""
        if days is None:
            return "window_id = ?", [window]
        ids = windows_of(days, self.window_days)
        return (f"window_id IN ({', '.join('?' * len(ids))}) AND date BETWEEN ? AND ?",
                [*ids, days[0].isoformat(), days[1].isoformat()])

    def _lookup(self, conn: sqlite3.Connection, window: int, arg_a: str, arg_b: str,
                exclude: frozenset[str], limit: int | None, days: Days | None = None) -> list[Evidence]:
        """Run one evidence lookup on `conn`."""
        scope, params = self._scope(window, days)
        one = f"SELECT {_COL_LIST} FROM triples WHERE {scope} AND subj = ? AND obj = ?"
        if arg_a == arg_b:
            rows = conn.execute(f"{one} ORDER BY date, triple_id", (*params, arg_a, arg_a)).fetchall()
        else:
            rows = conn.execute(f"{one} UNION ALL {one} ORDER BY date, triple_id",
                                (*params, arg_a, arg_b, *params, arg_b, arg_a)).fetchall()
        out: list[Evidence] = []
        for row in rows:
            if row[_SENT_COL] in exclude:
                continue
            if limit is not None and len(out) >= limit:
                break
            values = list(row)
            values[_DATE_COL] = dt.date.fromisoformat(row[_DATE_COL])
            values[_NEG_COL] = bool(row[_NEG_COL])
            out.append(Evidence(*values, aligned=row[_SUBJ_COL] == arg_a))
        return out

    def evidence(self, window: int, arg_a: str, arg_b: str, exclude_sentence_ids: Iterable[str] = (),
                 limit: int | None = None) -> list[Evidence]:
        """Return the window's triples about the pair (a, b) in either order, by (date, triple_id)."""
        if not _is_int64(window):
            return []
        try:
            with self._borrow() as conn:
                return self._lookup(conn, window, arg_a, arg_b, frozenset(exclude_sentence_ids), limit)
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: evidence lookup failed: {exc}") from exc

    def evidence_many(self, queries: Sequence[EvidenceQuery]) -> list[list[Evidence]]:
        """Answer many evidence lookups at once, one result list per query, in query order."""
        try:
            with self._borrow() as conn:
                return [self._lookup(conn, q.window, q.arg_a, q.arg_b, frozenset(q.exclude_sentence_ids), q.limit,
                                     q.days) if _is_int64(q.window) else [] for q in queries]
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: evidence lookup failed: {exc}") from exc

    def evidence_summary(self, queries: Sequence[EvidenceQuery]) -> list[list[PredicateCount]]:
        """Per query, its evidence grouped by (predicate, aligned) and counted: filters, limit and grouping
        run in SQL, and only two short columns come back."""
        try:
            with self._borrow() as conn:
                return [self._summary(conn, q) if _is_int64(q.window) else [] for q in queries]
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: evidence lookup failed: {exc}") from exc

    def _summary(self, conn: sqlite3.Connection, q: EvidenceQuery) -> list[PredicateCount]:
        """Run one grouped evidence lookup on `conn` (the rows of `_lookup`, counted per predicate).

        One query per argument order on the covering index triples_pair, so SQLite never reads the
        rows themselves; only a lookup over the limit reads its first rows in (date, triple_id) order."""
        if q.limit is not None and q.limit <= 0:
            return []
        exclude = sorted(set(q.exclude_sentence_ids))
        keep = f" AND sentence_id NOT IN ({', '.join('?' * len(exclude))})" if exclude else ""
        orders = [(q.arg_a, q.arg_b, True)] if q.arg_a == q.arg_b else [(q.arg_a, q.arg_b, True), (q.arg_b, q.arg_a, False)]
        scope, scoped = self._scope(q.window, q.days)
        counts: dict[tuple[str, bool], int] = {}
        for subj, obj, aligned in orders:
            for predicate, n in conn.execute(f"SELECT predicate, count(*) FROM triples WHERE {scope} AND subj = ? "
                                             f"AND obj = ?{keep} GROUP BY predicate", (*scoped, subj, obj, *exclude)):
                counts[(predicate, aligned)] = n
        if q.limit is not None and sum(counts.values()) > q.limit:
            # Over the limit: the first `limit` rows by (date, triple_id), as `_lookup` keeps them. Each
            # order reads at most `limit` entries of triples_pair in index order; SQLite merges the two and
            # counts what it kept (on the 432 such lookups of 20,000 synthetic propositions: 0.52 s of CPU against
            # 0.85-1.3 s for a heap merge in Python).
            first = (f"SELECT * FROM (SELECT date, triple_id, predicate, ? AS aligned FROM triples WHERE {scope} "
                     f"AND subj = ? AND obj = ?{keep} ORDER BY date, triple_id LIMIT ?)")
            sql = (f"SELECT predicate, aligned, count(*) FROM (SELECT * FROM ({' UNION ALL '.join([first] * len(orders))}) "
                   "ORDER BY date, triple_id LIMIT ?) GROUP BY predicate, aligned")
            params = [p for subj, obj, aligned in orders for p in (aligned, *scoped, subj, obj, *exclude, q.limit)]
            counts = {(predicate, bool(aligned)): n
                      for predicate, aligned, n in conn.execute(sql, (*params, q.limit))}
        return [PredicateCount(p, a, n) for (p, a), n in sorted(counts.items(), key=lambda kv: (kv[0][0], not kv[0][1]))]

    def _window_counts(self, where: str = "", params: tuple[object, ...] = ()) -> list[WindowInfo]:
        """Return WindowInfo rows for the windows matching `where` (on window_id)."""
        sql = (f"SELECT w, sum(a), sum(t) FROM ("
               f"SELECT window_id AS w, count(*) AS a, 0 AS t FROM articles {where} GROUP BY window_id "
               f"UNION ALL SELECT window_id, 0, count(*) FROM triples {where} GROUP BY window_id"
               f") GROUP BY w ORDER BY w")
        try:
            with self._borrow() as conn:
                rows = conn.execute(sql, params * 2).fetchall()
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: cannot count windows: {exc}") from exc
        out = []
        for w, articles, triples in rows:
            span = window_span(w, self.window_days)
            out.append(WindowInfo(w, span.start, span.end, int(articles), int(triples)))
        return out

    def windows(self) -> list[WindowInfo]:
        """Return every window that holds an article or a triple, by id."""
        return self._window_counts()

    def window(self, window_id: int) -> WindowInfo:
        """Return one window's counts; raise NotFoundError when the store holds nothing for it."""
        found = self._window_counts("WHERE window_id = ?", (window_id,)) if _is_int64(window_id) else []
        if not found:
            raise NotFoundError(f"window {window_id} holds no articles or triples in this store")
        return found[0]

    def argument_types(self, arg: str) -> list[TypeCount]:
        """Return the types an argument was seen with, most frequent first (ties by type name)."""
        try:
            with self._borrow() as conn:
                rows = conn.execute("SELECT type, n FROM arg_types WHERE arg = ? ORDER BY n DESC, type",
                                    (arg,)).fetchall()
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: argument type lookup failed: {exc}") from exc
        return [TypeCount(t, int(n)) for t, n in rows]

    def add_aliases(self, aliases: Iterable[Alias]) -> int:
        """Add or replace alias rows; return how many were written."""
        rows = [(a.alias, a.type, a.canonical, int(a.mentions)) for a in aliases]
        try:
            with self._borrow() as conn, conn:
                conn.executemany("INSERT OR REPLACE INTO main.aliases (alias, type, canonical, mentions) "
                                 "VALUES (?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: cannot add aliases: {exc}") from exc
        return len(rows)

    def names_for(self, name: str, limit: int = 50, rules: Sequence[str] = NAME_RULES) -> list[NameMatch]:
        """Names the store holds that `name` may stand for: aliases first, then by prefix and suffix words."""
        escaped = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        # Words that begin a name: a range over the primary key. Words that end one: the names of that last word.
        lookups = {
            # An alias names a canonical name the store holds under any type: a surname the recogniser typed a
            # company stands for the person it was merged into (canonical-entities.v2).
            "alias": ("SELECT a.canonical, a.type, SUM(t.n) AS n FROM aliases a JOIN arg_types t ON t.arg = a.canonical "
                      "WHERE a.alias = ? AND a.canonical != ? GROUP BY a.canonical, a.type ORDER BY n DESC, a.canonical, "
                      "a.type LIMIT ?", (name, name, limit)),
            "prefix": ("SELECT arg, type, n FROM arg_types WHERE arg > ? AND arg < ? ORDER BY n DESC, arg, type "
                       "LIMIT ?", (name + " ", name + " \U0010ffff", limit)),
            "suffix": (f"SELECT arg, type, n FROM arg_types WHERE {_LAST_WORD} = ? AND arg LIKE ? ESCAPE '\\' "
                       "ORDER BY n DESC, arg, type LIMIT ?", (name.rsplit(" ", 1)[-1], "% " + escaped, limit)),
        }
        try:
            with self._borrow() as conn:
                found = [(how, conn.execute(*lookups[how]).fetchall()) for how in NAME_RULES if how in rules]
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: name lookup failed: {exc}") from exc
        return [NameMatch(n, t, int(c), how) for how, rows in found for n, t, c in rows]

    def window_names(self, window: int, days: Days | None = None, limit: int = WINDOW_NAMES) -> list[NameMatch]:
        """The names of the window's triples (or of those dated in `days`), most named first (see the protocol)."""
        if not _is_int64(window) or limit <= 0:
            return []
        scope, params = self._scope(window, days)
        side = ("SELECT {0} AS name, {0}_type AS type FROM triples WHERE " + scope + " AND {0}_type != ?")
        sql = (f"SELECT name, type, count(*) AS n FROM ({side.format('subj')} UNION ALL {side.format('obj')}) "
               "GROUP BY name, type ORDER BY n DESC, name, type LIMIT ?")
        try:
            with self._borrow() as conn:
                rows = conn.execute(sql, (*params, COMMON_NOUN_TYPE, *params, COMMON_NOUN_TYPE, limit)).fetchall()
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: window names lookup failed: {exc}") from exc
        return [NameMatch(n, t, int(c), "window") for n, t, c in rows]

    def stats(self) -> StoreStats:
        """Return the store's totals."""
        try:
            with self._borrow() as conn:
                triples = conn.execute("SELECT count(*) FROM triples").fetchone()[0]
                articles = conn.execute("SELECT count(*) FROM articles").fetchone()[0]
                windows, first, last = conn.execute(
                    "SELECT count(DISTINCT w), min(w), max(w) FROM (SELECT window_id AS w FROM articles "
                    "UNION SELECT window_id FROM triples)").fetchone()
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: cannot read stats: {exc}") from exc
        return StoreStats(self.backend, str(self.path), int(triples), int(articles), int(windows), first, last)

    def dataset(self) -> str | None:
        """The identity of the dataset this store was filled from, or None."""
        try:
            with self._borrow() as conn:
                row = conn.execute("SELECT value FROM meta WHERE key = 'dataset'").fetchone()
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: cannot read the store's dataset: {exc}") from exc
        return str(row[0]) if row else None

    def mark_dataset(self, identity: str) -> None:
        """Record the identity of the dataset being added."""
        try:
            with self._borrow() as conn, conn:
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('dataset', ?)", (identity,))
        except sqlite3.Error as exc:
            raise _failure(exc)(f"{self.path}: cannot record the store's dataset: {exc}") from exc

    def drop(self) -> None:
        """Delete every row and the recorded dataset (the file stays); for rebuilds (`egqa index --replace`)."""
        with self._borrow() as conn, conn:
            conn.execute("DELETE FROM triples")
            conn.execute("DELETE FROM articles")
            conn.execute("DELETE FROM arg_types")
            conn.execute("DELETE FROM aliases")
            conn.execute("DELETE FROM meta WHERE key = 'dataset'")
