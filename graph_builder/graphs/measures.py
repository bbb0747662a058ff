"""Distributional entailment measures of REFERENCE §3 as pure functions of sparse count matrices.

Rows of a count matrix are typed predicates, columns argument pairs (features). Every measure is a
sparse product (W B^T or C C^T) evaluated a block of rows at a time, so memory stays bounded by the
block's edges, never by a Python loop over predicate pairs.
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
MEASURE_VERSIONS: dict[str, str] = {"binc": "binc.v1", "weeds": "weeds.v1", "lin": "lin.v1", "cos": "cos.v1"}
DIRECTIONAL: dict[str, bool] = {"binc": True, "weeds": True, "lin": False, "cos": False}
DEFAULT_MEASURE = "binc"


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

    @property
    def n(self) -> int:
        """Number of predicates (rows)."""
        return int(self.counts.shape[0])


def prepare(counts: sp.spmatrix | sp.sparray) -> Prepared:
    """Derive binary features, positive PMI, its row sums and the count norms from a count matrix."""
    c = _canonical(counts)
    if c.nnz and c.data.min() < 0:
        raise InputError("counts must be non-negative")
    binary = sp.csr_matrix((np.ones_like(c.data), c.indices.copy(), c.indptr.copy()), shape=c.shape)
    wpos = positive_pmi(c)
    return Prepared(
        counts=c, counts_t=c.T.tocsr(), binary=binary, binary_t=binary.T.tocsr(), wpos=wpos,
        wpos_t=wpos.T.tocsr(), wsum=np.asarray(wpos.sum(axis=1)).ravel(),
        norms=np.sqrt(np.asarray(c.multiply(c).sum(axis=1)).ravel()))


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
        # Both sums must be positive (REFERENCE §3): keep the intersection of the two patterns.
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
        rows = keys // n + start
        cols = keys % n
        out["cos"] = _with_self_edges(rows, cols, dots / (prep.norms[rows] * prep.norms[cols]), start, stop)
    return out


def _with_self_edges(rows: IntArray, cols: IntArray, vals: FloatArray, start: int,
                     stop: int) -> tuple[IntArray, IntArray, FloatArray]:
    off = rows != cols
    diag = np.arange(start, stop, dtype=np.int64)
    rows = np.concatenate([rows[off], diag])
    cols = np.concatenate([cols[off], diag])
    vals = np.concatenate([vals[off], np.ones(diag.size)])
    order = np.lexsort((cols, rows))
    return rows[order], cols[order], vals[order]


def select_edges(rows: IntArray, cols: IntArray, vals: FloatArray, top_k: int | None = None,
                 min_score: float = 0.0) -> tuple[IntArray, IntArray, FloatArray]:
    """Keep edges scoring >= min_score and at most top_k per row by (-score, id); self-edges stay."""
    diag = rows == cols
    keep = diag | (vals >= min_score)
    if top_k is not None:
        cand = np.flatnonzero(keep & ~diag)
        order = cand[np.lexsort((cols[cand], -vals[cand], rows[cand]))]
        r = rows[order]
        first = np.r_[0, np.flatnonzero(np.diff(r)) + 1] if r.size else np.zeros(0, dtype=np.int64)
        starts = np.repeat(first, np.diff(np.r_[first, r.size]))
        rank = np.arange(r.size) - starts
        keep = diag.copy()
        keep[order[rank < top_k]] = True
    idx = np.flatnonzero(keep)
    return rows[idx], cols[idx], vals[idx]


def to_csr(rows: IntArray, cols: IntArray, vals: FloatArray, n: int) -> sp.csr_matrix:
    """Assemble edges into an n x n CSR matrix with sorted column indices."""
    m = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    m.sort_indices()
    return m


def measure_matrix(counts: sp.spmatrix | sp.sparray, measure: str, top_k: int | None = None,
                   min_score: float = 0.0, block_rows: int = 4096) -> sp.csr_matrix:
    """Return the n x n matrix of one measure (row = premise, column = hypothesis) for a count matrix."""
    check_measures([measure])
    prep = prepare(counts)
    parts = []
    for start in range(0, prep.n, block_rows):
        stop = min(start + block_rows, prep.n)
        r, c, v = block_scores(prep, start, stop, (measure,))[measure]
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
