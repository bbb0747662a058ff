"""The engine's remembered evidence: the store's answers, asked once, forgotten when news is written."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from retrieval.backends.sqlite import SQLiteStore
from retrieval.protocol import EvidenceQuery, PredicateCount
from service.evidence import EvidenceCache
from tests.retrieval.rows import triple

DAY = dt.date(1987, 3, 4)
OTHER_DAY = dt.date(1987, 3, 9)


class CountingStore(SQLiteStore):
    """A SQLite store that records the lookups it is asked for."""

    asked: list[EvidenceQuery]

    def evidence_summary(self, queries: Sequence[EvidenceQuery]) -> list[list[PredicateCount]]:
        self.asked = [*getattr(self, "asked", []), *queries]
        return super().evidence_summary(queries)


def _store(tmp_path: Path) -> CountingStore:
    store = CountingStore(tmp_path / "store.db")
    store.add_triples([triple(1, DAY, "john", "ikea"), triple(2, DAY, "ikea", "john", predicate="(hire.1,hire.2)"),
                       triple(3, OTHER_DAY, "john", "ikea")])
    return store


def test_remembered_summaries_are_the_stores_and_asked_once(tmp_path: Path) -> None:
    """A lookup asked again (another scorer's pass) is answered from memory with the store's very groups."""
    store, cache = _store(tmp_path), EvidenceCache()
    w, w2 = triple(1, DAY, "a", "b")["window"], triple(3, OTHER_DAY, "a", "b")["window"]
    queries = [EvidenceQuery(w, "john", "ikea"), EvidenceQuery(w2, "john", "ikea"), EvidenceQuery(w, "x", "y")]
    first = cache.summaries(store, queries)
    assert first == store.evidence_summary(queries)
    assert first[0] == [PredicateCount("(hire.1,hire.2)", False, 1), PredicateCount("(visit.1,visit.2)", True, 1)]
    store.asked = []
    assert cache.summaries(store, [queries[1], queries[0], EvidenceQuery(w, "john", "ikea", ("a0:s1",))]) == \
        [first[1], first[0], [PredicateCount("(hire.1,hire.2)", False, 1)]]
    assert store.asked == [EvidenceQuery(w, "john", "ikea", ("a0:s1",))], "only the new lookup reaches the store"


def test_news_written_to_a_window_is_seen_at_once(tmp_path: Path) -> None:
    """forget(windows) drops those windows' lookups only; a lookup answered before a write is not kept after it."""
    store, cache = _store(tmp_path), EvidenceCache()
    w, w2 = triple(1, DAY, "a", "b")["window"], triple(3, OTHER_DAY, "a", "b")["window"]
    here, there = EvidenceQuery(w, "john", "ikea"), EvidenceQuery(w2, "john", "ikea")
    cache.summaries(store, [here, there])
    store.add_triples([triple(4, DAY, "john", "ikea", predicate="(buy.1,buy.2)")])
    cache.forget({w})
    store.asked = []
    got = cache.summaries(store, [here, there])
    assert PredicateCount("(buy.1,buy.2)", True, 1) in got[0]
    assert store.asked == [here]

    class WriteMeanwhile(CountingStore):
        def evidence_summary(self, queries: Sequence[EvidenceQuery]) -> list[list[PredicateCount]]:
            answer = super().evidence_summary(queries)
            cache.forget({w})  # news written while this lookup ran: its answer may be stale
            return answer

    racing = WriteMeanwhile(tmp_path / "store.db", create=False)
    cache.clear()
    cache.summaries(racing, [here])
    store.asked = []
    cache.summaries(store, [here])
    assert store.asked == [here], "an answer older than the last write is not remembered"


def test_bounded_by_groups_and_still_right(tmp_path: Path) -> None:
    """A cache smaller than the answers keeps at most its bound and answers as the store does."""
    store, cache = _store(tmp_path), EvidenceCache(max_groups=3)
    w = triple(1, DAY, "a", "b")["window"]
    queries = [EvidenceQuery(w, "john", "ikea"), EvidenceQuery(w, "ikea", "john"), EvidenceQuery(w, "john", "x")]
    for _ in range(3):
        assert cache.summaries(store, queries) == store.evidence_summary(queries)
    assert cache._cache.currsize <= 3


def test_news_written_to_any_window_of_a_lookup_by_days_is_seen(tmp_path: Path) -> None:
    """A lookup by days (a question given by date) is forgotten when news is written to any window it reads."""
    store, cache = _store(tmp_path), EvidenceCache()
    w = triple(1, DAY, "a", "b")["window"]
    next_day = DAY + dt.timedelta(days=2)  # Mar 6: the next window
    lookup = EvidenceQuery(w, "john", "ikea", days=(DAY, next_day))
    assert cache.summaries(store, [lookup]) == store.evidence_summary([lookup])
    store.add_triples([triple(9, next_day, "john", "ikea")])
    cache.forget([w + 7])  # another window: still remembered
    assert sum(g.count for g in cache.summaries(store, [lookup])[0]) == 2
    cache.forget([triple(9, next_day, "a", "b")["window"]])
    assert sum(g.count for g in cache.summaries(store, [lookup])[0]) == 3
