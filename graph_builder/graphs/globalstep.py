"""The global step `global.v1`: soft constraints across typed graphs (Hosseini et al. 2018).

Local scores are sparse: a pair of predicates seen with few shared argument pairs in one typed graph
gets no edge or a noisy one. The global step revises every graph's scores W^t together, starting
from local scores W0 (by default `binc_clean`), by minimising

    J(W) = sum_t sum_ij (w_ij - w0_ij)^2                                    stay near the local score
         + sum_t sum_ij sum_{u in X(t,i,j)} (w_ij - x_u)^2                  agree across typed graphs
         + lambda2/2 sum_t sum_{a != b} pi_ab sum_{k not in {a,b}}
                 [(w_ak - w_bk)^2 + (w_ka - w_kb)^2]                        paraphrases share neighbours
         + lambda1 sum w_ij                                                 sparsity (w >= 0)

X(t,i,j) are the same two untyped predicates, with the same argument alignment, in every other
typed graph t' holding both (both slot orders of t'; 0 where t' has no edge): the cross-graph
constraint with every graph-pair weight beta fixed at 1 (the paper learns beta; we record 1).
pi_ab = I(w_ab) I(w_ba) with I(x) = x when x > epsilon, else 0: a and b are paraphrases.

Each of `iterations` rounds is one Jacobi step: every w_ij is set to the minimiser of J in w_ij with
all other weights at the previous round's values, then clipped to [0, 1]:

    w_ij = (w0_ij + sum_u x_u + lambda2 [(Pi W)_ij + (W Pi)_ij] - lambda2/2 w_ji S_ij [pi_ij > 0] - lambda1/2)
           / (1 + |X| + lambda2 (pi_i - pi_ij + pi_j - pi_ji))

with pi_i the row sum of Pi and S_ij = sum_{k not in {i,j}} (w_ik - w_jk)^2 + (w_ki - w_kj)^2: a
paraphrase pair whose neighbours disagree is pushed down. Everything is a sparse product or a
sorted-key join over edges, so memory grows with the number of edges, never with nodes squared.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from graph_builder.errors import InputError
from graph_builder.graphs.measures import TopKEdges

log = logging.getLogger(__name__)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
GLOBAL_VERSION = "global.v1"
T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class GlobalParams:
    """Parameters of the global step (defaults: Hosseini et al. 2018)."""

    lambda1: float = 0.01
    lambda2: float = 1.5
    epsilon: float = 0.3
    iterations: int = 4
    cross_graph_weight: float = 1.0
    base: str = "binc_clean"
    block_rows: int = 4096
    max_instances: int = 500_000
    workers: int = 1  # threads updating a round's key chunks at once (numpy releases the GIL in its loops)

    def __post_init__(self) -> None:
        if self.iterations < 1 or not 0 <= self.epsilon < 1 or self.lambda1 < 0 or self.lambda2 < 0:
            raise InputError("global step: iterations >= 1, 0 <= epsilon < 1, lambdas >= 0")
        if self.workers < 1:
            raise InputError(f"global step: workers must be at least 1, got {self.workers}")

    def recorded(self) -> dict[str, Any]:
        """Return the parameters as recorded in manifests (block size does not change the output)."""
        d = asdict(self)
        d.pop("block_rows")
        d.pop("max_instances")
        d.pop("workers")
        d["version"] = GLOBAL_VERSION
        return d


@dataclass(frozen=True)
class TypedGraph:
    """The input of one graph: node names `pred#slot1#slot2`, its local scores and NEG__ partners."""

    name: str
    nodes: list[str]
    scores: sp.csr_matrix
    partner: IntArray | None = None


def _node_keys(graphs: Sequence[TypedGraph]) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Per global node: untyped predicate id, graph id, orientation (0 = slot 1 has the first type), offsets."""
    preds: dict[str, int] = {}
    r, g, o = [], [], []
    offsets = [0]
    for gid, graph in enumerate(graphs):
        first = graph.name.split("#", 1)[0]
        for node in graph.nodes:
            pred, slot1, _ = node.rsplit("#", 2)
            r.append(preds.setdefault(pred, len(preds)))
            g.append(gid)
            o.append(0 if slot1 in (first, f"{first}_1") else 1)
        offsets.append(offsets[-1] + len(graph.nodes))
    return (np.asarray(r, dtype=np.int64), np.asarray(g, dtype=np.int64), np.asarray(o, dtype=np.int64),
            np.asarray(offsets, dtype=np.int64))


