"""Count matrices: cutoff order, same-type slots and orientations, type-pair feature order."""

from __future__ import annotations

import pyarrow as pa

from graph_builder.graphs.counts import Counts, CountParams, count_matrices, partial_counts
from tests.graph_builder.graph_fixtures import triple_rows
from graph_builder.triples import TRIPLE_SCHEMA


def counts_of(specs: list[tuple[str, str, str, str, str]]) -> Counts:
    return partial_counts(pa.Table.from_pylist(triple_rows(specs), schema=TRIPLE_SCHEMA))


def as_dict(gc) -> dict[tuple[str, int], float]:
    m = gc.matrix.tocoo()
    return {(gc.nodes[r], int(c)): float(v) for r, c, v in zip(m.row, m.col, m.data)}


def test_cutoffs_apply_pairs_first_then_predicates_without_iterating() -> None:
    # p1: {f1, f2}, p2: {f1, f3}, p3: {f3}; cutoffs (2, 2).
    # Pairs first: f2 (one predicate) goes; then p1 (left with f1 only) and p3 (f3 only) go.
    # p2 keeps f1 and f3 although f1 now has one predicate: no second round.
    # The opposite order would keep p1 and p2 instead.
    specs = [("a", "person", "(p1.1,p1.2)", "x", "location"), ("b", "person", "(p1.1,p1.2)", "y", "location"),
             ("a", "person", "(p2.1,p2.2)", "x", "location"), ("c", "person", "(p2.1,p2.2)", "z", "location"),
             ("c", "person", "(p3.1,p3.2)", "z", "location"), ("c", "person", "(p3.1,p3.2)", "z", "location")]
    graphs = count_matrices(counts_of(specs), CountParams(2, 2))
    assert [g.name for g in graphs] == ["location#person"]
    g = graphs[0]
    assert g.nodes == ["(p2.1,p2.2)#person#location"]
    assert g.matrix.shape == (1, 2) and g.matrix.sum() == 2
    assert g.stats["nodes_before_cutoffs"] == 3 and g.stats["features_before_cutoffs"] == 3


def test_cutoff_thresholds_are_inclusive_parameters() -> None:
    specs = [(f"e{i}", "person", f"(p{j}.1,p{j}.2)", f"l{i}", "location") for i in range(3) for j in range(3)]
    assert count_matrices(counts_of(specs), CountParams(3, 3))[0].matrix.shape == (3, 3)
    assert count_matrices(counts_of(specs), CountParams(4, 3)) == []
    assert count_matrices(counts_of(specs), CountParams(3, 4)) == []


def test_same_type_slots_both_orientations_and_reflexive_pairs_skipped() -> None:
    specs = [("ann", "person", "(meet.1,meet.2)", "bob", "person"),
             ("ann", "person", "(meet.1,meet.2)", "bob", "person"),
             ("cid", "person", "(meet.1,meet.2)", "cid", "person")]
    cells = counts_of(specs).cells.drop_columns(["cell"])
    table = cells.sort_by([("node", "ascending"), ("feature", "ascending")]).to_pylist()
    assert table == [
        {"graph": "person#person", "node": "(meet.1,meet.2)#person_1#person_2", "feature": "ann#bob", "count": 2},
        {"graph": "person#person", "node": "(meet.1,meet.2)#person_2#person_1", "feature": "bob#ann", "count": 2},
    ]


def test_distinct_types_share_features_across_slot_orders() -> None:
    specs = [("john", "person", "(visit.1,visit.2)", "ikea", "location"),
             ("ikea", "location", "(host.1,host.2)", "john", "person"),
             ("ann", "person", "NEG__(visit.1,visit.2)", "rome", "location")]
    rows = counts_of(specs).cells.sort_by([("node", "ascending")]).to_pylist()
    assert {(r["graph"], r["node"], r["feature"]) for r in rows} == {
        ("location#person", "(host.1,host.2)#location#person", "ikea#john"),
        ("location#person", "(visit.1,visit.2)#person#location", "ikea#john"),
        ("location#person", "NEG__(visit.1,visit.2)#person#location", "rome#ann"),
    }


def test_reprints_differing_in_spelling_or_punctuation_share_a_sentence_key() -> None:
    from graph_builder.graphs.counts import sentence_key

    a = "Measures that would penalise trading partners such as Japan, South Korea and Taiwan. Could"
    b = "measures that would penalize trading partners such as Japan, South Korea and Taiwan -- could"
    assert sentence_key(a) == sentence_key(b)
    assert sentence_key("Japan raised rates.") != sentence_key("Japan cut rates.")
