"""Role-free predicate strings and the fuzzy index that grounds them to graph nodes (Hosseini et al. 2018).

`predicate_of` is re-exported here for the artefact readers."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from cachetools import LRUCache

from graph_builder.predicates import halves, predicate_of

FUZZY_LIMIT = 20
FUZZY_MIN_COUNT = 3
LOOKUP_CACHE_SIZE = 100_000  # remembered look-ups; a batch asks the same predicates again and again


def role_free(predicate: str) -> str:
    """Return the role-free reading of a predicate: `(visit.2,visit.1)` and `(visit.1,visit.2)` -> `visit`.

    Reference-format predicates keep their lemma words and prefixes (`NEG__`, `want__`); plain text
    predicates (imported rules such as Berant's `be find in`) are lowercased with a leading `be`/`to`
    dropped, so `be use in` and `(use.2,use.in.2)` meet at `use in`.
    """
    parts = halves(predicate)
    if parts is None:
        words = predicate.strip().lower().split()
        while len(words) > 1 and words[0] in ("be", "to"):
            words = words[1:]
        return " ".join(words)
    prefix, left, right = parts
    # The halves usually share the lemma and one extends the other with a preposition or noun.
    if right[: len(left)] == left:
        words = right
    elif left[: len(right)] == right:
        words = left
    else:
        words = left + [w for w in right if w not in left]
    return f"{prefix}{' '.join(words)}"


@dataclass(frozen=True)
class FuzzyEntry:
    """One graph node reachable from a role-free string, with its frequency."""

    graph: str
    node: str
    count: int


class FuzzyIndex:
    """Role-free predicate string -> graph nodes with counts, per graph and over all graphs."""

    def __init__(self, entries: Iterable[FuzzyEntry]) -> None:
        by_key: dict[str, list[FuzzyEntry]] = defaultdict(list)
        for entry in entries:
            by_key[role_free(predicate_of(entry.node))].append(entry)
        self._all = {k: sorted(v, key=lambda e: (-e.count, e.graph, e.node)) for k, v in by_key.items()}
        per_graph: dict[tuple[str, str], list[FuzzyEntry]] = defaultdict(list)
        for key, items in self._all.items():
            for entry in items:
                per_graph[(entry.graph, key)].append(entry)
        self._per_graph = dict(per_graph)
        self._cache: LRUCache[tuple[str, str | None, int, int], list[FuzzyEntry]] = LRUCache(LOOKUP_CACHE_SIZE)

    def __len__(self) -> int:
        return len(self._all)

    def lookup(self, predicate: str, graph: str | None = None, limit: int = FUZZY_LIMIT,
               min_count: int = FUZZY_MIN_COUNT) -> list[FuzzyEntry]:
        """Return the most frequent nodes (count >= min_count) sharing the predicate's role-free string."""
        memo = (predicate, graph, limit, min_count)
        found = self._cache.get(memo)
        if found is None:
            key = role_free(predicate_of(predicate) if "#" in predicate else predicate)
            items = self._all.get(key, []) if graph is None else self._per_graph.get((graph, key), [])
            found = [e for e in items if e.count >= min_count][:limit]
            self._cache[memo] = found
        return found

    def to_json(self) -> dict[str, list[list[object]]]:
        """Return the overall index as plain JSON: key -> [[graph, node, count], ...] best first."""
        return {k: [[e.graph, e.node, e.count] for e in v] for k, v in sorted(self._all.items())}
