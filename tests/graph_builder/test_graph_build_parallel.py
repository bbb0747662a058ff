"""The faster build gives the same output: worker processes for counting and scoring, threads in the global
step, the sorted-key lookups, the self-edge insertion and row-ordered pruning each equal the plain path."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp

import graph_builder.graphs.build as build
from graph_builder.errors import InputError
from graph_builder.graphs.build import BuildParams, build_graphs, in_order
from graph_builder.graphs.counts import COUNT_COLUMNS, partial_counts
from graph_builder.graphs.globalstep import GlobalParams, TypedGraph, _lookup, _lookups, global_step
from graph_builder.graphs.measures import TopKEdges, _with_self_edges, select_edges
from tests.graph_builder.graph_fixtures import random_specs, write_triples
from tests.graph_builder.test_graph_global import tiny_graphs
from tests.graph_builder.test_graph_spill import read_tree, write_tangled


def test_in_order_yields_every_result_in_input_order_from_worker_processes() -> None:
    items = [-5, 3, -1, 8, -2, 0, 7]
    got = list(in_order(abs, iter(items), 2, keep=lambda x: x * 10))
    assert got == [(x * 10, abs(x)) for x in items]
    assert list(in_order(abs, items, 1, keep=lambda x: x)) == [(x, abs(x)) for x in items]


def test_build_with_worker_processes_is_byte_identical_to_one_process(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    triples = write_tangled(tmp_path / "triples")
    one = build_graphs(triples, tmp_path / "one", BuildParams(workers=1, count_partition_rows=700), progress=False)
    monkeypatch.setattr(build, "PARALLEL_MIN_ROWS", 0)  # this small input would otherwise stay in one process
    two = build_graphs(triples, tmp_path / "two", BuildParams(workers=2, count_partition_rows=700), progress=False)
    assert one.edges == two.edges and one.per_graph == two.per_graph and one.edges["global"] > 0
    a, b = read_tree(tmp_path / "one"), read_tree(tmp_path / "two")
    assert a == b  # node lists, measure arrays and manifests, to the byte (workers are not recorded)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one", "triples", "two"]  # no spill folder left


def test_workers_must_be_positive() -> None:
    with pytest.raises(InputError, match="workers"):
        BuildParams(workers=0)
    with pytest.raises(InputError, match="workers"):
        GlobalParams(workers=0)


def test_partial_counts_survive_the_ipc_round_trip(tmp_path: Path) -> None:
    triples = write_triples(tmp_path / "triples", random_specs(3, n=2000))
    table = pq.read_table(next(triples.glob("part-*.parquet")), columns=COUNT_COLUMNS)
    want = partial_counts(table)
    got = build._from_ipc(build._counted_ipc(table))
    assert got.cells.num_rows == want.cells.num_rows > 0
    for a, b in ((got.cells, want.cells), (got.sentences, want.sentences)):
        keys = [(c, "ascending") for c in a.column_names]  # Arrow's grouping may order rows either way
        assert a.sort_by(keys).equals(b.sort_by(keys))


@pytest.mark.parametrize("seed", range(3))
def test_global_step_in_threads_equals_one_thread(seed: int) -> None:
    graphs = [TypedGraph(name, nodes, sp.csr_matrix(m)) for name, nodes, m in tiny_graphs(seed + 20)]
    for top_k in (None, 2):
        one = global_step(graphs, GlobalParams(max_instances=5), top_k)
        two = global_step(graphs, GlobalParams(max_instances=5, workers=2), top_k)
        assert sum(m.nnz for m in one) > len(graphs)
        for a, b in zip(one, two):
            assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            assert np.array_equal(a.data, b.data)


def test_sorted_lookups_equal_one_lookup_per_table() -> None:
    rng = np.random.default_rng(0)
    tables = []
    for size in (0, 1, 50, 400):
        keys = np.unique(rng.integers(0, 1000, size))
        tables.append((keys, rng.random(keys.size)))
    wanted = rng.integers(0, 1000, 300)  # unsorted, with repeats
    for got, (keys, vals) in zip(_lookups(wanted, *tables), tables):
        assert np.array_equal(got, _lookup(keys, vals, wanted))
    assert np.count_nonzero(_lookups(wanted, tables[-1])[0]) > 0


def old_with_self_edges(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, start: int,
                        stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lexsort of every edge that _with_self_edges replaced."""
    off = rows != cols
    diag = np.arange(start, stop, dtype=np.int64)
    rows, cols = np.concatenate([rows[off], diag]), np.concatenate([cols[off], diag])
    vals = np.concatenate([vals[off], np.ones(diag.size)])
    order = np.lexsort((cols, rows))
    return rows[order], cols[order], vals[order]


