"""A predicate's own edge with its arguments swapped is no entailment unless the predicate is reciprocal."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_builder.graphs.build import BuildParams, build_graphs
from graph_builder.graphs.graphset import GraphSet, Query
from graph_builder.graphs.roles import reciprocal, role_reversal
from graph_builder.graphs.scorers import REVERSED, GraphScorer, PairBatch
from tests.graph_builder.graph_fixtures import write_triples

# People defeat and meet people; some pairs are stated both ways (a rematch, an extraction error), and every pair
# of `beat` is a pair of `defeat`, so beat -> defeat has an edge in each slot order.
SPECS: list[tuple[str, str, str, str, str]] = (
    [(f"p{i}", "person", "(defeat.1,defeat.2)", f"q{i}", "person") for i in range(8)]
    + [(f"q{i}", "person", "(defeat.1,defeat.2)", f"p{i}", "person") for i in range(3)]
    + [(f"p{i}", "person", "(beat.1,beat.2)", f"q{i}", "person") for i in range(3)]
    + [(f"q{i}", "person", "(beat.1,beat.2)", f"p{i}", "person") for i in range(3)]
    + [(f"p{i}", "person", "(meet.1,meet.2)", f"q{i}", "person") for i in range(6)]
    + [(f"q{i}", "person", "(meet.1,meet.2)", f"p{i}", "person") for i in range(3)]
    + [(f"p{i}", "person", "(visit.1,visit.2)", f"q{i}", "person") for i in range(8)]
)
DEFEAT, BEAT, MEET = "(defeat.1,defeat.2)", "(beat.1,beat.2)", "(meet.1,meet.2)"
PEOPLE = ("person", "person")


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> GraphSet:
    root = tmp_path_factory.mktemp("roles")
    write_triples(root / "triples", SPECS)
    build_graphs(root / "triples", root / "graphs",
                 BuildParams(min_predicates_per_pair=2, min_pairs_per_predicate=2), progress=False)
    return GraphSet.load(root / "graphs")


@pytest.mark.parametrize(("predicate", "expected"), [
    (DEFEAT, False), ("(buy.1,buy.from.2)", False), (MEET, True), ("(merge.1,merge.with.2)", True),
    ("(talk.1,talk.with.2)", True), ("(compete.1,compete.against.2)", True), ("(sign.1,sign.deal.with.2)", True),
])
def test_reciprocal(predicate: str, expected: bool) -> None:
    assert reciprocal(predicate) is expected


def test_role_reversal_is_the_same_predicate_swapped_and_not_reciprocal() -> None:
    assert role_reversal(DEFEAT, DEFEAT, True)
    assert not role_reversal(DEFEAT, DEFEAT, False)  # the hypothesis itself
    assert not role_reversal(BEAT, DEFEAT, True)  # another predicate: the graph decides (below)
    assert not role_reversal(MEET, MEET, True)


def test_a_same_type_graph_mirrors_each_predicate_but_the_reciprocal_ones(graphs: GraphSet) -> None:
    graph = graphs.graphs["person#person"]
    for row, node in enumerate(graph.nodes):
        mirror = graph.mirrors[row]
        if node.startswith(MEET):
            assert mirror == -1
        elif node.startswith((DEFEAT, BEAT)):
            predicate, order = node.split("#", 1)
            other = "person_2#person_1" if order == "person_1#person_2" else "person_1#person_2"
            assert graph.nodes[mirror] == f"{predicate}#{other}"


def test_a_swapped_premise_of_a_one_way_predicate_scores_0(graphs: GraphSet) -> None:
    graph = graphs.graphs["person#person"]
    binc = graph.csr("binc")

    def raw(premise: str, hypothesis: str) -> float:
        return float(binc[graph.index[premise], graph.index[hypothesis]])

    # Every pair of `beat` was stated both ways, so the graph links its two slot orders with 1.0: no entailment.
    assert raw(f"{BEAT}#person_2#person_1", f"{BEAT}#person_1#person_2") == pytest.approx(1.0)
    queries = [Query(BEAT, BEAT, PEOPLE, True), Query(MEET, MEET, PEOPLE, True), Query(MEET, BEAT, PEOPLE, False),
               Query(MEET, BEAT, PEOPLE, True)]
    scored = GraphScorer("binc", graphs, "binc").score(PairBatch(queries))
    assert scored.scores[0] == 0.0 and scored.matches[0] == REVERSED
    # "Y met X" is "X met Y"; and edges between two predicates keep the graph's scores, in either order.
    assert scored.scores[1] == pytest.approx(raw(f"{MEET}#person_2#person_1", f"{MEET}#person_1#person_2"))
    assert scored.scores[2] == pytest.approx(raw(f"{MEET}#person_1#person_2", f"{BEAT}#person_1#person_2"))
    assert scored.scores[1] > 0 and scored.scores[2] > 0
    assert scored.scores[3] == pytest.approx(raw(f"{MEET}#person_2#person_1", f"{BEAT}#person_1#person_2"))
