"""The untyped set (`egqa graph build --untyped`) and the `+untyped` scorers that back off to it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson
import pytest
from typer.testing import CliRunner

from graph_builder.errors import InputError
from graph_builder.graphs.build import BuildParams, build_graphs
from graph_builder.graphs.counts import UNTYPED
from graph_builder.graphs.graphset import GraphSet, Query
from graph_builder.graphs.scorers import NO_MATCH, UNTYPED_MATCH, PairBatch, build_scorers
from service.cli import app as egqa
from tests.graph_builder.graph_fixtures import random_specs, write_triples

MARRY, WED = "(marry.1,marry.2)", "(wed.1,wed.2)"
COMMON = ("(meet.1,meet.2)", "(call.1,call.2)", "(know.1,know.2)")
VISIT, SEE = "(visit.1,visit.2)", "(see.1,see.2)"


def spread_specs() -> list[tuple[str, str, str, str, str]]:
    """Three predicates every pair shares, under person#organization and person#location; `marry` and `wed` with
    two pairs under each of those type pairs: too few for either typed graph (3 pairs per predicate), four together;
    `visit` (3 pairs) and `see` (4) under person#location only: a typed edge."""
    specs = []
    for k in range(6):
        for other, kind in ((f"org{k}", "organization"), (f"city{k}", "location")):
            specs += [(f"person{k}", "person", p, other, kind) for p in COMMON]
            if k < 2:
                specs += [(f"person{k}", "person", MARRY, other, kind), (f"person{k}", "person", WED, other, kind)]
        specs += [(f"person{k}", "person", VISIT, f"city{k}", "location")] if k < 3 else []
        specs += [(f"person{k}", "person", SEE, f"city{k}", "location")] if k < 4 else []
    return specs


@pytest.fixture(scope="module")
def spread(tmp_path_factory: pytest.TempPathFactory) -> GraphSet:
    root = tmp_path_factory.mktemp("untyped")
    triples = write_triples(root / "triples", spread_specs())
    build_graphs(triples, root / "graphs", BuildParams(top_k=None, min_score=0.0, measures=("binc",)),
                 progress=False, with_untyped=True)
    return GraphSet.load(root / "graphs")


def test_the_untyped_set_counts_every_pair_together(spread: GraphSet) -> None:
    assert spread.untyped is not None
    assert sorted(spread.untyped.graphs) == [f"{UNTYPED}#{UNTYPED}"]
    typed_nodes = {n.split("#")[0] for g in spread.graphs.values() for n in g.nodes}
    untyped_nodes = {n.split("#")[0] for n in spread.untyped.graphs[f"{UNTYPED}#{UNTYPED}"].nodes}
    assert MARRY not in typed_nodes and WED not in typed_nodes
    assert {MARRY, WED, *COMMON} <= untyped_nodes
    assert spread.untyped.manifest["parameters"]["untyped"] is True
    assert spread.manifest["parameters"]["untyped"] is False


def test_untyped_backoff_scores_only_what_the_typed_graphs_leave(spread: GraphSet) -> None:
    scorers = build_scorers(spread)
    queries = [Query(MARRY, WED, ("person", "organization")),  # neither predicate in a typed graph
               Query(VISIT, SEE, ("person", "location"))]  # a typed edge
    plain = PairBatch(queries).scored(scorers["binc"])
    backed = PairBatch(queries).scored(scorers["binc+untyped"])
    assert plain.matches[0] == NO_MATCH and plain.scores[0] == 0
    assert spread.untyped is not None
    expected = spread.untyped.score(MARRY, WED, (UNTYPED, UNTYPED), "binc")
    assert expected > 0
    assert backed.matches[0] == UNTYPED_MATCH and backed.grounded[0]
    assert backed.scores[0] == pytest.approx(expected)
    # The typed edge keeps its typed score and match.
    assert plain.matches[1] == backed.matches[1] == "typed"
    assert backed.scores[1] == plain.scores[1] > 0


def test_a_pair_scored_0_on_purpose_is_not_backed_off(spread: GraphSet) -> None:
    # The hypothesis' own predicate with its arguments swapped: 0 under every graph scorer, untyped or not.
    query = Query(WED, WED, ("person", "organization"), premise_reversed=True)
    backed = PairBatch([query]).scored(build_scorers(spread)["binc+untyped"])
    assert backed.matches == ["reversed"] and backed.scores[0] == 0