def _block_diag(mats: Sequence[sp.csr_matrix]) -> sp.csr_matrix:
    out = sp.block_diag(mats, format="csr", dtype=np.float64) if mats else sp.csr_matrix((0, 0))
    out.setdiag(0)
    out.eliminate_zeros()
    out.sort_indices()
    return sp.csr_matrix(out)


def _keys(m: sp.csr_matrix) -> tuple[IntArray, FloatArray]:
    """Sorted keys row * n_cols + col of a CSR matrix's entries, and their values (no COO copy, no argsort)."""
    m = sp.csr_matrix(m)
    m.sum_duplicates()  # sorts the columns of each row too
    rows = np.repeat(np.arange(m.shape[0], dtype=np.int64) * m.shape[1], np.diff(m.indptr))
    return rows + m.indices, m.data.astype(np.float64, copy=False)


def _lookup(keys: IntArray, vals: FloatArray, wanted: IntArray) -> FloatArray:
    """vals at wanted keys (keys sorted), 0 where absent."""
    if keys.size == 0:
        return np.zeros(wanted.size)
    loc = np.minimum(np.searchsorted(keys, wanted), keys.size - 1)
    return np.where(keys[loc] == wanted, vals[loc], 0.0)


def _lookups(wanted: IntArray, *tables: tuple[IntArray, FloatArray]) -> list[FloatArray]:
    """_lookup of the same wanted keys in several sorted tables, searching them in sorted order.

    Binary searches of sorted keys walk each table once, cache-friendly, instead of jumping about it:
    the same values as one _lookup per table, several times faster on tables of millions of edges."""
    order = np.argsort(wanted)
    ordered = wanted[order]
    out = []
    for keys, vals in tables:
        found = np.empty(wanted.size)
        found[order] = _lookup(keys, vals, ordered)
        out.append(found)
    return out


