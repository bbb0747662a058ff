"""Built artefacts: exact measure values, manifests, memory mapping, refusal of bad artefacts, show, Dask."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson
import pytest
import typer
from typer.testing import CliRunner

from graph_builder.errors import ArtefactError, NotFoundError
from graph_builder.graphs.artefacts import load_graph
from graph_builder.graphs.build import DEFAULT_MIN_SCORE, DEFAULT_TOP_K, BuildParams, build_graphs, count_triples
from graph_builder.graphs.counts import CountParams, count_matrices
from graph_builder.graphs.graphset import GraphSet, Query
from graph_builder.graphs.measures import measure_matrix
from graph_builder.triples import dataset_checksum
from service.commands import graph as graph_cmd
from tests.graph_builder.graph_fixtures import random_specs, write_triples


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("graphs")
    triples = write_triples(root / "triples", random_specs(7))
    build_graphs(triples, root / "graphs", BuildParams(), progress=False)
    return triples, root / "graphs"


def test_artefacts_hold_exactly_the_measures_of_the_counts(built: tuple[Path, Path]) -> None:
    triples, out = built
    gs = GraphSet.load(out)
    counts, _ = count_triples(triples, progress=False)
    expected = {g.name: g for g in count_matrices(counts, CountParams(3, 3))}
    assert sorted(gs.graphs) == sorted(expected) and len(expected) == 6
    for name, gc in expected.items():
        graph = gs.graphs[name]
        assert graph.nodes == gc.nodes
        assert list(graph.counts) == list(gc.node_counts)
        for measure in ("binc", "weeds", "lin", "cos"):
            assert isinstance(graph.matrices[measure][0], np.memmap)
            assert graph.matrices[measure][0].dtype == np.float32 and graph.matrices[measure][1].dtype == np.int32
            expected = measure_matrix(gc.matrix, measure, top_k=DEFAULT_TOP_K, min_score=DEFAULT_MIN_SCORE)
            assert (graph.csr(measure) != expected.astype(np.float32)).nnz == 0
    m = gs.graphs["location#person"].manifest
    assert m["measures"]["binc"]["version"] == "binc.v1" and m["measures"]["binc"]["dtype"] == "float32"
    assert m["parameters"]["top_k"] == DEFAULT_TOP_K == 100 and m["parameters"]["min_score"] == DEFAULT_MIN_SCORE == 0.01
    assert m["parameters"]["min_predicates_per_pair"] == 3 and m["parameters"]["min_pairs_per_predicate"] == 3
    assert m["source"]["triples_checksum"] == dataset_checksum(triples)
    assert m["source"]["triples_rows"] == 4000
    assert set(m["files"]) >= {"nodes.json", "binc/data.npy", "binc/indices.npy", "binc/indptr.npy"}


def test_corrupted_artefact_is_refused(built: tuple[Path, Path], tmp_path: Path) -> None:
    import shutil
    copy = tmp_path / "g"
    shutil.copytree(built[1], copy)
    data = copy / "location#person" / "binc" / "data.npy"
    raw = bytearray(data.read_bytes())
    raw[-3] ^= 0xFF
    data.write_bytes(bytes(raw))
    with pytest.raises(ArtefactError, match="checksum mismatch"):
        GraphSet.load(copy)


def test_unknown_measure_version_is_refused(built: tuple[Path, Path], tmp_path: Path) -> None:
    import shutil
    folder = tmp_path / "location#person"
    shutil.copytree(built[1] / "location#person", folder)
    manifest = orjson.loads((folder / "manifest.json").read_bytes())
    manifest["measures"]["binc"]["version"] = "binc.v9"
    (folder / "manifest.json").write_bytes(orjson.dumps(manifest))
    with pytest.raises(ArtefactError, match=r"binc\.v9.*readable: binc\.v1"):
        load_graph(folder)


def test_show_json_lists_every_edge_best_first(built: tuple[Path, Path]) -> None:
    gs = GraphSet.load(built[1])
    graph = gs.graphs["location#person"]
    node = next(n for n in graph.nodes if n.endswith("#person#location"))
    pred = node.rsplit("#", 2)[0]
    app = typer.Typer()
    graph_cmd.register(app)
    result = CliRunner().invoke(app, ["graph", "show", str(built[1]), "--predicate", pred,
                                      "--types", "person#location", "--measure", "binc", "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    assert list(doc) == ["predicate", "types", "measure", "entails", "entailed_by"]
    assert doc["predicate"] == pred and doc["types"] == "person#location" and doc["measure"] == "binc"
    row = graph.csr("binc")[graph.index[node]].toarray().ravel()
    col = graph.csr("binc")[:, graph.index[node]].toarray().ravel()
    assert len(doc["entails"]) == np.count_nonzero(row) - 1  # every edge but the self-edge
    assert len(doc["entailed_by"]) == np.count_nonzero(col) - 1
    keys = [(-e["score"], e["predicate"]) for e in doc["entails"]]
    assert keys == sorted(keys)
    for e in doc["entails"]:
        assert e["score"] == pytest.approx(row[graph.index[e["predicate"]]], abs=0)
    for e in doc["entailed_by"]:
        assert e["score"] == pytest.approx(col[graph.index[e["predicate"]]], abs=0)


def test_scores_typed_fuzzy_and_missing(built: tuple[Path, Path]) -> None:
    gs = GraphSet.load(built[1])
    graph = gs.graphs["location#person"]
    m = graph.csr("binc").tocoo()
    i, j = next((r, c) for r, c in zip(m.row, m.col) if r != c and graph.nodes[r].endswith("#person#location")
                and graph.nodes[c].endswith("#person#location"))
    p, h = graph.nodes[i].rsplit("#", 2)[0], graph.nodes[j].rsplit("#", 2)[0]
    assert gs.score(p, h, "person#location") == pytest.approx(float(graph.csr("binc")[i, j]), abs=0)
    batch = gs.score_batch([Query(p, h, ("person", "location")), Query(p, h, ("medicine", "disease")),
                            Query("(nothing.1,nothing.2)", h, ("person", "location"))])
    assert batch.stage == ["typed", "backoff", "none"]
    assert batch.scores[1] > 0 and batch.scores[2] == 0
    with pytest.raises(NotFoundError):
        gs.neighbours("(nothing.1,nothing.2)", "person#location")


def test_dask_build_gives_identical_artefacts(built: tuple[Path, Path], tmp_path: Path) -> None:
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        build_graphs(built[0], tmp_path / "dask", BuildParams(), scheduler=cluster.scheduler_address,
                     progress=False)
    local = orjson.loads((built[1] / "manifest.json").read_bytes())
    dask = orjson.loads((tmp_path / "dask" / "manifest.json").read_bytes())
    assert dask["graphs"] == local["graphs"]  # includes every graph manifest's checksum
    assert dask["totals"] == local["totals"]


def test_top_k_and_min_score_are_applied_and_recorded(built: tuple[Path, Path], tmp_path: Path) -> None:
    build_graphs(built[0], tmp_path / "k", BuildParams(top_k=2, min_score=0.2), progress=False)
    gs = GraphSet.load(tmp_path / "k")
    for graph in gs.graphs.values():
        m = graph.csr("cos")
        off = m - m.multiply(np.eye(m.shape[0]) > 0)
        assert np.diff(off.tocsr().indptr).max() <= 2
        assert off.data.min() >= 0.2 if off.nnz else True
        assert graph.manifest["parameters"]["top_k"] == 2


def test_split_filter_keeps_other_periods_out_of_the_graphs(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from graph_builder.triples import write_shard

    specs = [(f"a{i}", "organization", "(buy.1,buy.2)", f"b{j}", "organization") for i in range(3) for j in range(3)]
    specs += [(f"a{i}", "organization", "(acquire.1,acquire.2)", f"b{j}", "organization") for i in range(3) for j in range(3)]
    specs += [(f"a{i}", "organization", "(own.1,own.2)", f"b{j}", "organization") for i in range(3) for j in range(3)]
    folder = write_triples(tmp_path / "t", specs, shards=1)
    shard = next(folder.glob("part-*.parquet"))
    rows = pq.read_table(shard).to_pylist()
    for r in rows:
        r["split"] = "TEST" if "own" in r["predicate"] else "TRAIN"
    write_shard(rows, shard)
    every = build_graphs(folder, tmp_path / "all", BuildParams(min_predicates_per_pair=2, min_pairs_per_predicate=2),
                         progress=False)
    train = build_graphs(folder, tmp_path / "train", BuildParams(min_predicates_per_pair=2, min_pairs_per_predicate=2,
                                                                 splits=("TRAIN",)), progress=False)
    assert every.triples == 27 and train.triples == 18
    nodes = GraphSet.load(tmp_path / "train").graphs
    names = {n for g in nodes.values() for n in g.nodes}
    assert names and not any("own" in n for n in names)
    assert any("own" in n for g in GraphSet.load(tmp_path / "all").graphs.values() for n in g.nodes)
    with pytest.raises(ArtefactError, match="no triples"):
        build_graphs(folder, tmp_path / "none", BuildParams(splits=("DEV",)), progress=False)


def test_fuzzy_and_backoff_keep_the_arguments_order(built: tuple[Path, Path]) -> None:
    """The hypothesis' own predicate, read with its arguments the other way around, is not the hypothesis:
    neither fuzzy matching in its typed graph nor backoff through other graphs may pair a node with itself."""
    gs = GraphSet.load(built[1])
    graph = gs.graphs["location#person"]
    one_way = [n.rsplit("#", 2)[0] for n in graph.nodes if n.endswith("#person#location")
               and n.rsplit("#", 2)[0] + "#location#person" not in graph.index]
    assert one_way, "the fixture has predicates seen in one orientation only"
    for p in one_way[:20]:
        forward, backward = gs.score_batch([Query(p, p, ("person", "location")),
                                            Query(p, p, ("person", "location"), premise_reversed=True)]).scores
        row = graph.index[p + "#person#location"]
        assert forward == pytest.approx(float(graph.csr("binc")[row, row]), abs=0)
        assert backward == 0.0
        # Through other graphs (no typed graph for these types), the same holds.
        assert gs.score_batch([Query(p, p, ("medicine", "disease"), premise_reversed=True)]).scores[0] == 0.0


def test_an_edge_between_antonyms_is_marked(tmp_path: Path) -> None:
    # "raise" and "lower" share their argument pairs, so BInc links them; every graph scorer answers the pair with 0
    # (tests/service/test_api.py), and the neighbours say so. "increase" shares them too: no antonym of "raise", one
    # of "lower" (a verb of one direction of change against every verb of the other).
    specs = [(f"c{i}", "organization", p, f"r{i}", "organization")
             for i in range(6) for p in ("(raise.1,raise.2)", "(lower.1,lower.2)", "(increase.1,increase.2)")]
    build_graphs(write_triples(tmp_path / "triples", specs), tmp_path / "graphs", BuildParams(), progress=False)
    gs = GraphSet.load(tmp_path / "graphs")
    edges = {e["predicate"].split("#")[0]: e for e in gs.edges("(raise.1,raise.2)", "organization#organization", "binc")}
    assert edges["(lower.1,lower.2)"]["antonym"] is True and edges["(lower.1,lower.2)"]["score"] > 0
    assert edges["(increase.1,increase.2)"]["antonym"] is False
    back = {e["predicate"].split("#")[0]: e for e in gs.edges("(lower.1,lower.2)", "organization#organization", "binc",
                                                               "entailed_by")}
    assert back["(raise.1,raise.2)"]["antonym"] is True and back["(increase.1,increase.2)"]["antonym"] is True
