"""The read side of graph artefacts: `GraphSet.load(dir)` and entailment scores for the service."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from graph_builder.embeddings import PredicateEmbeddings, load_predicate_embeddings, predicate_words
from graph_builder.errors import InputError, NotFoundError
from graph_builder.graphs.artefacts import UNTYPED_SET, Graph, load_graph, read_graphset_manifest, same_type_slots
from graph_builder.graphs.combined import Combination, load_combination
from graph_builder.graphs.antonyms import contradicts
from graph_builder.graphs.counts import graph_name, typed_node
from graph_builder.graphs.generality import read_generality
from graph_builder.graphs.fuzzy import FUZZY_LIMIT, FUZZY_MIN_COUNT, FuzzyEntry, FuzzyIndex

CACHE_SIZE = 200_000  # grounded pairs and fuzzy readings remembered across batches, per cache


def parse_types(types: str | Sequence[str]) -> tuple[str, str]:
    """Return (type of slot 1, type of slot 2) from `A#B` or a pair."""
    parts = types.split("#") if isinstance(types, str) else list(types)
    if len(parts) != 2 or not all(parts):
        raise InputError(f"types must be two types like person#location, got {types!r}")
    return parts[0], parts[1]


class Query(NamedTuple):
    """Does `premise` entail `hypothesis`? `types` are the hypothesis' slot types; `premise_reversed`
    says the premise holds the same arguments in the other order; `typed=False` skips the typed
    graph (e.g. when the two sides disagree on the types) and goes straight to cross-graph backoff.
    A named tuple: a batch makes hundreds of thousands, and tuples build and hash in C."""

    premise: str
    hypothesis: str
    types: tuple[str, str]
    premise_reversed: bool = False
    typed: bool = True


Found = tuple[str, list[int], list[int]]  # a graph's name, premise rows and hypothesis rows to score a query by
Rows = tuple[list[int], list[int], list[int]]  # per graph: query ids, premise rows, hypothesis rows to look up
Pairs = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]  # the same, as arrays
SideArrays = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]  # a predicate's readings: side ids, node rows
Resolved = tuple[str, list[Found]]  # a query's stage (typed, fuzzy, smoothed, backoff, none) and what to score


@dataclass(frozen=True)
class Smoothing:
    """LM premise smoothing (McKenna et al. 2023): a premise missing from its typed graph is scored through
    its `k` nearest nodes of that graph (same slot types and order) whose predicate words' embedding has a
    cosine of at least `min_cosine` with its own. `embed` maps texts to unit rows (the `lm` extra)."""

    embed: Callable[[Sequence[str]], npt.NDArray[np.float32]]
    k: int = 4
    min_cosine: float = 0.5

    def __post_init__(self) -> None:
        check_smoothing(self.k, self.min_cosine)


def check_smoothing(k: int, min_cosine: float) -> None:
    """Raise InputError unless k >= 1 and min_cosine lies in [-1, 1]."""
    if k < 1 or not -1.0 <= min_cosine <= 1.0:
        raise InputError(f"smoothing needs k >= 1 and min_cosine in [-1, 1], got k={k}, min_cosine={min_cosine}")


@dataclass(frozen=True)
class BatchScores:
    """Scores of a batch; `stage` tells how each was found: typed, fuzzy, smoothed, backoff or none."""

    scores: npt.NDArray[np.float64]
    stage: list[str]

    @property
    def grounded(self) -> npt.NDArray[np.bool_]:
        """Whether both predicates of a query were found in some graph."""
        return np.array([s != "none" for s in self.stage], dtype=bool)


_NO_PAIRS = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))


@dataclass(frozen=True)
class Prepared:
    """A batch resolved to graph rows (`GraphSet.prepare`): what every measure's scores of it read.

    `inverse` maps each query of the batch to its distinct query; per graph of `names`, the premise `rows` and
    hypothesis `cols` to look up; `order`, `starts` and `query_of_run` reduce the looked-up values (all graphs
    in turn) to one maximum per (query, graph) and then to the mean per distinct query."""

    distinct: int
    inverse: npt.NDArray[np.int64]
    stages: list[str]  # per query of the batch
    names: list[str]
    rows: list[npt.NDArray[np.int64]]
    cols: list[npt.NDArray[np.int64]]
    order: npt.NDArray[np.int64]
    starts: npt.NDArray[np.int64]
    query_of_run: npt.NDArray[np.int64]


def lookup_scores(matrix: tuple[np.ndarray, np.ndarray, np.ndarray], n: int, rows: npt.NDArray[np.int64],
                  cols: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Return matrix[rows[i], cols[i]] for all i (0 where no edge) by a binary search inside each row.

    The searches run side by side as array operations: log2(longest row) steps over the wanted pairs,
    so the cost does not grow with the rows' lengths (columns are sorted inside each CSR row)."""
    # Plain views of the memory maps: indexing a np.memmap builds a memmap subclass object each time.
    data, indices, indptr = (np.asarray(part) for part in matrix)
    if rows.size == 0:
        return np.zeros(0)
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    lo = np.asarray(indptr[rows], dtype=np.int64)
    end = np.asarray(indptr[rows + 1], dtype=np.int64)
    hi = end.copy()
    live = np.flatnonzero(lo < hi)
    while live.size:  # invariant: columns before lo are < col, columns from hi on are >= col
        mid = (lo[live] + hi[live]) >> 1
        right = np.asarray(indices[mid], dtype=np.int64) < cols[live]
        lo[live] = np.where(right, mid + 1, lo[live])
        hi[live] = np.where(right, hi[live], mid)
        live = live[lo[live] < hi[live]]
    hit = lo < end
    hit[hit] = np.asarray(indices[lo[hit]], dtype=np.int64) == cols[hit]
    out = np.zeros(rows.size)
    out[hit] = np.asarray(data[lo[hit]], dtype=np.float64)
    out[rows == cols] = 1.0  # self-edges are 1 (imported rule sets do not store them)
    return out


