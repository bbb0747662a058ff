"""A build holding the published and the clean measures and global.v1 side by side; `graph top`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson
import pyarrow as pa
import pytest
import typer
from typer.testing import CliRunner

from graph_builder.errors import InputError
from graph_builder.graphs.build import CLEANING, BuildParams, build_graphs, count_triples
from graph_builder.graphs.counts import CountParams, count_matrices, negation_partners
from graph_builder.graphs.globalstep import GlobalParams, TypedGraph, global_step
from graph_builder.graphs.graphset import GraphSet, strongest_edges
from graph_builder.graphs.measures import measure_matrix
from graph_builder.triples import write_shard
from service.cli import app as egqa
from service.commands import graph as graph_cmd
from tests.graph_builder.graph_fixtures import random_specs, triple_rows


def write_with_repeats(folder: Path) -> Path:
    """Random triples; every 3rd row repeats an earlier sentence word for word in the other shard."""
    rows = triple_rows(random_specs(11, n=3000))
    for k in range(0, len(rows), 3):
        rows.append({**rows[k], "triple_id": f"r{k:07d}", "article_id": f"update{k}"})
    folder.mkdir(parents=True)
    half = len(rows) // 2
    write_shard(rows[:half], folder / "part-00000.parquet")
    write_shard(rows[half:], folder / "part-00001.parquet")
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("clean")
    triples = write_with_repeats(root / "triples")
    build_graphs(triples, root / "graphs", BuildParams(top_k=6, min_score=0.0), progress=False)
    return triples, root / "graphs"


def test_repeated_sentences_count_once_across_shards(built: tuple[Path, Path]) -> None:
    counts, n = count_triples(built[0], progress=False)
    assert n == 4000
    graphs = count_matrices(counts, CountParams(3, 3))
    assert sum(int(g.matrix.sum()) for g in graphs) > sum(int(g.clean.sum()) for g in graphs)
    # Without the repeats, the clean counts are the published counts of the original rows.
    original = pa.Table.from_pylist(triple_rows(random_specs(11, n=3000)))
    from graph_builder.graphs.counts import partial_counts
    plain = count_matrices(partial_counts(original), CountParams(3, 3))
    # Original rows repeat (s, p, o) and thus the sentence text too, so compare distinct sentences.
    for a, b in zip(graphs, plain):
        assert a.nodes == b.nodes
        assert (a.clean != b.clean).nnz == 0


def test_build_holds_plain_clean_and_global_with_their_choices(built: tuple[Path, Path]) -> None:
    triples, out = built
    gs = GraphSet.load(out)
    assert gs.measures == ["binc", "binc_clean", "cos", "global", "lin", "weeds"]
    assert gs.manifest["measures"]["global"] == "global.v1"
    assert gs.manifest["measures"]["binc_clean"] == "binc.clean.v1"
    params = gs.manifest["parameters"]
    assert params["cleaning"] == CLEANING and params["top_k"] == 6
    assert params["global_step"] == {"lambda1": 0.01, "lambda2": 1.5, "epsilon": 0.3, "iterations": 4,
                                     "cross_graph_weight": 1.0, "base": "binc_clean", "version": "global.v1"}
    counts, _ = count_triples(triples, progress=False)
    graphs = count_matrices(counts, CountParams(3, 3))
    base = []
    for gc in graphs:
        graph = gs.graphs[gc.name]
        assert graph.manifest["counts"]["clean_total_count"] < graph.manifest["counts"]["total_count"]
        expected = measure_matrix(gc.clean, "binc_clean", top_k=6, excluded=gc.co_extracted,
                                  partner=negation_partners(gc.nodes))
        assert (graph.csr("binc_clean") != expected.astype(np.float32)).nnz == 0  # stored as float32
        assert np.diff(graph.csr("global").indptr).max() <= 7  # top 6 and the self-edge
        base.append(TypedGraph(gc.name, gc.nodes, expected, negation_partners(gc.nodes)))
    for gc, g in zip(graphs, global_step(base, GlobalParams(), top_k=6)):
        assert (gs.graphs[gc.name].csr("global") != g.astype(np.float32)).nnz == 0


def test_global_needs_its_base_measure() -> None:
    with pytest.raises(InputError, match="binc_clean"):
        BuildParams(measures=("binc", "global"))


def test_top_lists_the_strongest_edges_without_self_edges(built: tuple[Path, Path]) -> None:
    gs = GraphSet.load(built[1])
    brute = []
    for name, graph in gs.graphs.items():
        m = graph.csr("binc").tocoo()
        brute += [(-v, -min(graph.counts[r], graph.counts[c]), name, graph.nodes[r], graph.nodes[c])
                  for r, c, v in zip(m.row, m.col, m.data) if r != c]
    by_support = sorted(brute)
    edges = strongest_edges(gs, "binc", 15)
    assert [(-e["score"], -e["support"], e["graph"], e["premise"], e["hypothesis"]) for e in edges] == by_support[:15]
    by_name = sorted((b[0], b[2], b[3], b[4]) for b in brute)
    named = strongest_edges(gs, "binc", 15, ties="name")
    assert [(-e["score"], e["graph"], e["premise"], e["hypothesis"]) for e in named] == by_name[:15]
    with pytest.raises(InputError, match="ties"):
        strongest_edges(gs, "binc", 5, ties="random")
    first = edges[0]
    rev = gs.graphs[first["graph"]]
    i, j = rev.index[first["premise"]], rev.index[first["hypothesis"]]
    assert first["reverse"] == rev.csr("binc")[j, i]
    result = CliRunner().invoke(egqa, ["graph", "top", str(built[1]), "--measure", "global", "-n", "5", "--json"])
    assert result.exit_code == 0, result.output
    listed = orjson.loads(result.output)
    assert len(listed) == 5 and all(e["premise"] != e["hypothesis"] for e in listed)
    assert [e["score"] for e in listed] == sorted((e["score"] for e in listed), reverse=True)
    bad = CliRunner().invoke(egqa, ["graph", "top", str(built[1]), "--measure", "nope"])
    assert bad.exit_code == 2
    assert bad.stderr.startswith("error: ") and "available" in bad.stderr


def test_levyholt_scores_every_measure_of_the_set_side_by_side(built: tuple[Path, Path], tmp_path: Path) -> None:
    from benchmark.levyholt import evaluate_levyholt, format_side_by_side

    gs = GraphSet.load(built[1])
    graph = gs.graphs["location#person"]
    strong = strongest_edges(gs, "binc_clean", 40)
    lines = []
    for e in (x for x in strong if x["graph"] == "location#person"):
        p, h = e["premise"].split("#")[0], e["hypothesis"].split("#")[0]
        t1, t2 = e["premise"].split("#")[1:]
        lines.append(f"{h} a::{t1} b::{t2}\t{p} a::{t1} b::{t2}\tTrue")
        lines.append(f"{p} a::{t1} b::{t2}\t{h} a::{t1} b::{t2}\tFalse")
    assert len(lines) >= 4 and graph.nodes
    for name in ("dev", "dev_dir"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}_rels.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = evaluate_levyholt(gs, tmp_path, ("rels",), tmp_path / "pr.png")
    acts = [f"{m}+act" for m in gs.measures]
    offered = [*gs.measures, "exact", *acts, *(f"{m}+dir" for m in [*gs.measures, *acts])]
    assert {(r["set"], r["measure"]) for r in rows} == {(s, m) for s in ("dev", "dev_dir") for m in offered}
    by = {(r["set"], r["measure"]): r for r in rows}
    assert by[("dev", "binc_clean")]["coverage"] >= 0.5  # every True pair is an edge of the set
    table = format_side_by_side(rows).splitlines()
    assert "dev" in table[0] and "dev_dir" in table[0]
    assert [line.split()[0] for line in table[3:]] == offered


def test_edge_stats_count_both_way_ones_and_negation_edges(tmp_path: Path) -> None:
    from graph_builder.graphs.artefacts import write_graph, write_graphset
    from graph_builder.graphs.graphset import edge_stats
    import scipy.sparse as sp

    nodes = ["(a.1,a.2)#location#person", "(b.1,b.2)#location#person", "NEG__(a.1,a.2)#location#person"]
    m = sp.csr_matrix(np.array([[1, 1.0, 0.5], [1.0, 1, 0], [0.9, 1.0, 1]]))
    manifest = write_graph(tmp_path / "location#person", "location#person", nodes, [3, 3, 3], {"binc": m},
                           {"binc": "binc.v1"}, {}, {}, {})
    write_graphset(tmp_path, [manifest], "built", {}, {}, "triples")
    stats = edge_stats(GraphSet.load(tmp_path), "binc")
    # a <-> b at 1.0 both ways (one pair; NEG a -> b is 1.0 one way only); a <-> NEG a: two edges.
    assert stats == {"measure": "binc", "edges": 5, "pairs_at_1_both_ways": 1, "pairs_near_1_both_ways": 1,
                     "neg_edges": 2}
    app = typer.Typer()
    graph_cmd.register(app)
    shown = CliRunner().invoke(app, ["graph", "stats", str(tmp_path)])
    assert shown.exit_code == 0, shown.output
    head, row = shown.output.splitlines()
    assert head.split() == ["measure", "edges", "1.0", "both", "ways", ">=0.99", "both", "NEG", "edges"]
    assert row.split() == ["binc", "5", "1", "1", "2"]
    assert head.index("NEG edges") + len("NEG edges") == len(row)  # numbers right-aligned under their heads


def test_cli_build_records_support_and_global_choices(built: tuple[Path, Path], tmp_path: Path) -> None:
    app = typer.Typer()
    graph_cmd.register(app)
    out = tmp_path / "g"
    result = CliRunner().invoke(app, ["graph", "build", str(built[0]), "--out", str(out), "--min-shared-features", "3",
                                      "--global-iterations", "2", "--measures", "binc,binc_clean,global"])
    assert result.exit_code == 0, result.output
    gs = GraphSet.load(out)
    params = gs.manifest["parameters"]
    assert params["min_shared_features"] == 3 and params["global_step"]["iterations"] == 2
    assert gs.measures == ["binc", "binc_clean", "global"]
    edges = gs.manifest["totals"]["edges"]
    # Three shared argument pairs per edge: far fewer clean edges than plain ones (the published
    # measure has no minimum).
    assert edges["binc_clean"] < 0.8 * edges["binc"]
