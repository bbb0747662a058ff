"""Evidence summaries remembered between requests.

A batch evaluation asks every lookup once per scorer (five scorers: five times the same SQL), and a bundle's
entries share theirs. The cache keeps each lookup's grouped evidence (`EvidenceStore.evidence_summary`) for
`seconds`, at most `max_groups` groups in all. News the service writes itself (POST /v1/articles) makes it
forget the windows written to at once; a store written by another process (`egqa index` on the same file) is
seen within `seconds`, as the engine rechecks windows and the name resolver its names.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

from cachetools import TTLCache

from graph_builder.windows import DEFAULT_WINDOW_DAYS
from retrieval.protocol import EvidenceQuery, EvidenceStore, PredicateCount, lookup_windows

CACHE_SECONDS = 60.0
CACHE_GROUPS = 500_000  # (predicate, order) groups held in all: tens of MB at most


def _weight(groups: list[PredicateCount]) -> int:
    return len(groups) + 1


class EvidenceCache:
    """Per-lookup evidence summaries, remembered for a while and bounded by their total number of groups."""

    def __init__(self, max_groups: int = CACHE_GROUPS, seconds: float = CACHE_SECONDS,
                 window_days: int = DEFAULT_WINDOW_DAYS) -> None:
        self.window_days = window_days  # a lookup by days reads every window holding one of them
        self._cache: TTLCache[EvidenceQuery, list[PredicateCount]] = TTLCache(max_groups, seconds, getsizeof=_weight)
        self._lock = threading.Lock()  # cachetools caches are not thread-safe; requests run on worker threads
        self._generation = 0  # one more per forget: a lookup answered before a write is not remembered after it

    def summaries(self, store: EvidenceStore, queries: Sequence[EvidenceQuery]) -> list[list[PredicateCount]]:
        """`store.evidence_summary(queries)`, asking the store only for the lookups not remembered."""
        with self._lock:
            generation = self._generation
            remembered = [self._cache.get(q) for q in queries]
        missing = [q for q, groups in zip(queries, remembered, strict=True) if groups is None]
        if not missing:
            return remembered  # type: ignore[return-value]
        fresh = store.evidence_summary(missing)
        with self._lock:
            if generation == self._generation:  # nothing was written meanwhile
                for q, groups in zip(missing, fresh, strict=True):
                    if _weight(groups) <= self._cache.maxsize:
                        self._cache[q] = groups
        answers = iter(fresh)
        return [groups if groups is not None else next(answers) for groups in remembered]

    def forget(self, windows: Iterable[int]) -> None:
        """Drop the lookups of these windows (news was written to them)."""
        wanted = set(windows)
        with self._lock:
            self._generation += 1
            for q in [q for q in self._cache if not wanted.isdisjoint(lookup_windows(q, self.window_days))]:
                self._cache.pop(q, None)

    def clear(self) -> None:
        """Drop everything remembered."""
        with self._lock:
            self._generation += 1
            self._cache.clear()
