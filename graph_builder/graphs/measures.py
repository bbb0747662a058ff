"""Distributional entailment measures (Hosseini et al. 2018; Szpektor and Dagan 2008; Lin 1998; Weeds and Weir 2003) as pure functions of sparse count matrices.

Rows of a count matrix are typed predicates, columns argument pairs (features). Every measure is a
sparse product (W B^T or C C^T) evaluated a block of rows at a time, so memory stays bounded by the
block's edges, never by a Python loop over predicate pairs.

`binc`, `weeds`, `lin` and `cos` are the published measures on the published counts (one per
triple). Their `_clean` twins (`binc_clean` = `binc.clean.v1`, ...) apply the same formula to clean
counts (one per distinct sentence text), do not count a feature two predicates share only through
sentences stating both (`counts.co_extracted`), and never link a predicate with its `NEG__` form.
Distinct names let one graph set hold both, so they can be compared side by side in one run. The `_lp`
names (`binc_lp`, `binc_clean_lp`, ...) read counts completed by link prediction first (completion.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from graph_builder.errors import InputError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# Short name -> versioned name recorded in artefacts; bump the version when a formula changes.
LOCAL_MEASURES: dict[str, str] = {"binc": "binc.v1", "weeds": "weeds.v1", "lin": "lin.v1", "cos": "cos.v1"}
LOCAL_DIRECTIONAL: dict[str, bool] = {"binc": True, "weeds": True, "lin": False, "cos": False}
CLEAN_SUFFIX = "_clean"
LP_SUFFIX = "_lp"
# The counts a local measure is computed on, named by a suffix of its name -> the tag in its version:
# the published counts, the clean counts, and either completed by link prediction (completion.py).
COUNT_VARIANTS: dict[str, str] = {"": "", CLEAN_SUFFIX: ".clean", LP_SUFFIX: ".lp",
                                  CLEAN_SUFFIX + LP_SUFFIX: ".clean.lp"}
MEASURE_VERSIONS: dict[str, str] = {
    **{f"{m}{suffix}": v.replace(".v1", f"{tag}.v1") for suffix, tag in COUNT_VARIANTS.items()
       for m, v in LOCAL_MEASURES.items()},
    "global": "global.v1",
}
DIRECTIONAL: dict[str, bool] = {
    **{f"{m}{suffix}": d for suffix in COUNT_VARIANTS for m, d in LOCAL_DIRECTIONAL.items()}, "global": True}
DEFAULT_MEASURE = "binc"


def split_measure(name: str) -> tuple[str, str]:
    """Return a local measure's formula and count variant (`binc_clean_lp` -> (`binc`, `_clean_lp`))."""
    for suffix in sorted(COUNT_VARIANTS, key=len, reverse=True):
        if suffix and name.endswith(suffix) and name[:-len(suffix)] in LOCAL_MEASURES:
            return name[:-len(suffix)], suffix
    return name, ""