@pytest.mark.parametrize("shuffle", [False, True])
def test_self_edges_inserted_in_place_equal_a_full_sort(shuffle: bool) -> None:
    rng = np.random.default_rng(1)
    start, stop, n = 5, 17, 40  # columns run past the block, rows may lack edges or have a self-edge
    keys = np.unique(rng.integers(start * n, stop * n, 150))
    rows, cols = keys // n, keys % n
    vals = rng.random(keys.size)
    if shuffle:
        order = rng.permutation(keys.size)
        rows, cols, vals = rows[order], cols[order], vals[order]
    got = _with_self_edges(rows, cols, vals, start, stop)
    want = old_with_self_edges(rows, cols, vals, start, stop)
    for x, y in zip(got, want):
        assert np.array_equal(x, y)
    assert got[2][got[0] == got[1]].tolist() == [1.0] * (stop - start)
    empty = _with_self_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), 3, 6)
    assert [x.tolist() for x in empty] == [[3, 4, 5], [3, 4, 5], [1.0, 1.0, 1.0]]


def test_select_edges_by_row_orders_rows_and_keeps_the_same_edges() -> None:
    rng = np.random.default_rng(2)
    keys = rng.permutation(np.unique(rng.integers(0, 30 * 50, 700)))
    rows, cols = keys // 50, keys % 50
    vals = rng.integers(0, 5, keys.size) / 4.0  # ties
    for top_k, min_score in ((None, 0.0), (3, 0.0), (10, 0.5)):
        plain = select_edges(rows, cols, vals, top_k, min_score)
        ordered = select_edges(rows, cols, vals, top_k, min_score, by_row=True)
        assert set(zip(*(x.tolist() for x in plain))) == set(zip(*(x.tolist() for x in ordered)))
        assert (np.diff(ordered[0]) >= 0).all()
        acc = TopKEdges(top_k, min_score, min_pending=40)
        for part in np.array_split(np.arange(keys.size), 11):
            acc.add(rows[part], cols[part], vals[part])
        assert set(zip(*(x.tolist() for x in acc.result()))) == set(zip(*(x.tolist() for x in plain)))


def test_graph_counts_handed_to_a_worker_read_back_equal(tmp_path: Path) -> None:
    triples = write_tangled(tmp_path / "triples")
    with build.spilled_counts(triples, tmp_path, BuildParams()) as (spill, _):
        graphs = list(spill.graphs())
    assert graphs and any(g.co_extracted is not None and g.co_extracted[0].size for g in graphs)
    for i, gc in enumerate(graphs):
        build.save_graph_counts(gc, tmp_path / f"g{i}")
        got = build.load_graph_counts(tmp_path / f"g{i}")
        assert (got.name, got.types, got.nodes, got.stats) == (gc.name, gc.types, gc.nodes, gc.stats)
        for x, y in ((got.matrix, gc.matrix), (got.clean, gc.clean)):
            assert x.shape == y.shape and x.dtype == y.dtype
            assert np.array_equal(x.indptr, y.indptr) and np.array_equal(x.indices, y.indices)
            assert np.array_equal(x.data, y.data)
        assert all(np.array_equal(u, v) for u, v in zip(got.co_extracted, gc.co_extracted))
