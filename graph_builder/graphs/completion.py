"""Link prediction before the local measures: fill in the argument pairs a predicate was never seen with.

Hosseini et al. (2019, "Duality of Link Prediction and Entailment Graph Induction") train a link prediction
model on the extracted triples and score entailment on the facts it adds, so that two predicates can meet on
argument pairs the corpus states with only one of them. Their model is ConvE, trained on a GPU. egqa does the
same job on the CPU with the classic low-rank model of the predicate x argument-pair matrix (Riedel et al.
2013 factorise the same matrix): a truncated SVD of log(1 + counts) per typed graph, whose reconstruction
scores every cell a predicate lacks.

For each predicate the best-scoring cells it lacks are added, at most `per_row` times as many as it has (and
at most `max_per_row`), each only if its reconstructed value reaches `min_value`; an added cell counts
min(1, exp(value) - 1), so a predicted fact never weighs more than one observation. The local measures are then
computed on the completed counts exactly as on the observed ones (`_lp` measures: `binc_lp`, ...).

The SVD starts from a fixed vector, so a build is deterministic on one machine.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds

from graph_builder.errors import InputError

COMPLETION_VERSION = "lowrank.v1"
# Reconstructed rows scored at once: rows x features x 8 bytes in flight (512 x 25,000 is ~100 MB).
_BLOCK_CELLS = 12_500_000
_DECIMALS = 9
_SPARE = 8  # singular values computed beyond the rank, to find a cut between distinct ones
_TIE = 1e-6  # singular values closer than this (relative to the largest) are equal


@dataclass(frozen=True)
class CompletionParams:
    """How counts are completed before the `_lp` measures; recorded in every manifest that holds them."""

    # Defaults chosen on the dev split of the 2006-2013 Reuters benchmark (docs/graphs.md, link prediction).
    rank: int = 200  # latent dimensions of the truncated SVD (fewer when the graph is smaller)
    per_row: float = 10.0  # cells added per predicate, as a multiple of the cells it has
    max_per_row: int = 200  # and never more than this many
    min_value: float = 0.02  # reconstructed log(1 + count) an added cell needs

    def __post_init__(self) -> None:
        if self.rank < 1:
            raise InputError(f"completion rank must be at least 1, got {self.rank}")
        if not self.per_row > 0 or self.max_per_row < 1:
            raise InputError("completion must add at least one cell per predicate (per_row > 0, max_per_row >= 1)")
        if not self.min_value > 0:
            raise InputError(f"completion min_value must be above 0, got {self.min_value}")

    def recorded(self) -> dict[str, Any]:
        """The parameters as recorded in manifests."""
        return {"version": COMPLETION_VERSION, **asdict(self)}


def low_rank(values: sp.csr_matrix, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (left, right) with left @ right the best approximation of `values` of rank at most `rank`
    (left = U S): the rank is lowered to the nearest cut between distinct singular values, since a cut
    through equal ones (mirror images in a graph of two equal types) has no unique answer."""
    n, m = values.shape
    most = min(n, m) - 1
    k = min(rank + _SPARE, most)
    if min(rank, most) < 1 or values.nnz == 0:
        return np.zeros((n, 0)), np.zeros((0, m))
    # A fixed start vector (ARPACK's default is random) keeps builds reproducible.
    v0 = np.full(min(n, m), 1.0 / math.sqrt(min(n, m)))
    u, s, vt = svds(values.astype(np.float64), k=k, v0=v0, solver="arpack")
    order = np.argsort(-s, kind="stable")
    u, s, vt = u[:, order], s[order], vt[order]
    cut = min(rank, k)
    while cut > 0 and cut < k and s[cut - 1] - s[cut] <= _TIE * s[0]:
        cut -= 1
    return u[:, :cut] * s[:cut], vt[:cut]


def _best_cells(row: np.ndarray, k: int, min_value: float) -> np.ndarray:
    """The ids of the k best values of `row` reaching min_value, ties to the lowest ids, ascending."""
    if k <= 0:
        return np.zeros(0, np.int64)
    eligible = np.flatnonzero(row >= min_value)
    if eligible.size <= k:
        return eligible.astype(np.int64)
    vals = row[eligible]
    kth = np.partition(vals, vals.size - k)[vals.size - k]
    above = eligible[vals > kth]
    tied = eligible[vals == kth][:k - above.size]  # eligible ids are ascending
    return np.sort(np.concatenate([above, tied])).astype(np.int64)


def predicted_cells(counts: sp.csr_matrix, params: CompletionParams) -> sp.csr_matrix:
    """Return the cells link prediction adds to `counts` (same shape, no cell `counts` already has)."""
    c = sp.csr_matrix(counts, dtype=np.float64)
    c.sum_duplicates()
    c.eliminate_zeros()
    n, m = c.shape
    values = c.copy()
    values.data = np.log1p(values.data)
    left, right = low_rank(values, params.rank)
    if left.shape[1] == 0:
        return sp.csr_matrix((n, m))
    have = np.diff(c.indptr)
    quota = np.minimum(params.max_per_row, np.ceil(params.per_row * have)).astype(np.int64)
    rows_out: list[np.ndarray] = []
    cols_out: list[np.ndarray] = []
    vals_out: list[np.ndarray] = []
    step = max(1, _BLOCK_CELLS // max(m, 1))
    for start in range(0, n, step):
        stop = min(n, start + step)
        # Rounded, so float noise in the factorisation cannot reorder cells that tie (mirror images in a
        # graph of two equal types); ties then go to the lowest feature id.
        block = np.round(left[start:stop] @ right, _DECIMALS)
        sub = c[start:stop]
        # The cells a predicate has are not predicted again.
        block[np.repeat(np.arange(stop - start), np.diff(sub.indptr)), sub.indices] = -np.inf
        for i in range(stop - start):
            top = _best_cells(block[i], int(min(quota[start + i], m)), params.min_value)
            if top.size:
                rows_out.append(np.full(top.size, start + i, dtype=np.int64))
                cols_out.append(top)
                vals_out.append(np.minimum(1.0, np.expm1(block[i, top])))
    if not rows_out:
        return sp.csr_matrix((n, m))
    out = sp.csr_matrix((np.concatenate(vals_out), (np.concatenate(rows_out), np.concatenate(cols_out))),
                        shape=(n, m))
    out.sort_indices()
    return out


def complete_counts(counts: sp.csr_matrix, params: CompletionParams) -> sp.csr_matrix:
    """Return `counts` with the cells link prediction adds."""
    c = sp.csr_matrix(counts, dtype=np.float64)
    out = (c + predicted_cells(c, params)).tocsr()
    out.sort_indices()
    return out