def check_measures(names: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Return the measure names if all are known, else raise InputError listing the valid ones."""
    unknown = [n for n in names if n not in MEASURE_VERSIONS]
    if unknown or not names:
        raise InputError(f"unknown measure(s) {unknown or names}; valid: {', '.join(MEASURE_VERSIONS)}")
    return tuple(names)


def _canonical(matrix: sp.spmatrix | sp.sparray) -> sp.csr_matrix:
    csr = sp.csr_matrix(matrix, dtype=np.float64, copy=True)
    csr.sum_duplicates()
    csr.eliminate_zeros()
    csr.sort_indices()
    return csr


def _row_ids(csr: sp.csr_matrix) -> IntArray:
    return np.repeat(np.arange(csr.shape[0], dtype=np.int64), np.diff(csr.indptr))


def positive_pmi(counts: sp.csr_matrix) -> sp.csr_matrix:
    """Return w+(p,f) = max(log c(p,f) + log N - log c(p) - log c(f), 0) on the counts' non-zeros."""
    c = _canonical(counts)
    total = c.data.sum()
    rows = np.asarray(c.sum(axis=1)).ravel()
    cols = np.asarray(c.sum(axis=0)).ravel()
    # One log of the ratio: a PMI of exactly 0 (ratio 1) must not turn into +-1e-16 and an edge.
    w = np.log((c.data * total) / (rows[_row_ids(c)] * cols[c.indices]))
    out = sp.csr_matrix((np.maximum(w, 0.0), c.indices.copy(), c.indptr.copy()), shape=c.shape)
    out.eliminate_zeros()
    return out


@dataclass(frozen=True)
class Prepared:
    """The matrices every measure is computed from, derived once per graph."""

    counts: sp.csr_matrix
    counts_t: sp.csr_matrix
    binary: sp.csr_matrix
    binary_t: sp.csr_matrix
    wpos: sp.csr_matrix
    wpos_t: sp.csr_matrix
    wsum: FloatArray
    norms: FloatArray
    excluded: tuple[IntArray, IntArray, IntArray] | None = None
    partner: IntArray | None = None
    min_shared: int = 1

    @property
    def n(self) -> int:
        """Number of predicates (rows)."""
        return int(self.counts.shape[0])


def prepare(counts: sp.spmatrix | sp.sparray, excluded: tuple[IntArray, IntArray, IntArray] | None = None,
            partner: IntArray | None = None, min_shared: int = 1) -> Prepared:
    """Derive binary features, positive PMI, its row sums and the count norms from a count matrix.

    `excluded` (p, q, f) features are not shared evidence for p -> q; `partner[p]` is a row p must
    never link to (its NEG__ twin, -1 for none); an edge needs `min_shared` shared features that
    count. These are only given for the clean measures."""
    if min_shared < 1:
        raise InputError("min_shared must be at least 1")
    c = _canonical(counts)
    if c.nnz and c.data.min() < 0:
        raise InputError("counts must be non-negative")
    binary = sp.csr_matrix((np.ones_like(c.data), c.indices.copy(), c.indptr.copy()), shape=c.shape)
    wpos = positive_pmi(c)
    return Prepared(
        counts=c, counts_t=c.T.tocsr(), binary=binary, binary_t=binary.T.tocsr(), wpos=wpos,
        wpos_t=wpos.T.tocsr(), wsum=np.asarray(wpos.sum(axis=1)).ravel(),
        norms=np.sqrt(np.asarray(c.multiply(c).sum(axis=1)).ravel()),
        excluded=_sorted_excluded(excluded) if excluded is not None else None,
        partner=np.asarray(partner, dtype=np.int64) if partner is not None else None, min_shared=min_shared)


def _sorted_excluded(excluded: tuple[IntArray, IntArray, IntArray]) -> tuple[IntArray, IntArray, IntArray]:
    p, q, f = (np.asarray(x, dtype=np.int64) for x in excluded)
    order = np.lexsort((f, q, p))
    return p[order], q[order], f[order]


def _value_at(csr: sp.csr_matrix, rows: IntArray, cols: IntArray) -> FloatArray:
    return np.asarray(csr[rows, cols]).ravel().astype(np.float64) if rows.size else np.zeros(0)


def _corrections(prep: Prepared, start: int, stop: int,
                 weights: sp.csr_matrix) -> tuple[IntArray, FloatArray, FloatArray]:
    """Per block key (p, q): the sums over excluded features of weights(p, f) and weights(q, f)."""
    if prep.excluded is None:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
    p, q, f = prep.excluded
    lo, hi = np.searchsorted(p, [start, stop])
    p, q, f = p[lo:hi], q[lo:hi], f[lo:hi]
    keys = (p - start) * np.int64(prep.n) + q
    ukeys, inv = np.unique(keys, return_inverse=True)
    own = np.bincount(inv, weights=_value_at(weights, p, f), minlength=ukeys.size)
    other = np.bincount(inv, weights=_value_at(weights, q, f), minlength=ukeys.size)
    return ukeys, own, other


def _subtract(keys: IntArray, vals: FloatArray, ckeys: IntArray, cvals: FloatArray) -> FloatArray:
    """vals - cvals where keys match; a sum left with no real share becomes exactly 0."""
    if ckeys.size == 0:
        return vals
    _, ia, ic = np.intersect1d(keys, ckeys, assume_unique=True, return_indices=True)
    out = vals.copy()
    out[ia] = vals[ia] - cvals[ic]
    # Subtracting every term of a sum leaves rounding residue, not evidence.
    out[ia] = np.where(out[ia] > 1e-9 * vals[ia], out[ia], 0.0)
    return out


# Candidate pairs (premise, hypothesis sharing a feature) scored at once: ~150 bytes each in flight.
BLOCK_PAIRS = 1_000_000


def row_blocks(binary: sp.csr_matrix, max_rows: int, max_pairs: int = BLOCK_PAIRS) -> list[tuple[int, int]]:
    """Split rows into blocks of at most max_rows whose candidate pairs stay under max_pairs.

    A row's candidates are bounded by the sum, over its features, of the predicates having that
    feature; a single row over the budget gets a block of its own."""
    n = binary.shape[0]
    per_feature = np.asarray(binary.sum(axis=0)).ravel()
    bound = np.asarray(binary @ per_feature).ravel()
    blocks, start, load = [], 0, 0.0
    for i in range(n):
        if i > start and (i - start >= max_rows or load + bound[i] > max_pairs):
            blocks.append((start, i))
            start, load = i, 0.0
        load += bound[i]
    if n:
        blocks.append((start, n))
    return blocks


def _coo_keyed(block: sp.csr_matrix) -> tuple[IntArray, FloatArray]:
    block = block.tocsr()
    block.eliminate_zeros()
    block.sort_indices()
    keys = _row_ids(block) * np.int64(block.shape[1]) + block.indices.astype(np.int64)
    return keys, block.data.astype(np.float64)


def block_scores(prep: Prepared, start: int, stop: int,
                 measures: tuple[str, ...]) -> dict[str, tuple[IntArray, IntArray, FloatArray]]:
    """Score rows start..stop against every predicate; per measure (rows, cols, scores), self-edges 1."""
    n = prep.n
    out: dict[str, tuple[IntArray, IntArray, FloatArray]] = {}
    if {"binc", "weeds", "lin"} & set(measures):
        # a[p,q] = sum over shared features of w+(p,f); at[p,q] = the same sum of w+(q,f).
        a_keys, a_vals = _coo_keyed(prep.wpos[start:stop] @ prep.binary_t)
        t_keys, t_vals = _coo_keyed(prep.binary[start:stop] @ prep.wpos_t)
        c_keys, c_own, c_other = _corrections(prep, start, stop, prep.wpos)
        a_vals = _subtract(a_keys, a_vals, c_keys, c_own)
        t_vals = _subtract(t_keys, t_vals, c_keys, c_other)
        a_keys, a_vals = a_keys[a_vals > 0], a_vals[a_vals > 0]
        t_keys, t_vals = t_keys[t_vals > 0], t_vals[t_vals > 0]
        # Both sums must be positive (Szpektor and Dagan 2008): keep the intersection of the two patterns.
        keys, ia, it = np.intersect1d(a_keys, t_keys, assume_unique=True, return_indices=True)
        rows = keys // n + start
        cols = keys % n
        own, other = a_vals[ia], t_vals[it]
        weeds = own / prep.wsum[rows]
        lin = (own + other) / (prep.wsum[rows] + prep.wsum[cols])
        values = {"weeds": weeds, "lin": lin, "binc": np.sqrt(lin * weeds)}
        for name in ("binc", "weeds", "lin"):
            if name in measures:
                out[name] = _with_self_edges(rows, cols, values[name], start, stop)
    if "cos" in measures:
        keys, dots = _coo_keyed(prep.counts[start:stop] @ prep.counts_t)
        if prep.excluded is not None:
            p, q, f = prep.excluded
            lo, hi = np.searchsorted(p, [start, stop])
            p, q, f = p[lo:hi], q[lo:hi], f[lo:hi]
            ckeys, inv = np.unique((p - start) * np.int64(n) + q, return_inverse=True)
            prod = _value_at(prep.counts, p, f) * _value_at(prep.counts, q, f)
            dots = _subtract(keys, dots, ckeys, np.bincount(inv, weights=prod, minlength=ckeys.size))
            keys, dots = keys[dots > 0], dots[dots > 0]
        rows = keys // n + start
        cols = keys % n
        out["cos"] = _with_self_edges(rows, cols, dots / (prep.norms[rows] * prep.norms[cols]), start, stop)
    if prep.partner is not None:
        for name, (rows, cols, vals) in out.items():
            keep = prep.partner[rows] != cols
            out[name] = (rows[keep], cols[keep], vals[keep])
    if prep.min_shared > 1 and out:
        # Shared features that count: all shared ones minus the co-extracted ones.
        s_keys, s_vals = _coo_keyed(prep.binary[start:stop] @ prep.binary_t)
        c_keys, c_counts, _ = _corrections(prep, start, stop, prep.binary)
        s_vals = _subtract(s_keys, s_vals, c_keys, c_counts)
        enough = s_keys[s_vals >= prep.min_shared]
        for name, (rows, cols, vals) in out.items():
            keep = np.isin((rows - start) * np.int64(n) + cols, enough) | (rows == cols)
            out[name] = (rows[keep], cols[keep], vals[keep])
    return out


def _with_self_edges(rows: IntArray, cols: IntArray, vals: FloatArray, start: int,
                     stop: int) -> tuple[IntArray, IntArray, FloatArray]:
    """Edges of rows start..stop with every self-edge set to 1, ordered by (row, column)."""
    off = rows != cols
    rows, cols, vals = rows[off], cols[off], vals[off]
    diag = np.arange(start, stop, dtype=np.int64)
    width = np.int64(max(stop, int(cols.max()) + 1 if cols.size else 0))
    keys = rows * width + cols
    if keys.size > 1 and bool(np.any(keys[1:] < keys[:-1])):
        order = np.lexsort((cols, rows))
        rows, cols, vals, keys = rows[order], cols[order], vals[order], keys[order]
    # Edges come sorted by (row, column): each self-edge is inserted at its place, no sort of all edges.
    at = np.searchsorted(keys, diag * width + diag)
    return (np.insert(rows, at, diag), np.insert(cols, at, diag),
            np.insert(vals.astype(np.float64, copy=False), at, 1.0))


def select_edges(rows: IntArray, cols: IntArray, vals: FloatArray, top_k: int | None = None,
                 min_score: float = 0.0, by_row: bool = False) -> tuple[IntArray, IntArray, FloatArray]:
    """Keep edges scoring >= min_score and at most top_k per row by (-score, id); self-edges stay.

    Edges keep their input order, or with by_row are ordered by row (stably), which lets a later call
    on them plus a few more edges sort almost nothing. Only rows with more than top_k candidates are
    ranked, each by a partition around its top_k-th score, so pruning costs about as much as reading
    the edges."""
    if by_row and rows.size > 1 and bool(np.any(rows[1:] < rows[:-1])):
        # Stable sort: runs already in row order (what an earlier by_row call kept) merge in linear time.
        order = np.argsort(rows, kind="stable")
        rows, cols, vals = rows[order], cols[order], vals[order]
    diag = rows == cols
    keep = diag | (vals >= min_score)
    if top_k is not None:
        cand = np.flatnonzero(keep & ~diag)
        r = rows[cand]
        if r.size > 1 and bool(np.any(r[1:] < r[:-1])):
            cand = cand[np.argsort(r, kind="stable")]
            r = rows[cand]
        bounds = np.r_[0, np.flatnonzero(r[1:] != r[:-1]) + 1, r.size] if r.size else np.zeros(1, np.int64)
        keep = diag.copy()
        keep[cand] = True
        for g in np.flatnonzero(np.diff(bounds) > top_k).tolist():
            group = cand[bounds[g]:bounds[g + 1]]
            v = vals[group]
            kth = np.partition(v, v.size - top_k)[v.size - top_k]  # the row's top_k-th score
            above = v > kth
            keep[group] = above
            # Ties at the top_k-th score: the lowest ids fill the places left.
            tied = group[v == kth]
            keep[tied[np.argsort(cols[tied], kind="stable")[:top_k - int(above.sum())]]] = True
    idx = np.flatnonzero(keep)
    return rows[idx], cols[idx], vals[idx]


class TopKEdges:
    """Edges arriving part by part, kept to top_k per row by (-score, id) (all when top_k is None).

    Pending parts are pruned together with what is kept whenever they outgrow it, so memory stays
    near (rows x top_k + one part) edges however many candidates arrive, and the result equals one
    select_edges over all parts (edges must not repeat across parts). A compaction sorts the pending
    edges by row and prunes a block of rows at a time, so beside the kept and pending edges it holds
    only the new kept edges and one block's work, not a sort of everything."""

    def __init__(self, top_k: int | None, min_score: float = 0.0, min_pending: int = 1_000_000,
                 block_edges: int = 1 << 20) -> None:
        self.top_k = top_k
        self.min_score = min_score
        self.min_pending = min_pending
        self.block_edges = block_edges
        self._parts: list[tuple[IntArray, IntArray, FloatArray]] = []
        self._kept: tuple[IntArray, IntArray, FloatArray] | None = None  # ordered by row
        self._pending = 0

    def add(self, rows: IntArray, cols: IntArray, vals: FloatArray) -> None:
        """Add a part of edges."""
        if self.top_k is None:
            self._parts.append(select_edges(rows, cols, vals, min_score=self.min_score))
            return
        self._parts.append((rows, cols, vals))
        self._pending += int(rows.size)
        kept = 0 if self._kept is None else int(self._kept[0].size)
        if self._pending > max(kept, self.min_pending):
            self._compact()

    def _compact(self) -> None:
        # Pending edges ordered by row, stably: within a row, the kept edges come first and then the pending
        # ones in arrival order, as in one stable sort of (kept + pending), so every block's pruning and so
        # the result equal select_edges(..., by_row=True) over them all.
        parts, self._parts = self._parts, []
        rows = np.concatenate([p[0] for p in parts])
        order = np.argsort(rows, kind="stable") if rows.size > 1 and bool(np.any(rows[1:] < rows[:-1])) else None
        pending = []
        for i in range(3):
            column = rows if i == 0 else np.concatenate([p[i] for p in parts])
            pending.append(column if order is None else column[order])
            del column
        del parts, rows, order
        kept = self._kept if self._kept is not None else tuple(x[:0] for x in pending)
        self._kept = None
        # Blocks of rows of about block_edges edges, cut at row starts in both runs.
        k_rows, p_rows = kept[0], pending[0]
        total = k_rows.size + p_rows.size
        hi_row = int(max(k_rows[-1] if k_rows.size else 0, p_rows[-1] if p_rows.size else 0)) + 1
        n_blocks = max(1, -(-total // self.block_edges))
        edges = np.unique(np.linspace(0, hi_row, n_blocks + 1).astype(np.int64))
        k_cut, p_cut = np.searchsorted(k_rows, edges), np.searchsorted(p_rows, edges)
        out: list[tuple[IntArray, IntArray, FloatArray]] = []
        for b in range(edges.size - 1):
            (ka, kb), (pa, pb) = k_cut[b:b + 2], p_cut[b:b + 2]
            block = [np.concatenate([k[ka:kb], p[pa:pb]]) for k, p in zip(kept, pending)]
            out.append(select_edges(*block, top_k=self.top_k, min_score=self.min_score, by_row=True))
        del kept, pending
        self._kept = tuple(np.concatenate(x) for x in zip(*out))  # type: ignore[assignment]
        self._pending = 0

    def result(self) -> tuple[IntArray, IntArray, FloatArray]:
        """Return the kept edges (rows, cols, scores)."""
        if self.top_k is None:
            if not self._parts:
                return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
            rows, cols, vals = (np.concatenate(x) for x in zip(*self._parts))
            self._parts = [(rows, cols, vals)]
            return rows, cols, vals
        if self._parts:
            self._compact()
        if self._kept is None:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return self._kept


def to_csr(rows: IntArray, cols: IntArray, vals: FloatArray, n: int) -> sp.csr_matrix:
    """Assemble edges into an n x n CSR matrix with sorted column indices."""
    m = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    m.sort_indices()
    return m


def measure_matrix(counts: sp.spmatrix | sp.sparray, measure: str, top_k: int | None = None,
                   min_score: float = 0.0, block_rows: int = 4096,
                   excluded: tuple[IntArray, IntArray, IntArray] | None = None,
                   partner: IntArray | None = None, min_shared: int = 1) -> sp.csr_matrix:
    """Return the n x n matrix of one local measure (row = premise, column = hypothesis) for a count matrix.

    For a `_clean` name pass the clean counts with their co-extracted triples, NEG__ partners and
    the minimum of shared features an edge needs."""
    check_measures([measure])
    base, variant = split_measure(measure)
    if base not in LOCAL_MEASURES or LP_SUFFIX in variant:
        raise InputError(f"{measure!r} is not a local measure of given counts; "
                         f"valid: {', '.join(LOCAL_MEASURES)} and their _clean twins")
    clean = variant == CLEAN_SUFFIX
    prep = prepare(counts, excluded if clean else None, partner if clean else None, min_shared if clean else 1)
    parts = []
    for start, stop in row_blocks(prep.binary, block_rows):
        r, c, v = block_scores(prep, start, stop, (base,))[base]
        parts.append(select_edges(r, c, v, top_k, min_score))
    if not parts:
        return sp.csr_matrix((0, 0))
    return to_csr(*(np.concatenate(x) for x in zip(*parts)), prep.n)


def binc(counts: sp.spmatrix | sp.sparray) -> sp.csr_matrix:
    """BInc(p->q) = sqrt(Lin(p,q) * WeedsPrec(p->q)) for every predicate pair sharing a feature."""
    return measure_matrix(counts, "binc")


def weeds_prec(counts: sp.spmatrix | sp.sparray) -> sp.csr_matrix:
    """WeedsPrec(p->q) = sum_S w+(p,f) / sum_F(p) w+(p,f), directional."""
    return measure_matrix(counts, "weeds")


def lin(counts: sp.spmatrix | sp.sparray) -> sp.csr_matrix:
    """Lin(p,q): shared positive PMI of both predicates over their total positive PMI, symmetric."""
    return measure_matrix(counts, "lin")


def cosine(counts: sp.spmatrix | sp.sparray) -> sp.csr_matrix:
    """Cosine of the raw count vectors of p and q, symmetric."""
    return measure_matrix(counts, "cos")


MEASURE_FUNCTIONS: dict[str, Callable[[sp.spmatrix], sp.csr_matrix]] = {
    "binc": binc, "weeds": weeds_prec, "lin": lin, "cos": cosine}
