"""Importers (Hosseini text, Berant rules) and exports (Hosseini text, GraphML) keep every edge and score."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from graph_builder.graphs.export import export_graphml
from graph_builder.graphs.graphset import GraphSet, Query
from graph_builder.graphs.importers import export_hosseini, import_berant, import_hosseini
from tests.graph_builder.graph_fixtures import SHARED_DATA

DATA = Path(__file__).resolve().parents[1] / "data" / "graphs"


def edges(gs: GraphSet, measure: str) -> dict[tuple[str, str, str], float]:
    out = {}
    for name, g in gs.graphs.items():
        if measure not in g.matrices:
            continue
        m = g.csr(measure).tocoo()
        out.update({(name, g.nodes[r], g.nodes[c]): float(v) for r, c, v in zip(m.row, m.col, m.data)})
    return out


def test_hosseini_import_reads_every_edge_with_its_score(tmp_path: Path) -> None:
    import_hosseini(DATA / "hosseini", tmp_path / "g")
    gs = GraphSet.load(tmp_path / "g")
    assert sorted(gs.graphs) == ["location#person", "person#person"]
    assert gs.measures == ["binc", "cos"]
    assert edges(gs, "binc") == {
        ("location#person", "(visit.1,visit.2)#person#location", "(arrive.1,arrive.in.2)#person#location"): 0.0831,
        ("location#person", "(visit.1,visit.2)#person#location", "(visit.1,visit.2)#person#location"): 1.0,
        ("location#person", "(arrive.1,arrive.in.2)#person#location", "(host.1,host.2)#location#person"): 0.0042,
        ("person#person", "(marry.1,marry.2)#person_1#person_2", "(marry.1,marry.2)#person_2#person_1"): 0.9,
        ("person#person", "(marry.1,marry.2)#person_1#person_2", "(know.1,know.2)#person_1#person_2"): 0.125,
    }
    assert edges(gs, "cos") == {("location#person", "(visit.1,visit.2)#person#location",
                                 "(arrive.1,arrive.in.2)#person#location"): 0.25}
    assert gs.score("(visit.1,visit.2)", "(arrive.1,arrive.in.2)", "person#location") == 0.0831
    assert gs.score("(arrive.1,arrive.in.2)", "(visit.1,visit.2)", "person#location") == 0.0
    # The same-type premise with its arguments the other way round is the t_2#t_1 node.
    assert gs.score("(marry.1,marry.2)", "(marry.1,marry.2)", "person#person", premise_reversed=True) == 0.0
    assert gs.score("(marry.1,marry.2)", "(know.1,know.2)", "person#person") == 0.125


def test_hosseini_round_trip_through_our_writer(tmp_path: Path) -> None:
    import_hosseini(DATA / "hosseini", tmp_path / "a")
    first = GraphSet.load(tmp_path / "a")
    export_hosseini(first, tmp_path / "text")
    import_hosseini(tmp_path / "text", tmp_path / "b")
    second = GraphSet.load(tmp_path / "b")
    for measure in ("binc", "cos"):
        assert edges(second, measure) == edges(first, measure)


def test_graphml_export_keeps_edges_and_scores(tmp_path: Path) -> None:
    import_hosseini(DATA / "hosseini", tmp_path / "g")
    gs = GraphSet.load(tmp_path / "g")
    paths = export_graphml(gs, tmp_path / "ml", "binc")
    assert [p.name for p in paths] == ["location#person.graphml", "person#person.graphml"]
    g = nx.read_graphml(paths[0])
    assert dict(((u, v), d["score"]) for u, v, d in g.edges(data=True)) == {
        ("(visit.1,visit.2)#person#location", "(arrive.1,arrive.in.2)#person#location"): 0.0831,
        ("(arrive.1,arrive.in.2)#person#location", "(host.1,host.2)#location#person"): 0.0042,
    }


def test_berant_rules_with_swaps_and_same_types(tmp_path: Path) -> None:
    manifest = import_berant(DATA / "berant_small.txt", tmp_path / "b")
    assert manifest["source"]["rules"] == 4 and manifest["source"]["predicates"] == 5
    gs = GraphSet.load(tmp_path / "b")
    assert set(edges(gs, "berant")) == {
        ("fruit#metal", "contain#fruit#metal", "be find in#metal#fruit"),
        ("fruit#metal", "be find in#metal#fruit", "contain#fruit#metal"),
        ("risk#risk", "can cause#risk_1#risk_2", "can lead to#risk_1#risk_2"),
        ("risk#risk", "can cause#risk_2#risk_1", "can lead to#risk_2#risk_1"),
        ("risk#risk", "can cause#risk_1#risk_2", "be cause by#risk_2#risk_1"),
        ("risk#risk", "can cause#risk_2#risk_1", "be cause by#risk_1#risk_2"),
    }
    batch = gs.score_batch([Query("contain", "be find in", ("metal", "fruit"), premise_reversed=True),
                            Query("can cause", "be cause by", ("risk", "risk"), premise_reversed=True),
                            Query("can cause", "be cause by", ("risk", "risk"))], "berant", fuzzy=False)
    assert list(batch.scores) == [1.0, 1.0, 0.0]
    assert batch.stage == ["typed", "typed", "typed"]


def test_real_berant_file_imports_all_rules(tmp_path: Path) -> None:
    src = SHARED_DATA / "berant2011" / "original-edgelist.txt"
    if not src.is_file():
        pytest.skip(f"Berant rules not found at {src} (../shared/data beside the repository)")
    manifest = import_berant(src, tmp_path / "b")
    assert manifest["source"]["rules"] == 29_732
    assert manifest["source"]["predicates"] == 6_821
    # 4,432 rules between equal types also hold with the t_1/t_2 roles named the other way.
    assert manifest["totals"]["edges"]["berant"] == 29_732 + 4_432
