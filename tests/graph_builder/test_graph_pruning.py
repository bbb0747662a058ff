"""Pruning (top-k neighbours by (-score, id), min score) as build parameters; float32 artefacts; old float64 ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson
import pytest
import typer
from typer.testing import CliRunner

from graph_builder.errors import InputError
from graph_builder.graphs.build import DEFAULT_MIN_SCORE, DEFAULT_TOP_K, BuildParams, build_graphs
from graph_builder.graphs.graphset import GraphSet, Query
from graph_builder.graphs.measures import TopKEdges, select_edges
from service.commands import graph as graph_cmd
from tests.graph_builder.graph_fixtures import random_specs, write_triples

LOCAL = ("binc", "weeds", "lin", "cos", "binc_clean")
# A graph set written by egqa 8da79e7 (float64 scores), from OLD_SPECS with cutoffs 2/2 and no pruning.
OLD_BUILD = Path(__file__).resolve().parents[1] / "data" / "graphs" / "built-float64"
OLD_SPECS = [s for s in random_specs(5, n=900, n_preds=8, n_ents=8) if "organization" not in (s[1], s[4])]


def naive_select(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, top_k: int | None,
                 min_score: float) -> set[tuple[int, int, float]]:
    """Self-edges, plus per row the top_k edges scoring >= min_score by (-score, column)."""
    kept = {(int(r), int(c), float(v)) for r, c, v in zip(rows, cols, vals) if r == c}
    by_row: dict[int, list[tuple[float, int]]] = {}
    for r, c, v in zip(rows.tolist(), cols.tolist(), vals.tolist()):
        if r != c and v >= min_score:
            by_row.setdefault(r, []).append((-v, c))
    for r, edges in by_row.items():
        kept |= {(r, c, -v) for v, c in sorted(edges)[:top_k]}
    return kept


@pytest.mark.parametrize("seed", range(6))
def test_select_edges_and_top_k_edges_match_a_full_sort(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = 600
    rows, cols = rng.integers(0, 12, m), rng.integers(0, 40, m)
    _, first = np.unique(rows * 40 + cols, return_index=True)  # one edge per (row, column)
    rows, cols = rows[first], cols[first]
    order = rng.permutation(rows.size)  # any input order
    rows, cols = rows[order], cols[order]
    vals = rng.integers(0, 6, rows.size) / 5.0  # many ties, so the column decides
    for top_k, min_score in ((None, 0.0), (1, 0.0), (3, 0.4), (7, 0.0), (100, 0.2)):
        expected = naive_select(rows, cols, vals, top_k, min_score)
        got = select_edges(rows, cols, vals, top_k, min_score)
        assert set(zip(*(x.tolist() for x in got))) == expected
        acc = TopKEdges(top_k, min_score, min_pending=50)  # pruned many times along the way
        for part in np.array_split(np.arange(rows.size), 9):
            acc.add(rows[part], cols[part], vals[part])
        assert set(zip(*(x.tolist() for x in acc.result()))) == expected


@pytest.fixture(scope="module")
def unpruned_and_pruned(tmp_path_factory: pytest.TempPathFactory) -> tuple[GraphSet, GraphSet, GraphSet]:
    root = tmp_path_factory.mktemp("pruning")
    triples = write_triples(root / "triples", random_specs(3, n=5000, n_preds=40, n_ents=25))
    measures = (*LOCAL, "global")
    build_graphs(triples, root / "all", BuildParams(top_k=None, min_score=0.0, measures=measures), progress=False)
    # Small blocks: a build's pruning must not depend on where the row blocks fall.
    build_graphs(triples, root / "k3", BuildParams(top_k=3, min_score=0.05, measures=measures, block_rows=5),
                 progress=False)
    build_graphs(triples, root / "default", BuildParams(measures=measures), progress=False)
    return GraphSet.load(root / "all"), GraphSet.load(root / "k3"), GraphSet.load(root / "default")


def _edges(gs: GraphSet, graph: str, measure: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m = gs.graphs[graph].csr(measure).tocoo()
    return m.row.astype(np.int64), m.col.astype(np.int64), np.asarray(m.data)


def test_pruned_build_is_the_unpruned_build_cut_to_each_rows_top_k(
        unpruned_and_pruned: tuple[GraphSet, GraphSet, GraphSet]) -> None:
    full, pruned, _ = unpruned_and_pruned
    cut_ties = dropped = 0
    for name in full.graphs:
        for measure in LOCAL:
            rows, cols, vals = _edges(full, name, measure)
            got = set(zip(*(x.tolist() for x in _edges(pruned, name, measure))))
            assert got == naive_select(rows, cols, vals, 3, 0.05), (name, measure)
            dropped += int(rows.size) - len(got)
            for r in np.unique(rows):  # rows where the 3rd and 4th best tie: the column decided
                ranked = np.sort(vals[(rows == r) & (cols != r) & (vals >= 0.05)])[::-1]
                cut_ties += int(ranked.size > 3 and ranked[2] == ranked[3])
    assert dropped > 1000 and cut_ties > 10  # the input exercises both the cut and its tie-break
    # global.v1 keeps top_k in every round (the published "max rank" in the iterations), then the min score.
    for graph in pruned.graphs.values():
        g = graph.csr("global")
        off = g.tocoo()
        off_vals = off.data[off.row != off.col]
        assert np.diff(g.indptr).max() <= 4 and (off_vals.min() >= 0.05 if off_vals.size else True)


def test_defaults_prune_and_are_recorded_in_every_manifest(
        unpruned_and_pruned: tuple[GraphSet, GraphSet, GraphSet]) -> None:
    full, _, default = unpruned_and_pruned
    assert (DEFAULT_TOP_K, DEFAULT_MIN_SCORE) == (100, 0.01)
    assert BuildParams().top_k == 100 and BuildParams().min_score == 0.01
    for gs, k, m in ((default, 100, 0.01), (full, None, 0.0)):
        assert (gs.manifest["parameters"]["top_k"], gs.manifest["parameters"]["min_score"]) == (k, m)
        for graph in gs.graphs.values():
            assert (graph.manifest["parameters"]["top_k"], graph.manifest["parameters"]["min_score"]) == (k, m)
    # Graphs of < 100 nodes: the default cut is the min score alone.
    for name in full.graphs:
        rows, cols, vals = _edges(full, name, "binc")
        assert set(zip(*(x.tolist() for x in _edges(default, name, "binc")))) == \
            naive_select(rows, cols, vals, 100, 0.01)
    assert sum(full.manifest["totals"]["edges"].values()) > sum(default.manifest["totals"]["edges"].values())


def test_scores_are_stored_as_float32(unpruned_and_pruned: tuple[GraphSet, GraphSet, GraphSet]) -> None:
    for graph in unpruned_and_pruned[0].graphs.values():
        for measure, (data, indices, indptr) in graph.matrices.items():
            assert (data.dtype, indices.dtype, indptr.dtype) == (np.float32, np.int32, np.int64)
            assert graph.manifest["measures"][measure]["dtype"] == "float32"
            assert data.nbytes + indices.nbytes == 8 * data.size


def test_float64_artefacts_of_earlier_builds_still_load(tmp_path: Path) -> None:
    old = GraphSet.load(OLD_BUILD)  # checksums verified
    assert all(data.dtype == np.float64 for g in old.graphs.values() for data, _, _ in g.matrices.values())
    measures = ("binc", "binc_clean", "global")
    write_triples(tmp_path / "t", OLD_SPECS, shards=1)
    build_graphs(tmp_path / "t", tmp_path / "g", BuildParams(min_predicates_per_pair=2, min_pairs_per_predicate=2,
                                                             measures=measures, top_k=None, min_score=0.0),
                 progress=False)
    new = GraphSet.load(tmp_path / "g")
    assert sorted(new.graphs) == sorted(old.graphs) == ["location#location", "location#person", "person#person"]
    queries = []
    for name, graph in old.graphs.items():
        assert new.graphs[name].nodes == graph.nodes
        for measure in measures:
            # The same edges; a new build's score is the old float64 score rounded to float32.
            assert (new.graphs[name].csr(measure) != graph.csr(measure).astype(np.float32)).nnz == 0
        a, b = name.split("#")
        preds = sorted({node.rsplit("#", 2)[0] for node in graph.nodes})
        queries += [Query(p, h, (a, b)) for p in preds for h in preds]
    for measure in measures:
        was, now = old.score_batch(queries, measure).scores, new.score_batch(queries, measure).scores
        assert was.dtype == now.dtype == np.float64 and np.count_nonzero(was) > 100
        np.testing.assert_allclose(now, was, rtol=1e-7, atol=0)
    q = next(q for q, s in zip(queries, old.score_batch(queries, "binc").scores) if 0 < s < 1)
    was_n, now_n = old.neighbours(q.premise, q.types, "binc"), new.neighbours(q.premise, q.types, "binc")
    assert [n for n, _ in was_n] == [n for n, _ in now_n] and len(was_n) > 1
    np.testing.assert_allclose([s for _, s in now_n], [s for _, s in was_n], rtol=1e-7, atol=0)


def test_cli_top_k_0_and_min_score_0_build_the_unpruned_graphs(tmp_path: Path) -> None:
    app = typer.Typer()
    app.add_typer(graph_cmd.graph_app, name="graph")
    triples = write_triples(tmp_path / "t", random_specs(7, n=3000))
    for args, k, m in (([], 100, 0.01), (["--top-k", "0", "--min-score", "0"], None, 0.0),
                       (["--top-k", "5"], 5, 0.01)):
        out = tmp_path / f"g{len(args)}"
        result = CliRunner().invoke(app, ["graph", "build", str(triples), "--out", str(out), *args])
        assert result.exit_code == 0, result.output
        params = orjson.loads((out / "manifest.json").read_bytes())["parameters"]
        assert (params["top_k"], params["min_score"]) == (k, m)
    bad = CliRunner().invoke(app, ["graph", "build", str(triples), "--out", str(tmp_path / "x"), "--top-k", "-1"])
    assert bad.exit_code == 2
    assert "Invalid value for '--top-k'" in bad.output
    with pytest.raises(InputError, match="min_score"):
        BuildParams(min_score=-0.1)