class _Instances:
    """Where each untyped edge key (pred_p, pred_q, aligned) has both nodes, over all graphs."""

    def __init__(self, r: IntArray, g: IntArray, o: IntArray) -> None:
        self.r, self.g, self.o = r, g, o
        self.n_graphs = int(g.max()) + 1 if g.size else 1
        self.code = (r * self.n_graphs + g) * 2 + o
        self.by_code = np.argsort(self.code, kind="stable")
        self.sorted_code = self.code[self.by_code]
        self.by_pred = np.argsort(r, kind="stable")
        n_preds = int(r.max()) + 1 if r.size else 0
        self.pred_count = np.bincount(r, minlength=n_preds)
        self.pred_start = np.cumsum(self.pred_count) - self.pred_count

    def edge_key(self, i: IntArray, j: IntArray) -> IntArray:
        """One integer per untyped edge: (pred of i, pred of j, same orientation)."""
        n_preds = self.pred_count.size
        return (self.r[i] * n_preds + self.r[j]) * 2 + (self.o[i] == self.o[j])

    def key_chunks(self, keys: IntArray, max_instances: int, piece: int = 1 << 22) -> list[tuple[int, int]]:
        """Split sorted keys into runs whose instances (an upper bound) stay under max_instances.

        The running bound is summed a piece of keys at a time, so it never takes 8 bytes for every key."""
        n_preds = self.pred_count.size
        cuts = [0]
        cut_base = 0  # instances of the keys before the last cut
        offset = 0  # instances of the keys before the piece
        for s in range(0, keys.size, piece):
            e = min(s + piece, keys.size)
            bound = offset + np.cumsum(self.pred_count[(keys[s:e] // 2) // n_preds])
            while cuts[-1] < e:
                nxt = s + int(np.searchsorted(bound, cut_base + max_instances, side="right"))
                if nxt == e < keys.size:  # the run goes on into the next piece
                    break
                nxt = max(nxt, cuts[-1] + 1)
                cuts.append(nxt)
                cut_base = int(bound[nxt - 1 - s]) if nxt > s else offset
            offset = int(bound[-1])
        return list(zip(cuts[:-1], cuts[1:]))

    def expand(self, keys: IntArray) -> tuple[IntArray, IntArray, IntArray]:
        """Every (key, i', j') with both nodes present in some graph and orientation."""
        n_preds = self.pred_count.size
        aligned = keys % 2
        pq = keys // 2
        p_pred, q_pred = pq // n_preds, pq % n_preds
        reps = self.pred_count[p_pred]
        k_idx = np.repeat(np.arange(keys.size), reps)
        offs = np.arange(k_idx.size) - np.repeat(np.cumsum(reps) - reps, reps)
        i2 = self.by_pred[np.repeat(self.pred_start[p_pred], reps) + offs]
        o_q = np.where(aligned[k_idx] == 1, self.o[i2], 1 - self.o[i2])
        want = (q_pred[k_idx] * self.n_graphs + self.g[i2]) * 2 + o_q
        loc = np.minimum(np.searchsorted(self.sorted_code, want), max(self.sorted_code.size - 1, 0))
        hit = self.sorted_code[loc] == want
        j2 = self.by_code[loc]
        keep = hit & (i2 != j2)
        return keys[k_idx[keep]], i2[keep], j2[keep]


def _sorted_unique(values: IntArray) -> IntArray:
    """np.unique by sorting (faster than hashing for large int64 arrays)."""
    values = np.sort(values)
    return values[np.r_[True, values[1:] != values[:-1]]] if values.size else values


def _group_sums(groups: IntArray, values: FloatArray) -> tuple[FloatArray, IntArray]:
    """Per element: the sum of values and the size of its group (groups contiguous, non-decreasing)."""
    if groups.size == 0:
        return np.zeros(0), np.zeros(0, dtype=np.int64)
    starts = np.r_[0, np.flatnonzero(np.diff(groups)) + 1]
    sizes = np.diff(np.r_[starts, groups.size])
    return np.repeat(np.add.reduceat(values, starts), sizes), np.repeat(sizes, sizes)


def _row_dots(a: sp.csr_matrix, rows: IntArray, cols: IntArray, chunk: int = 65536) -> FloatArray:
    """sum_k a[rows, k] * a[cols, k] for each pair, a chunk of pairs at a time."""
    out = np.zeros(rows.size)
    for s in range(0, rows.size, chunk):
        e = min(s + chunk, rows.size)
        out[s:e] = np.asarray(a[rows[s:e]].multiply(a[cols[s:e]]).sum(axis=1)).ravel()
    return out


def _pull_rows(pi: sp.csr_matrix, w: sp.csr_matrix, rows: IntArray) -> tuple[IntArray, FloatArray]:
    """Sorted keys and values of Pi W + W Pi in the given rows (sorted, distinct), and only those rows.

    A row of a sparse product depends on that row alone, so each value equals the whole table's to the bit:
    a chunk of candidates computes the rows it needs instead of the round holding the whole table."""
    n = w.shape[0]
    k, v = _keys(pi[rows] @ w + w[rows] @ pi)
    return rows[k // n] * n + k % n, v


def _in_threads(fn: Callable[[T], R], items: Sequence[T], workers: int) -> Iterator[R]:
    """fn of every item, in order; with workers > 1 computed that many at a time in threads (numpy releases
    the GIL in its loops), one more submitted ahead, so results wait here for at most workers + 1 items."""
    if workers <= 1 or len(items) <= 1:
        yield from map(fn, items)
        return
    with ThreadPoolExecutor(workers) as pool:
        pending: deque[Future[R]] = deque()
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) > workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


class _SortedUnion:
    """Distinct integers arriving part by part, merged with what is kept whenever the pending parts outgrow it,
    so memory stays near the distinct values (twice, while merging) however many repeats arrive."""

    def __init__(self, dtype: type[np.integer[Any]], min_pending: int = 1 << 22) -> None:
        self.dtype = dtype
        self.min_pending = min_pending
        self._parts: list[npt.NDArray[np.integer[Any]]] = []
        self._kept = 0
        self._pending = 0

    def add(self, values: IntArray) -> None:
        """Add some values (any order, repeats allowed)."""
        self._parts.append(_sorted_unique(values.astype(self.dtype, copy=False)))
        self._pending += int(self._parts[-1].size)
        if self._pending > max(self._kept, self.min_pending):
            self._merge()

    def _merge(self) -> None:
        merged = np.concatenate(self._parts) if len(self._parts) > 1 else self._parts[0]
        self._parts = []
        merged.sort()  # in place: the concatenation is ours
        merged = merged[np.r_[True, merged[1:] != merged[:-1]]] if merged.size else merged
        self._parts = [merged]
        self._kept, self._pending = int(merged.size), 0

    def result(self) -> npt.NDArray[np.integer[Any]]:
        """Return the distinct values, sorted."""
        if not self._parts:
            return np.zeros(0, self.dtype)
        if self._pending:
            self._merge()
        return self._parts[0]


def _key_dtype(inst: _Instances) -> type[np.integer[Any]]:
    """The smallest unsigned type holding every untyped edge key (32 bits up to 46,340 untyped predicates)."""
    n_preds = inst.pred_count.size
    return np.uint32 if 2 * n_preds * n_preds <= 2**32 else np.int64


def _candidate_keys(inst: _Instances, n: int, pi: sp.csr_matrix, w: sp.csr_matrix, block_rows: int,
                    *typed: IntArray, chunk: int = 1 << 22) -> npt.NDArray[np.integer[Any]]:
    """Sorted distinct untyped edge keys of typed edge keys i * n + j and of the entries of Pi W + W Pi off the
    diagonal; the product is computed a block of rows at a time and only its untyped keys kept."""
    union = _SortedUnion(_key_dtype(inst))
    for k in typed:
        for s in range(0, k.size, chunk):
            union.add(inst.edge_key(k[s:s + chunk] // n, k[s:s + chunk] % n))
    for s in range(0, n, block_rows):
        e = min(s + block_rows, n)
        k, v = _keys(pi[s:e] @ w + w[s:e] @ pi)
        rows, cols = k // n + s, k % n
        off = (rows != cols) & (v != 0)
        union.add(inst.edge_key(rows[off], cols[off]))
    return union.result()


def global_step(graphs: Sequence[TypedGraph], params: GlobalParams = GlobalParams(),
                top_k: int | None = None) -> list[sp.csr_matrix]:
    """Return the global scores of every graph (same node order, self-edges 1), from their local scores.

    With top_k, each round keeps the top_k scores per node by (-score, id), so the rounds work on
    at most top_k edges a node (the published build pruned to 100-120 neighbours)."""
    r, g, o, offsets = _node_keys(graphs)
    n = int(offsets[-1])
    inst = _Instances(r, g, o)
    w0 = _block_diag([sp.csr_matrix(x.scores, dtype=np.float64) for x in graphs])
    w0.data = np.clip(w0.data, 0.0, 1.0)
    w0_keys, w0_vals = _keys(w0)
    partner = np.full(n, -1, dtype=np.int64)
    for gid, x in enumerate(graphs):
        if x.partner is not None:
            p = np.asarray(x.partner, dtype=np.int64)
            partner[offsets[gid]:offsets[gid + 1]] = np.where(p >= 0, p + offsets[gid], -1)
    eps = params.epsilon
    w = w0
    del w0  # its keys stay; the matrix goes once the first round has replaced w
    for round_ in range(params.iterations):
        w_keys, w_vals = _keys(w)
        wt = sp.csr_matrix(w.T)
        big = w.multiply(w > eps)
        pi = sp.csr_matrix(big.multiply(big.T))
        pi.eliminate_zeros()
        pi_row = np.asarray(pi.sum(axis=1)).ravel()
        # Candidates: every instance, in any graph, of an untyped edge with a local score, a score or a pull
        # (an entry of Pi W + W Pi: the table is never held whole, each chunk computes the rows it needs).
        all_keys = _candidate_keys(inst, n, pi, w, params.block_rows, w0_keys, w_keys)
        pi_keys, pi_vals = _keys(pi)
        sq_row = np.asarray(w.multiply(w).sum(axis=1)).ravel()
        sq_col = np.asarray(wt.multiply(wt).sum(axis=1)).ravel()
        # Keys a chunk at a time, so the instances in flight stay under max_instances (per worker); the new
        # scores are pruned to top_k as they come, so a round never holds more than about n x top_k of them.
        def update(span: tuple[int, int]) -> tuple[IntArray, IntArray, FloatArray]:
            ci, cj, vals = _update(inst, all_keys[span[0]:span[1]].astype(np.int64), n, g, w0_keys, w0_vals,
                                   w_keys, w_vals, pi, pi_keys, pi_vals, pi_row, sq_row, sq_col, w, wt, params)
            keep = (vals > 0) & (partner[ci] != cj)
            # Kept edges hold 32-bit node ids when they fit: 16 bytes an edge instead of 24.
            return ci[keep].astype(ids, copy=False), cj[keep].astype(ids, copy=False), vals[keep]

        ids = np.int32 if n < 2**31 else np.int64
        kept = TopKEdges(top_k, min_pending=params.max_instances)
        for part in _in_threads(update, inst.key_chunks(all_keys, params.max_instances), params.workers):
            kept.add(*part)
        r_all, c_all, v_all = kept.result()
        del kept, all_keys, pi_keys, pi_vals, pi, big, wt, w_keys, w_vals, w
        w = sp.csr_matrix((v_all, (r_all, c_all)), shape=(n, n))
        del r_all, c_all, v_all
        w.sort_indices()
        log.info("global step round %d of %d: %d edges", round_ + 1, params.iterations, w.nnz)

    out = []
    for gid, x in enumerate(graphs):
        lo, hi = int(offsets[gid]), int(offsets[gid + 1])
        block = sp.csr_matrix(w[lo:hi, lo:hi])
        block = sp.csr_matrix(block + sp.identity(hi - lo, format="csr"))
        block.sort_indices()
        out.append(block)
    return out


def _update(inst: _Instances, keys: IntArray, n: int, g: IntArray, w0_keys: IntArray, w0_vals: FloatArray,
            w_keys: IntArray, w_vals: FloatArray, pi: sp.csr_matrix, pi_keys: IntArray,
            pi_vals: FloatArray, pi_row: FloatArray, sq_row: FloatArray, sq_col: FloatArray, w: sp.csr_matrix,
            wt: sp.csr_matrix, params: GlobalParams) -> tuple[IntArray, IntArray, FloatArray]:
    """One Jacobi update of every instance of the given untyped edge keys: (rows, cols, new scores)."""
    lam1, lam2, beta = params.lambda1, params.lambda2, params.cross_graph_weight
    # Instances come grouped by key, and inside a key by graph (node ids grow with the graph).
    c_key, ci, cj = inst.expand(keys)
    cand = ci * n + cj

    # Cross-graph sums: over all instances of the key, minus the candidate's own graph.
    x_all, w0_ij, pull_ij = _lookups(cand, (w_keys, w_vals), (w0_keys, w0_vals), _pull_rows(pi, w, _sorted_unique(ci)))
    # pi_ij = w_ij w_ji where both exceed epsilon: looked up only where w_ij does.
    pi_ij = np.zeros(cand.size)
    strong = np.flatnonzero(x_all > params.epsilon)
    if strong.size:
        pi_ij[strong] = _lookups(cand[strong], (pi_keys, pi_vals))[0]
    total, count = _group_sums(c_key, x_all)
    own, own_count = _group_sums(c_key * inst.n_graphs + g[ci], x_all)
    cross_sum = beta * (total - own)
    cross_n = beta * (count - own_count)

    # Paraphrase resolution: pulls toward paraphrases' edges, push on paraphrase edges.
    num = w0_ij + cross_sum + lam2 * pull_ij - lam1 / 2
    den = 1.0 + cross_n + lam2 * (pi_row[ci] - pi_ij + pi_row[cj] - pi_ij)
    para = np.flatnonzero(pi_ij > 0)
    if para.size:
        i, j = ci[para], cj[para]
        w_ij, w_ji = _lookup(w_keys, w_vals, i * n + j), _lookup(w_keys, w_vals, j * n + i)
        s_out = sq_row[i] - w_ij ** 2 + sq_row[j] - w_ji ** 2 - 2 * _row_dots(w, i, j)
        s_in = sq_col[i] - w_ji ** 2 + sq_col[j] - w_ij ** 2 - 2 * _row_dots(wt, i, j)
        num[para] -= lam2 / 2 * w_ji * np.maximum(s_out + s_in, 0.0)
    return ci, cj, np.clip(num / den, 0.0, 1.0)