class GraphSet:
    """All graphs of one build or import, with the fuzzy index; scores premise -> hypothesis."""

    def __init__(self, path: Path, manifest: dict[str, Any], graphs: dict[str, Graph],
                 embeddings: PredicateEmbeddings | None = None, combination: Combination | None = None,
                 untyped: GraphSet | None = None) -> None:
        self.path = path
        self.untyped = untyped  # the untyped set built beside this one (`UNTYPED_SET`), which `+untyped` backs off to
        self.manifest = manifest
        self.graphs = graphs
        self.embeddings = embeddings
        self.combination = combination  # weights of the `combined` scorer fitted for these graphs, if any
        self._slots: dict[tuple[str, str], npt.NDArray[np.bool_]] = {}
        self._graph_of: dict[tuple[str, str], Graph | None] = {}
        # A predicate's fuzzy readings, remembered (bounded): a batch asks the same predicates again and again.
        # functools' LRU runs in C, a tenth of the cost of a cachetools get on this hot path.
        self._readings: Callable[[str], dict[str, list[int]]] = lru_cache(maxsize=CACHE_SIZE)(self._find_readings)
        # The same readings of one graph in one slot order, and the slot orders they come in (remembered alike).
        self._oriented: Callable[[str, str, str], list[int]] = lru_cache(maxsize=CACHE_SIZE)(self._find_oriented)
        self._slot_orders: Callable[[str, str], tuple[str, ...]] = lru_cache(maxsize=CACHE_SIZE)(self._find_slot_orders)
        # Backoff joins readings as arrays: a predicate's, keyed by graph and slot order (swapped or not).
        self._graph_names = sorted(graphs)
        self._side_ids: dict[str, int] = {}
        self._side_graph: list[int] = []
        self._hypothesis_sides: Callable[[str], SideArrays | None] = lru_cache(maxsize=CACHE_SIZE)(
            partial(self._side_arrays, swap=False))
        self._premise_side_arrays: Callable[[str, bool], SideArrays | None] = lru_cache(maxsize=CACHE_SIZE)(
            self._side_arrays)
        self.min_count = FUZZY_MIN_COUNT if manifest.get("node_counts") == "triples" else 1
        self.fuzzy = FuzzyIndex(FuzzyEntry(g.name, node, int(c)) for g in graphs.values()
                                for node, c in zip(g.nodes, g.counts))
        self._generality: dict[str, int] | None = None

    @classmethod
    def load(cls, path: Path, verify: bool = True) -> GraphSet:
        """Open a graph set folder: check manifests and checksums, memory-map every matrix."""
        path = Path(path)
        manifest = read_graphset_manifest(path, verify)
        graphs = {name: load_graph(path / name, verify) for name in sorted(manifest["graphs"])}
        untyped = cls.load(path / UNTYPED_SET, verify) if (path / UNTYPED_SET / "manifest.json").is_file() else None
        return cls(path, manifest, graphs, load_predicate_embeddings(path, manifest["graphs"], verify),
                   load_combination(path), untyped)

    @property
    def measures(self) -> list[str]:
        """Measures every graph of the set holds."""
        return sorted(self.manifest["measures"])

    @property
    def default_measure(self) -> str:
        """BInc when the set has it, else its first measure."""
        return "binc" if "binc" in self.manifest["measures"] else self.measures[0]

    def check_measure(self, measure: str | None) -> str:
        """Return a measure this set holds (default when None), else raise InputError listing them."""
        measure = measure or self.default_measure
        if measure not in self.manifest["measures"]:
            raise InputError(f"measure {measure!r} not in the loaded graphs; available: {', '.join(self.measures)}")
        return measure

    def node(self, predicate: str, types: str | Sequence[str], reversed_: bool = False) -> tuple[Graph, int]:
        """Return the graph and row of a typed predicate, or raise NotFoundError."""
        a, b = parse_types(types)
        name = graph_name(a, b)
        graph = self.graphs.get(name)
        if graph is None:
            raise NotFoundError(f"no graph for types {a}#{b} among the {len(self.graphs)} loaded graphs")
        node = typed_node(predicate, a, b, reversed_)
        if node not in graph.index:
            raise NotFoundError(f"predicate {node} is not a node of graph {name}")
        return graph, graph.index[node]

    def neighbours(self, predicate: str, types: str | Sequence[str], measure: str | None = None,
                   direction: str = "entails", limit: int | None = None) -> list[tuple[str, float]]:
        """Return (node, score) edges of a typed predicate, best first by (-score, node), no self-edge."""
        measure = self.check_measure(measure)
        graph, row = self.node(predicate, types)
        data, indices, indptr = graph.matrices[measure]
        if direction == "entails":
            cols = np.asarray(indices[indptr[row]:indptr[row + 1]])
            vals = np.asarray(data[indptr[row]:indptr[row + 1]])
        elif direction == "entailed_by":
            hits = np.flatnonzero(np.asarray(indices) == row)
            cols = np.searchsorted(np.asarray(indptr), hits, side="right") - 1
            vals = np.asarray(data[hits])
        else:
            raise InputError(f"direction must be 'entails' or 'entailed_by', got {direction!r}")
        keep = cols != row
        pairs = sorted(((graph.nodes[int(c)], float(v)) for c, v in zip(cols[keep], vals[keep])),
                       key=lambda x: (-x[1], x[0]))
        return pairs[:limit] if limit is not None else pairs

    def edges(self, predicate: str, types: str | Sequence[str], measure: str | None = None,
              direction: str = "entails", limit: int | None = None) -> list[dict[str, object]]:
        """`neighbours` as documents: each edge's node and score, and whether its two predicates say opposite things
        of the same arguments in the same order (`antonyms.contradicts`: "raise" -> "lower"), a pair the distributional
        measures score high and every graph scorer answers with 0."""
        a, b = parse_types(types)
        order = typed_node("", a, b)
        out: list[dict[str, object]] = []
        for node, score in self.neighbours(predicate, (a, b), measure, direction, limit):
            name, _, suffix = node.partition("#")
            premise, hypothesis = (predicate, name) if direction == "entails" else (name, predicate)
            out.append({"predicate": node, "score": score,
                        "antonym": contradicts(premise, hypothesis, f"#{suffix}" != order)})
        return out

    def score(self, premise: str, hypothesis: str, types: str | Sequence[str], measure: str | None = None,
              premise_reversed: bool = False, fuzzy: bool = True) -> float:
        """Return the entailment score premise -> hypothesis (typed, then fuzzy, then cross-graph)."""
        query = Query(premise, hypothesis, parse_types(types), premise_reversed)
        return float(self.score_batch([query], measure, fuzzy).scores[0])

    def _find_readings(self, predicate: str) -> dict[str, list[int]]:
        """Graph name -> the predicate's fuzzy candidates there as node rows, most frequent first, at most
        FUZZY_LIMIT per graph: what `FuzzyIndex.lookup` gives graph by graph (`_readings` remembers it)."""
        by_graph: dict[str, list[int]] = {}
        for e in self.fuzzy.lookup(predicate, None, 10**9, self.min_count):
            rows = by_graph.setdefault(e.graph, [])
            if len(rows) < FUZZY_LIMIT:
                rows.append(self.graphs[e.graph].index[e.node])
        return dict(sorted(by_graph.items()))  # by graph name: backoff reads graphs in this order

    def _typed_graph(self, types: tuple[str, str]) -> Graph | None:
        """The graph of a type pair, or None (remembered)."""
        try:
            return self._graph_of[types]
        except KeyError:
            graph = self._graph_of[types] = self.graphs.get(graph_name(*types))
            return graph

    @staticmethod
    def _typed_node_of(graph: Graph | None, hypothesis: str, a: str, b: str) -> bool:
        """Whether a typed graph holds the hypothesis as a node, in either slot order of a same-type graph."""
        if graph is None:
            return False
        if a != b:
            return hypothesis + f"#{a}#{b}" in graph.index
        return any(hypothesis + slots in graph.index for slots in same_type_slots(a))

    def _resolve_all(self, queries: Sequence[Query], fuzzy: bool, smooth: bool
                     ) -> tuple[list[str], dict[int, list[Found]], dict[str, Rows], dict[str, Pairs]]:
        """Every query's stage, and for each one grounded what to score it by, worked out per hypothesis: a batch
        asks each hypothesis against many premises, and its side (typed row, readings) is found once. Queries
        grounded by one typed edge go straight into per-graph rows (the third result), those grounded by
        cross-graph backoff into per-graph pairs joined as arrays (the fourth), the others into `found`."""
        stages = ["none"] * len(queries)
        found: dict[int, list[Found]] = {}
        typed_rows: dict[str, Rows] = {}
        backoff: list[tuple[str, list[int]]] = []
        by_hypothesis: dict[tuple[str, tuple[str, str], bool], list[int]] = {}
        for i, q in enumerate(queries):
            members = by_hypothesis.get((q.hypothesis, q.types, q.typed))
            if members is None:
                by_hypothesis[(q.hypothesis, q.types, q.typed)] = [i]
            else:
                members.append(i)
        for members in by_hypothesis.values():
            self._resolve_group(queries, members, fuzzy, smooth, stages, found, typed_rows, backoff)
        return stages, found, typed_rows, self._join_backoff(queries, backoff, stages)

    def _resolve_group(self, queries: Sequence[Query], members: list[int], fuzzy: bool, smooth: bool,
                       stages: list[str], found: dict[int, list[Found]], typed_rows: dict[str, Rows],
                       backoff_groups: list[tuple[str, list[int]]]) -> None:
        """Resolve `queries[i]` for i in `members` (one hypothesis, types and `typed` flag) into `stages`, `found`
        and `typed_rows`: the typed edge in the hypothesis' orientation, then fuzzy, then (with `smooth`)
        smoothing; the members left for cross-graph backoff go to `backoff_groups` with their hypothesis."""
        first = queries[members[0]]
        hypothesis, (a, b) = first.hypothesis, first.types
        typed = self._typed_graph(first.types) if first.typed else None
        if not self._readings(hypothesis) and not self._typed_node_of(typed, hypothesis, a, b):
            return  # a hypothesis no graph knows: nothing grounds any of its premises (every stage stays none)
        backoff = members
        if typed is not None:
            backoff = []
            name, index = typed.name, typed.index
            forward, reverse = f"#{a}#{b}", f"#{b}#{a}"
            h_row = index.get(hypothesis + forward) if a != b else None
            rest = members
            if h_row is not None:
                # One typed edge each for the premises the graph holds: looked up together, no per-query work.
                p_rows = [index.get(queries[i].premise + (reverse if queries[i].premise_reversed else forward))
                          for i in members]
                rest = [i for i, p in zip(members, p_rows, strict=True) if p is None]
                if len(rest) < len(members):
                    rows = typed_rows.setdefault(name, ([], [], []))
                    hit = [i for i, p in zip(members, p_rows, strict=True) if p is not None]
                    rows[0].extend(hit)
                    rows[1].extend(p for p in p_rows if p is not None)
                    rows[2].extend([h_row] * len(hit))
                    for i in hit:
                        stages[i] = "typed"
            if a != b and not smooth and not (fuzzy and self._oriented(hypothesis, name, forward)):
                # Without the hypothesis' fuzzy readings and smoothing, nothing in the typed graph grounds the rest.
                backoff, rest = rest, []
            for i in rest:
                q = queries[i]
                if a != b:
                    p_slots, h_slots = (reverse if q.premise_reversed else forward), forward
                    p, h = (None if h_row is not None else index.get(q.premise + p_slots)), h_row
                else:  # same-type graphs read a canonical mirror of the pair, which depends on both sides
                    p_node, h_node = _typed_pair(q)
                    p, h = index.get(p_node), index.get(h_node)
                    p_slots, h_slots = _slots_of(p_node), _slots_of(h_node)
                if p is not None and h is not None:
                    stages[i], found[i] = "typed", [(name, [p], [h])]
                    continue
                ps: list[int] = []
                hs: list[int] = []
                if fuzzy:
                    # Readings in the orientation the query reads each side in: a reading of the premise with its
                    # arguments the other way around would turn "X bought Y" into evidence that Y bought X.
                    hs = self._oriented(hypothesis, name, h_slots)
                    if hs or smooth:  # without fuzzy rows of the hypothesis the premise's matter to smoothing only
                        ps = self._oriented(q.premise, name, p_slots)
                    if ps and hs:
                        stages[i], found[i] = "fuzzy", [(name, ps, hs)]
                        continue
                hs = [h] if h is not None else hs
                if smooth and p is None and not ps and hs:
                    # Filled in by score_batch with the premise's nearest nodes; backoff if none is near enough.
                    stages[i], found[i] = "smoothed", [(name, [], hs)]
                    continue
                backoff.append(i)
        if backoff and fuzzy:
            backoff_groups.append((hypothesis, backoff))

    def _join_backoff(self, queries: Sequence[Query], groups: list[tuple[str, list[int]]], stages: list[str]
                      ) -> dict[str, Pairs]:
        """Cross-graph backoff for the queries of `groups` (hypothesis, query ids), as one array join: every graph
        knowing both predicates gives the query one score, over the readings whose arguments line up as the
        query's do (the hypothesis' slot order, the premise's the same or swapped). Sets their stage; returns,
        per graph, the (query, premise row, hypothesis row) pairs to look up."""
        ids: list[int] = []
        h_parts: list[SideArrays] = []
        p_parts: list[SideArrays] = []
        for hypothesis, members in groups:
            h_side = self._hypothesis_sides(hypothesis)
            if h_side is None:
                continue
            for i in members:
                q = queries[i]
                p_side = self._premise_side_arrays(q.premise, q.premise_reversed)
                if p_side is not None:
                    ids.append(i)
                    h_parts.append(h_side)
                    p_parts.append(p_side)
        if not ids:
            return {}
        # One key per (query, graph and slot order): a hypothesis side meets the premise sides of equal key,
        # every hypothesis reading there with every premise reading.
        n_sides = len(self._side_graph)
        h_len = np.fromiter((len(part[0]) for part in h_parts), dtype=np.int64, count=len(ids))
        p_len = np.fromiter((len(part[0]) for part in p_parts), dtype=np.int64, count=len(ids))
        h_side_ids = np.concatenate([part[0] for part in h_parts])
        h_rows = np.concatenate([part[1] for part in h_parts])
        h_pos = np.repeat(np.arange(len(ids), dtype=np.int64), h_len)
        p_key = np.repeat(np.arange(len(ids), dtype=np.int64), p_len) * n_sides + np.concatenate(
            [part[0] for part in p_parts])
        p_rows = np.concatenate([part[1] for part in p_parts])
        by_key = np.argsort(p_key, kind="stable")
        p_key = p_key[by_key]
        h_key = h_pos * n_sides + h_side_ids
        lo = np.searchsorted(p_key, h_key, side="left")
        count = np.searchsorted(p_key, h_key, side="right") - lo
        h_at = np.repeat(np.arange(h_key.size, dtype=np.int64), count)
        first = np.cumsum(count) - count
        p_at = by_key[np.repeat(lo, count) + np.arange(h_at.size, dtype=np.int64) - np.repeat(first, count)]
        query = np.asarray(ids, dtype=np.int64)[h_pos[h_at]]
        graph = np.asarray(self._side_graph, dtype=np.int64)[h_side_ids[h_at]]
        if not query.size:
            return {}
        for qid in np.unique(query).tolist():
            stages[qid] = "backoff"
        by_graph = np.argsort(graph, kind="stable")
        graph = graph[by_graph]
        cuts = np.flatnonzero(np.diff(graph)) + 1
        return {self._graph_names[int(graph[start])]: (query[part], p_rows[p_at[part]], h_rows[h_at[part]])
                for start, part in zip(np.r_[0, cuts].tolist(), np.split(by_graph, cuts), strict=True)}

    def _side_arrays(self, predicate: str, swap: bool) -> SideArrays | None:
        """A predicate's readings as arrays (side ids, node rows), one entry per reading, in graph name order and
        the readings' slot orders; a side id names a graph with a slot order, the order swapped when `swap`
        (a premise holding the hypothesis' arguments the other way around). None without readings."""
        side_ids: list[int] = []
        rows: list[int] = []
        for name in self._readings(predicate):
            for slots in self._slot_orders(predicate, name):
                oriented = self._oriented(predicate, name, slots)
                key = name + (_swapped(slots) if swap else slots)
                side = self._side_ids.get(key)
                if side is None:
                    side = self._side_ids[key] = len(self._side_graph)
                    self._side_graph.append(self._graph_names.index(name))
                side_ids.extend([side] * len(oriented))
                rows.extend(oriented)
        if not rows:
            return None
        return np.asarray(side_ids, dtype=np.int64), np.asarray(rows, dtype=np.int64)

    def _backoff(self, q: Query, fuzzy: bool) -> Resolved:
        """Cross-graph backoff alone (a query smoothing could not ground)."""
        if not fuzzy:
            return "none", []
        stages = ["none"]
        pairs = self._join_backoff([q], [(q.hypothesis, [0])], stages)
        return stages[0], [(name, [p], [h]) for name, (_, ps, hs) in pairs.items()
                           for p, h in zip(ps.tolist(), hs.tolist(), strict=True)]

    def _find_oriented(self, predicate: str, graph_name_: str, slots: str) -> list[int]:
        """A predicate's readings in one graph whose slot types come in this order (`#person#location`)."""
        rows = self._readings(predicate).get(graph_name_, [])
        if not rows:
            return rows
        mask = self._slot_mask(self.graphs[graph_name_], slots)
        return [r for r in rows if mask[r]]

    def _find_slot_orders(self, predicate: str, graph_name_: str) -> tuple[str, ...]:
        """The slot orders a predicate's readings in one graph come in, in the readings' order."""
        nodes = self.graphs[graph_name_].nodes
        return tuple(o for o in dict.fromkeys(_slots_of(nodes[r]) for r in self._readings(predicate)[graph_name_]) if o)

    def _slot_mask(self, graph: Graph, slots: str) -> npt.NDArray[np.bool_]:
        """Which nodes of a graph have these slot types in this order (`#person#location`)."""
        key = (graph.name, slots)
        if key not in self._slots:
            self._slots[key] = np.array([_slots_of(node) == slots for node in graph.nodes], dtype=bool)
        return self._slots[key]

    def _polarity_mask(self, graph: Graph, negated: bool) -> npt.NDArray[np.bool_]:
        """Which nodes of a graph are negated (`NEG__...`), or which are not."""
        key = (graph.name, f"negated:{negated}")
        if key not in self._slots:
            self._slots[key] = np.array([is_negated(node) == negated for node in graph.nodes], dtype=bool)
        return self._slots[key]

    def _smooth(self, queries: Sequence[Query], pending: list[int], groups: dict[int, list[Found]],
                smoothing: Smoothing) -> list[int]:
        """Fill the premise side of pending queries with nearest nodes; return the queries left ungrounded."""
        if self.embeddings is None or not pending:
            return pending
        rows = smoothing.embed([predicate_words(queries[qid].premise) for qid in pending])
        by_slots: dict[tuple[str, str, str], list[int]] = {}
        for k, qid in enumerate(pending):
            slots = _slots_of(_typed_pair(queries[qid])[0])  # the orientation the hypothesis node was read in
            by_slots.setdefault((groups[qid][0][0], slots, is_negated(queries[qid].premise)), []).append(k)
        left = []
        for (name, slots, negated), ks in sorted(by_slots.items()):
            # A premise stands in only for nodes of its own polarity: "Vodafone dislikes not having control of"
            # (`NEG__dislike__`) is near "have control of" in words, and says nothing of a purchase. Controllers
            # may differ: `+act` and the benchmark's own positives read "agreed to buy" as a purchase.
            mask = self._slot_mask(self.graphs[name], slots) & self._polarity_mask(self.graphs[name], negated)
            near = self.embeddings.nearest(name, rows[ks], smoothing.k, smoothing.min_cosine, mask)
            for k, found in zip(ks, near, strict=True):
                qid = pending[k]
                if found:
                    groups[qid] = [(name, [j for j, _ in found], groups[qid][0][2])]
                else:
                    left.append(qid)
        return sorted(left)

    def generality(self, predicates: Sequence[str]) -> npt.NDArray[np.float64]:
        """How general each (untyped) predicate is in this build: its distinct argument pairs in the triples the
        set was built from (`graph_builder.graphs.generality`), or, for a set without those counts, its node
        counts summed over the typed graphs, a same-type graph's two slot orders (mirrors of each other) counted
        once; 0 where the set knows it not."""
        if self._generality is None:
            self._generality = read_generality(self.path, self.manifest)
        if self._generality is None:
            totals: dict[str, int] = {}
            for g in self.graphs.values():
                mirrored = g.types[0] == g.types[1]
                for node, count in zip(g.nodes, g.counts):
                    predicate, first, _ = node.rsplit("#", 2)
                    if mirrored and first.endswith("_2"):
                        continue
                    totals[predicate] = totals.get(predicate, 0) + int(count)
            self._generality = totals
        known = self._generality
        return np.array([known.get(p, 0) for p in predicates], dtype=np.float64)

    def score_batch(self, queries: Sequence[Query], measure: str | None = None, fuzzy: bool = True,
                    smoothing: Smoothing | None = None) -> BatchScores:
        """Score many queries with one vectorised CSR lookup per graph; max within a graph, mean across.

        With `smoothing` (and predicate embeddings loaded) a premise missing from its typed graph is
        scored through its nearest nodes there (stage `smoothed`) before cross-graph backoff."""
        return self.score_prepared(self.prepare(queries, fuzzy, smoothing), self.check_measure(measure))

    def prepare(self, queries: Sequence[Query], fuzzy: bool = True, smoothing: Smoothing | None = None) -> Prepared:
        """Resolve a batch to the graph rows its scores read, for `score_prepared` with any measure of the set."""
        # A batch may repeat (premise, hypothesis) pairs (a bundle shares its evidence): each is resolved once.
        first: Sequence[Query] = queries
        inverse = np.arange(len(queries), dtype=np.int64)
        if len(dict.fromkeys(queries)) < len(queries):  # the check runs in C; most batches repeat nothing
            distinct: dict[Query, int] = {}
            unique: list[Query] = []
            for i, q in enumerate(queries):
                j = distinct.setdefault(q, len(unique))
                if j == len(unique):
                    unique.append(q)
                inverse[i] = j
            first = unique
        smooth = smoothing is not None and self.embeddings is not None
        stages, found, typed_rows, joined = self._resolve_all(first, fuzzy, smooth)
        if smooth:
            pending = [qid for qid, stage in enumerate(stages) if stage == "smoothed"]
            for qid in self._smooth(first, pending, found, smoothing):  # type: ignore[arg-type]
                stages[qid], found[qid] = self._backoff(first[qid], fuzzy)
        per_graph: dict[str, Rows] = typed_rows  # graph -> (query, premise row, hyp row)
        for qid, entries in found.items():
            for name, ps, hs in entries:
                bucket = per_graph.get(name)
                if bucket is None:
                    bucket = per_graph[name] = ([], [], [])
                if len(ps) == 1 and len(hs) == 1:
                    bucket[0].append(qid)
                    bucket[1].append(ps[0])
                    bucket[2].append(hs[0])
                else:
                    for p in ps:
                        bucket[0].extend([qid] * len(hs))
                        bucket[1].extend([p] * len(hs))
                        bucket[2].extend(hs)
        names = sorted(per_graph.keys() | joined.keys())
        empty: Rows = ([], [], [])
        queries_of, rows, cols = (
            [np.concatenate([np.array(per_graph.get(name, empty)[k], dtype=np.int64), joined.get(name, _NO_PAIRS)[k]])
             for name in names] for k in range(3))
        distinct_stages = stages
        if len(first) < len(queries):
            stages = [distinct_stages[j] for j in inverse.tolist()]
        if not names:
            return Prepared(len(first), inverse, stages, [], [], [], *_NO_PAIRS)
        # How the pairs' values reduce to one score per query, whatever the measure: the pairs sorted by
        # (query, graph), the max of each run, then the mean of a query's graph maxima.
        q_all = np.concatenate(queries_of)
        g_all = np.repeat(np.arange(len(names), dtype=np.int64), [len(r) for r in rows])
        key = q_all * len(names) + g_all
        order = np.argsort(key, kind="stable")
        key = key[order]
        starts = np.r_[0, np.flatnonzero(np.diff(key)) + 1]
        return Prepared(len(first), inverse, stages, names, rows, cols, order, starts,
                        key[starts] // len(names))

    def score_prepared(self, prepared: Prepared, measure: str) -> BatchScores:
        """The scores of a prepared batch under `measure` (one the set holds, as `check_measure` returns)."""
        n_q = prepared.distinct
        scores = np.zeros(n_q)
        if prepared.names:
            vals = []
            for name, rows, cols in zip(prepared.names, prepared.rows, prepared.cols, strict=True):
                graph = self.graphs[name]
                found = lookup_scores(graph.matrices[measure], len(graph.nodes), rows, cols)
                if graph.types[0] == graph.types[1] and len(found):
                    # A predicate's edge to itself with the arguments swapped is no entailment (roles.py).
                    found = np.where(graph.mirrors[np.asarray(cols)] == np.asarray(rows), 0.0, found)
                vals.append(found)
            v_all = np.concatenate(vals)[prepared.order]
            best = np.maximum.reduceat(v_all, prepared.starts)
            sums = np.bincount(prepared.query_of_run, weights=best, minlength=n_q)
            counts = np.bincount(prepared.query_of_run, minlength=n_q)
            scores = np.divide(sums, counts, out=np.zeros(n_q), where=counts > 0)
        if n_q < len(prepared.inverse):
            scores = scores[prepared.inverse]
        return BatchScores(scores=scores, stage=prepared.stages)


# How `strongest_edges` orders edges of equal score: a key per edge (rows, columns of one graph), larger first.
TIE_ORDERS: dict[str, Callable[[Graph, npt.NDArray[np.int64], npt.NDArray[np.int64]], npt.NDArray[np.int64]]] = {
    "support": lambda graph, rows, cols: np.minimum(graph.counts[rows], graph.counts[cols]),
    "name": lambda graph, rows, cols: np.zeros(rows.size, dtype=np.int64),
}


def strongest_edges(graphset: GraphSet, measure: str | None = None, n: int = 20,
                    ties: str = "support") -> list[dict[str, Any]]:
    """Return the n strongest edges over all graphs, no self-edges.

    Order: score, then among equal scores (BInc gives 1.0 both ways to every two predicates seen with the very
    same argument pairs, often thousands of them) `ties="support"` puts first the edge whose rarer side was seen
    in more triples, the one with the most evidence behind its score; `ties="name"` orders them by graph and
    predicate names, as before 2026-11-27. Both end on (graph, premise, hypothesis)."""
    measure = graphset.check_measure(measure)
    if n < 1:
        raise InputError(f"n must be at least 1, got {n}")
    if ties not in TIE_ORDERS:
        raise InputError(f"ties must be one of {', '.join(TIE_ORDERS)}, got {ties!r}")
    tie_key = TIE_ORDERS[ties]
    best: list[tuple[float, int, str, str, str, int, int]] = []
    for name, graph in sorted(graphset.graphs.items()):
        data, indices, indptr = (np.asarray(x) for x in graph.matrices[measure])
        rows = np.repeat(np.arange(len(graph.nodes)), np.diff(indptr))
        off = rows != indices
        r, c, v = rows[off], indices[off], data[off]
        # The graph's own top n, ties at the n-th score included, is enough to merge a global top n.
        cut = np.partition(v, v.size - n)[v.size - n] if v.size > n else -np.inf
        cand = np.flatnonzero(v >= cut)
        support = tie_key(graph, r[cand], c[cand])
        best.extend((float(v[k]), int(s), name, graph.nodes[r[k]], graph.nodes[c[k]], int(r[k]), int(c[k]))
                    for k, s in zip(cand.tolist(), support.tolist()))
    best.sort(key=lambda e: (-e[0], -e[1], e[2], e[3], e[4]))
    out = []
    for score, support, name, premise, hypothesis, i, j in best[:n]:
        graph = graphset.graphs[name]
        reverse = lookup_scores(graph.matrices[measure], len(graph.nodes), np.array([j]), np.array([i]))[0]
        out.append({"graph": name, "premise": premise, "hypothesis": hypothesis, "score": score,
                    "reverse": float(reverse), "support": int(min(graph.counts[i], graph.counts[j]))})
    return out


def edge_stats(graphset: GraphSet, measure: str | None = None) -> dict[str, Any]:
    """Return a measure's health figures: edges, pairs at 1.0 (and >= 0.99) both ways, predicate <-> NEG__ edges."""
    from graph_builder.graphs.counts import negation_partners

    measure = graphset.check_measure(measure)
    edges = both_one = both_near = neg = 0
    for graph in graphset.graphs.values():
        m = graph.csr(measure).tocoo()
        off = m.row != m.col
        r, c, v = m.row[off].astype(np.int64), m.col[off].astype(np.int64), m.data[off]
        edges += int(r.size)
        n = len(graph.nodes)
        for cut, name in ((1.0 - 1e-12, "one"), (0.99, "near")):
            ones = np.unique(r[v >= cut] * n + c[v >= cut])
            pairs = int(np.isin(ones % n * n + ones // n, ones).sum() // 2)
            if name == "one":
                both_one += pairs
            else:
                both_near += pairs
        partner = negation_partners(graph.nodes)
        neg += int(np.sum(partner[r] == c))
    return {"measure": measure, "edges": edges, "pairs_at_1_both_ways": both_one,
            "pairs_near_1_both_ways": both_near, "neg_edges": neg}
def _typed_pair(q: Query) -> tuple[str, str]:
    """Return the (premise, hypothesis) nodes a query reads in its typed graph."""
    a, b = q.types
    if a != b:
        return (f"{q.premise}#{b}#{a}" if q.premise_reversed else f"{q.premise}#{a}#{b}"), f"{q.hypothesis}#{a}#{b}"
    one, two = same_type_slots(a)
    p_node, h_node = q.premise + (two if q.premise_reversed else one), q.hypothesis + one
    # A same-type graph is mirror-symmetric: (p, h) and (mirror p, mirror h) score alike.
    # Reading one canonical pair makes a query and its reverse read one transposed pair,
    # so symmetric measures give bit-identical scores both ways.
    m_p, m_h = q.premise + (one if q.premise_reversed else two), q.hypothesis + two
    if (min(m_p, m_h), max(m_p, m_h)) < (min(p_node, h_node), max(p_node, h_node)):
        return m_p, m_h
    return p_node, h_node


def _swapped(slots: str) -> str:
    """The same slot types the other way around: `#person#location` -> `#location#person`."""
    _, first, second = slots.split("#")
    return f"#{second}#{first}"


def is_negated(predicate: str) -> bool:
    """Whether a predicate (or typed node) is negated: `NEG__want__(buy.1,buy.2)#person#thing`."""
    return predicate.startswith("NEG__")


def _slots_of(node: str) -> str:
    """Return the slot-type suffix of a typed node: `(visit.1,visit.2)#person#location` -> `#person#location`."""
    parts = node.rsplit("#", 2)
    return f"#{parts[1]}#{parts[2]}" if len(parts) == 3 else ""
