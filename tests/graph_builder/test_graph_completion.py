"""Link prediction before the local measures (`_lp` measures), checked against a dense reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from typer.testing import CliRunner

from graph_builder.errors import InputError
from graph_builder.graphs.build import BuildParams, build_graphs, spilled_counts
from graph_builder.graphs.completion import COMPLETION_VERSION, CompletionParams, complete_counts, predicted_cells
from graph_builder.graphs.graphset import GraphSet
from graph_builder.graphs.measures import MEASURE_VERSIONS, measure_matrix, split_measure
from graph_builder.triples import write_shard
from service.cli import app as egqa
from tests.graph_builder.graph_fixtures import random_specs, triple_rows


def random_counts(seed: int, n: int = 30, m: int = 40, density: float = 0.15) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    dense = (rng.random((n, m)) < density) * rng.integers(1, 5, size=(n, m))
    return sp.csr_matrix(dense.astype(np.float64))


def naive_predicted(counts: sp.csr_matrix, params: CompletionParams) -> dict[tuple[int, int], float]:
    """Dense reference: full SVD of log(1 + counts), cut to the rank; per row the best cells it lacks."""
    dense = np.log1p(counts.toarray())
    u, s, vt = np.linalg.svd(dense, full_matrices=False)
    k = min(params.rank, min(dense.shape) - 1)
    while 0 < k < len(s) - 1 and s[k - 1] - s[k] <= 1e-6 * s[0]:
        k -= 1
    recon = np.round((u[:, :k] * s[:k]) @ vt[:k], 9)
    out = {}
    for i in range(dense.shape[0]):
        lacking = [j for j in range(dense.shape[1]) if dense[i, j] == 0]
        quota = int(min(params.max_per_row, np.ceil(params.per_row * (dense.shape[1] - len(lacking)))))
        best = sorted((j for j in lacking if recon[i, j] >= params.min_value), key=lambda j: (-recon[i, j], j))[:quota]
        out.update({(i, j): min(1.0, float(np.expm1(recon[i, j]))) for j in best})
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("params", [CompletionParams(rank=5, per_row=1.0, max_per_row=50, min_value=0.2),
                                    CompletionParams(rank=3, per_row=2.5, max_per_row=4, min_value=0.05)])
def test_predicted_cells_match_a_dense_reference(seed: int, params: CompletionParams) -> None:
    counts = random_counts(seed)
    got = predicted_cells(counts, params).tocoo()
    expected = naive_predicted(counts, params)
    assert {(int(r), int(c)) for r, c in zip(got.row, got.col)} == set(expected)
    for r, c, v in zip(got.row, got.col, got.data):
        assert v == pytest.approx(expected[(int(r), int(c))], rel=1e-6, abs=1e-9)


def test_prediction_adds_only_cells_a_predicate_lacks_within_its_quota() -> None:
    counts = random_counts(4, n=60, m=80)
    params = CompletionParams(rank=8, per_row=0.5, max_per_row=3, min_value=0.01)
    added = predicted_cells(counts, params)
    assert added.multiply(counts).nnz == 0
    have = np.diff(counts.indptr)
    assert (np.diff(added.indptr) <= np.minimum(3, np.ceil(0.5 * have))).all()
    assert added.nnz and (added.data > 0).all() and (added.data <= 1.0).all()
    completed = complete_counts(counts, params)
    assert (completed - counts - added).count_nonzero() == 0
    # Deterministic: the factorisation starts from a fixed vector.
    assert (predicted_cells(counts, params) != added).nnz == 0


def test_link_prediction_joins_predicates_that_share_no_argument_pair() -> None:
    # p0 and p1 have the same neighbours' argument pairs but none of their own in common; p2..p5 state both.
    rows = {0: [0, 1, 2], 1: [3, 4, 5], 2: [0, 1, 2, 3, 4, 5], 3: [0, 1, 2, 3, 4, 5], 4: [0, 2, 4], 5: [1, 3, 5]}
    dense = np.zeros((6, 6))
    for r, cols in rows.items():
        dense[r, cols] = 1
    counts = sp.csr_matrix(dense)
    assert measure_matrix(counts, "binc")[0, 1] == 0
    completed = complete_counts(counts, CompletionParams(rank=2, per_row=1.0, min_value=0.05))
    assert measure_matrix(completed, "binc")[0, 1] > 0


def test_small_or_empty_graphs_get_nothing_added() -> None:
    assert predicted_cells(sp.csr_matrix((3, 1)), CompletionParams()).nnz == 0
    assert predicted_cells(sp.csr_matrix(np.ones((1, 4))), CompletionParams()).nnz == 0


@pytest.mark.parametrize("bad", [{"rank": 0}, {"per_row": 0.0}, {"max_per_row": 0}, {"min_value": 0.0}])
def test_bad_completion_parameters_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(InputError):
        CompletionParams(**bad)  # type: ignore[arg-type]


def test_measure_names_split_into_formula_and_counts() -> None:
    assert split_measure("binc_clean_lp") == ("binc", "_clean_lp")
    assert split_measure("cos_lp") == ("cos", "_lp")
    assert split_measure("binc_clean") == ("binc", "_clean")
    assert split_measure("global") == ("global", "")
    assert MEASURE_VERSIONS["binc_lp"] == "binc.lp.v1" and MEASURE_VERSIONS["binc_clean_lp"] == "binc.clean.lp.v1"


def test_build_writes_lp_measures_computed_on_completed_counts(tmp_path: Path) -> None:
    rows = triple_rows(random_specs(5, n=2500))
    (tmp_path / "triples").mkdir()
    write_shard(rows, tmp_path / "triples" / "part-00000.parquet")
    params = BuildParams(measures=("binc", "binc_lp", "binc_clean_lp"), top_k=None, min_score=0.0,
                         completion=CompletionParams(rank=4, per_row=2.0, max_per_row=10, min_value=0.05))
    build_graphs(tmp_path / "triples", tmp_path / "graphs", params, progress=False)
    gs = GraphSet.load(tmp_path / "graphs")
    assert gs.manifest["measures"]["binc_lp"] == "binc.lp.v1"
    assert gs.manifest["parameters"]["completion"] == {"version": COMPLETION_VERSION, "rank": 4, "per_row": 2.0,
                                                       "max_per_row": 10, "min_value": 0.05}
    added = 0
    with spilled_counts(tmp_path / "triples", tmp_path / "work", params, progress=False) as (spill, _):
        for gc in spill.graphs():
            graph = gs.graphs[gc.name]
            expected = measure_matrix(complete_counts(gc.matrix, params.completion), "binc")
            got = graph.csr("binc_lp")
            # Same edges; scores equal up to float32 storage (fractional counts summed in another order).
            assert (got != 0).astype(int).sum() == (expected != 0).astype(int).sum()
            assert abs(got - expected.astype(np.float32)).max() < 1e-6
            added += got.nnz - graph.csr("binc").nnz
    assert added > 0


def test_cli_builds_lp_measures_and_refuses_a_bad_rank(tmp_path: Path) -> None:
    (tmp_path / "triples").mkdir()
    write_shard(triple_rows(random_specs(6, n=1500)), tmp_path / "triples" / "part-00000.parquet")
    bad = CliRunner().invoke(egqa, ["graph", "build", str(tmp_path / "triples"), "--out", str(tmp_path / "g"),
                                    "--measures", "binc,binc_lp", "--lp-rank", "0"])
    assert bad.exit_code == 2 and "--lp-rank" in bad.output + bad.stderr
    ok = CliRunner().invoke(egqa, ["graph", "build", str(tmp_path / "triples"), "--out", str(tmp_path / "g"),
                                   "--measures", "binc,binc_lp", "--lp-rank", "3", "--lp-per-row", "2"])
    assert ok.exit_code == 0, ok.output
    recorded = GraphSet.load(tmp_path / "g").manifest["parameters"]["completion"]
    assert recorded["rank"] == 3 and recorded["per_row"] == 2.0
