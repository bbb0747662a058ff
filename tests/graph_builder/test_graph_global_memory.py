"""The global step's memory-saving paths equal the whole-table computations they replaced, to the bit."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from graph_builder.graphs.globalstep import (GlobalParams, TypedGraph, _candidate_keys, _Instances, _keys,
                                             _node_keys, _pull_rows, _sorted_unique, _SortedUnion, global_step)
from graph_builder.graphs.measures import TopKEdges, select_edges
from tests.graph_builder.test_graph_global import tiny_graphs


def whole_pull(pi: sp.csr_matrix, w: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """The table the global step used to hold: sorted keys and values of Pi W + W Pi off the diagonal."""
    n = w.shape[0]
    k, v = _keys(pi @ w + w @ pi)
    off = (k // n != k % n) & (v != 0)
    return k[off], v[off]


def old_key_chunks(inst: _Instances, keys: np.ndarray, max_instances: int) -> list[tuple[int, int]]:
    """key_chunks as it was, one running bound over every key."""
    bound = np.cumsum(inst.pred_count[(keys // 2) // inst.pred_count.size])
    cuts = [0]
    while cuts[-1] < keys.size:
        base = bound[cuts[-1] - 1] if cuts[-1] else 0
        cuts.append(max(int(np.searchsorted(bound, base + max_instances, side="right")), cuts[-1] + 1))
    return list(zip(cuts[:-1], cuts[1:]))


def random_round(seed: int, n_graphs: int = 4, preds: int = 30) -> tuple[_Instances, int, sp.csr_matrix,
                                                                          sp.csr_matrix]:
    """Typed graphs sharing untyped predicates, their W (many scores above epsilon) and Pi."""
    rng = np.random.default_rng(seed)
    graphs = []
    for gid in range(n_graphs):
        nodes = sorted({f"p{rng.integers(preds)}#t{gid}#u{gid}" for _ in range(40)})
        m = sp.random(len(nodes), len(nodes), density=0.3, random_state=seed + gid, format="csr")
        m.data = np.where(rng.random(m.nnz) < 0.3, 1.0, m.data)
        graphs.append(TypedGraph(f"t{gid}#u{gid}", nodes, m))
    r, g, o, offsets = _node_keys(graphs)
    w = sp.csr_matrix(sp.block_diag([x.scores for x in graphs], format="csr"))
    w.setdiag(0)
    w.eliminate_zeros()
    w.sort_indices()
    big = w.multiply(w > 0.3)
    pi = sp.csr_matrix(big.multiply(big.T))
    pi.eliminate_zeros()
    return _Instances(r, g, o), int(offsets[-1]), w, pi


@pytest.mark.parametrize("seed", range(3))
def test_pull_rows_equal_the_whole_table_to_the_bit(seed: int) -> None:
    inst, n, w, pi = random_round(seed)
    keys, vals = whole_pull(pi, w)
    assert keys.size > 500 and pi.nnz > 50
    rng = np.random.default_rng(seed)
    for rows in (np.arange(n), _sorted_unique(rng.integers(0, n, 40)), np.array([n - 1])):
        got_k, got_v = _pull_rows(pi, w, rows)
        nonzero = (got_v != 0) & (got_k // n != got_k % n)
        want = np.isin(keys // n, rows)
        assert np.array_equal(got_k[nonzero], keys[want])
        assert np.array_equal(got_v[nonzero], vals[want])  # equal, not close: the output is byte-identical


@pytest.mark.parametrize("block_rows", [1, 7, 4096])
def test_candidate_keys_equal_the_untyped_keys_of_the_whole_table(block_rows: int) -> None:
    inst, n, w, pi = random_round(3)
    w0_keys, _ = _keys(w)
    w_keys = np.unique(np.random.default_rng(0).integers(0, n * n, 500))
    pull_keys, _ = whole_pull(pi, w)
    want = np.unique(np.concatenate([inst.edge_key(k // n, k % n) for k in (w0_keys, w_keys, pull_keys)]))
    got = _candidate_keys(inst, n, pi, w, block_rows, w0_keys, w_keys, chunk=97)
    assert got.dtype == np.uint32 and want.size > 100
    assert np.array_equal(got.astype(np.int64), want)


def test_sorted_union_equals_unique_of_everything() -> None:
    rng = np.random.default_rng(5)
    parts = [rng.integers(0, 5000, int(rng.integers(0, 800))) for _ in range(40)]
    for min_pending in (1, 100, 1 << 22):
        union = _SortedUnion(np.int64, min_pending=min_pending)
        for p in parts:
            union.add(p)
        assert np.array_equal(union.result(), np.unique(np.concatenate(parts)))
    assert _SortedUnion(np.uint32).result().size == 0


@pytest.mark.parametrize("max_instances", [1, 5, 60, 10**6])
def test_key_chunks_cut_a_piece_at_a_time_equal_one_running_bound(max_instances: int) -> None:
    inst, n, w, pi = random_round(4)
    keys = _candidate_keys(inst, n, pi, w, 4096, _keys(w)[0]).astype(np.int64)
    want = old_key_chunks(inst, keys, max_instances)
    assert len(want) > 1 or max_instances == 10**6
    for piece in (1, 2, 13, 1 << 22):
        assert inst.key_chunks(keys, max_instances, piece=piece) == want


@pytest.mark.parametrize("seed", range(2))
def test_global_step_is_the_same_for_any_block_and_chunk_size(seed: int) -> None:
    graphs = [TypedGraph(name, nodes, sp.csr_matrix(m)) for name, nodes, m in tiny_graphs(seed + 30)]
    want = global_step(graphs, GlobalParams(), top_k=3)
    for params in (GlobalParams(block_rows=1, max_instances=1), GlobalParams(block_rows=3, max_instances=7)):
        for a, b in zip(global_step(graphs, params, top_k=3), want):
            assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            assert np.array_equal(a.data, b.data)


@pytest.mark.parametrize("block_edges", [1, 37, 1 << 20])
def test_top_k_edges_pruned_a_block_of_rows_at_a_time_equal_one_prune_of_everything(block_edges: int) -> None:
    rng = np.random.default_rng(7)
    rows = rng.integers(0, 60, 3000).astype(np.int32)
    cols = rng.integers(0, 60, 3000).astype(np.int32)
    keys = np.unique(rows.astype(np.int64) * 60 + cols, return_index=True)[1]  # edges do not repeat
    rows, cols = rows[np.sort(keys)], cols[np.sort(keys)]
    vals = rng.integers(0, 8, rows.size) / 8  # many ties at the top_k-th score
    want = select_edges(rows, cols, vals, top_k=5, min_score=0.25, by_row=True)
    acc = TopKEdges(5, 0.25, min_pending=40, block_edges=block_edges)  # compacted many times
    for part in np.array_split(np.arange(rows.size), 23):
        acc.add(rows[part], cols[part], vals[part])
    got = acc.result()
    assert want[0].size > 200
    for a, b in zip(got, want):  # the same edges in the same order, of the same types
        assert a.dtype == b.dtype and np.array_equal(a, b)
    empty = TopKEdges(5)
    empty.add(rows[:0], cols[:0], vals[:0])
    assert [x.dtype for x in empty.result()] == [np.int32, np.int32, np.float64]