def test_the_untyped_graph_equals_a_build_of_the_same_triples_typed_alike(tmp_path: Path) -> None:
    specs = random_specs(5, n=1500)
    params = BuildParams(top_k=None, min_score=0.0, measures=("binc", "binc_clean"))
    build_graphs(write_triples(tmp_path / "t", specs), tmp_path / "g", params, progress=False, with_untyped=True)
    # The naive reference: the same triples written with one type, built as any typed set.
    alike = [(s, UNTYPED, p, o, UNTYPED) for s, _, p, o, _ in specs]
    build_graphs(write_triples(tmp_path / "t1", alike), tmp_path / "g1", params, progress=False)
    untyped, reference = GraphSet.load(tmp_path / "g" / "untyped"), GraphSet.load(tmp_path / "g1")
    name = f"{UNTYPED}#{UNTYPED}"
    assert untyped.graphs[name].nodes == reference.graphs[name].nodes
    for measure in ("binc", "binc_clean"):
        for a, b in zip(untyped.graphs[name].matrices[measure], reference.graphs[name].matrices[measure]):
            assert np.array_equal(np.asarray(a), np.asarray(b))


def test_without_an_untyped_set_the_scorer_says_how_to_build_one(tmp_path: Path) -> None:
    build_graphs(write_triples(tmp_path / "t", spread_specs()), tmp_path / "g",
                 BuildParams(top_k=None, min_score=0.0, measures=("binc",)), progress=False)
    scorers = build_scorers(GraphSet.load(tmp_path / "g"))
    assert "binc+untyped" not in scorers
    with pytest.raises(InputError, match="--untyped"):
        scorers.check("binc+untyped")


def test_an_untyped_build_has_no_untyped_set_of_its_own(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no untyped set of its own"):
        build_graphs(write_triples(tmp_path / "t", spread_specs()), tmp_path / "g",
                     BuildParams(measures=("binc",), untyped=True), progress=False, with_untyped=True)


def test_the_build_command_writes_both_sets(tmp_path: Path) -> None:
    triples = write_triples(tmp_path / "t", spread_specs())
    result = CliRunner().invoke(egqa, ["graph", "build", str(triples), "--out", str(tmp_path / "g"), "--measures",
                                       "binc", "--untyped"])
    assert result.exit_code == 0, result.output
    assert f"graph set: {tmp_path / 'g'}\n" in result.output
    assert f"graph set: {tmp_path / 'g' / 'untyped'}\n" in result.output
    assert GraphSet.load(tmp_path / "g").untyped is not None


def test_a_build_over_a_set_names_the_option_that_replaces_it(tmp_path: Path) -> None:
    triples = write_triples(tmp_path / "t", spread_specs())
    args = ["graph", "build", str(triples), "--out", str(tmp_path / "g"), "--measures", "binc"]
    assert CliRunner().invoke(egqa, args).exit_code == 0
    again = CliRunner().invoke(egqa, args)
    assert again.exit_code != 0 and "pass --overwrite to replace it" in again.output
    assert CliRunner().invoke(egqa, [*args, "--overwrite", "--untyped"]).exit_code == 0


def test_the_untyped_set_is_the_same_counted_on_a_dask_scheduler(tmp_path: Path) -> None:
    from dask.distributed import LocalCluster

    triples = write_triples(tmp_path / "t", random_specs(9, n=1200), shards=3)
    params = BuildParams(measures=("binc", "binc_clean"))
    build_graphs(triples, tmp_path / "local", params, progress=False, with_untyped=True)
    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        build_graphs(triples, tmp_path / "dask", params, scheduler=cluster.scheduler_address, progress=False,
                     with_untyped=True)
    for folder in ("", "untyped"):
        local = orjson.loads((tmp_path / "local" / folder / "manifest.json").read_bytes())
        dask = orjson.loads((tmp_path / "dask" / folder / "manifest.json").read_bytes())
        assert dask["graphs"] == local["graphs"] and dask["totals"] == local["totals"]  # every graph's checksum


def test_a_measure_the_untyped_set_lacks_is_unavailable_with_its_reason(tmp_path: Path) -> None:
    triples = write_triples(tmp_path / "t", spread_specs())
    build_graphs(triples, tmp_path / "g", BuildParams(top_k=None, min_score=0.0, measures=("binc", "binc_clean")),
                 progress=False)
    build_graphs(triples, tmp_path / "g" / "untyped", BuildParams(measures=("binc",), untyped=True), progress=False)
    scorers = build_scorers(GraphSet.load(tmp_path / "g"))
    assert "binc+untyped" in scorers and "binc_clean+untyped" not in scorers
    with pytest.raises(InputError, match="the untyped set has no 'binc_clean' measure"):
        scorers.check("binc_clean+untyped")
