"""bench/premise_aggregation.py: its per-premise scores give the service's answers back, and its aggregations match
values computed by hand."""

from __future__ import annotations

import numpy as np
import pytest

from graph_builder.graphs.graphset import GraphSet
from graph_builder.triples import read_triples
from retrieval.factory import open_store
from service.engine import HypothesisInput, Options, ScoringEngine
from tests.bench.scripts import load_script
from tests.conftest import Build

aggregation = load_script("premise_aggregation")


def test_aggregations_match_hand_values() -> None:
    v = np.array([0.6, 0.2, 0.0])
    by_name = aggregation.AGGREGATIONS
    assert by_name["best (the service)"](v) == 0.6
    assert by_name["noisy-OR"](np.array([0.5, 0.5])) == pytest.approx(0.75)
    assert by_name["best + half the second"](v) == pytest.approx(0.7)
    assert by_name["sum"](v) == pytest.approx(0.8)
    assert by_name["mean of the best 3"](v) == pytest.approx(0.8 / 3)
    assert by_name["best / n^1.0"](v) == pytest.approx(0.2)
    assert by_name["best / n^1.0, n capped at 3"](np.array([0.8, 0.1, 0.1, 0.1, 0.1])) == pytest.approx(0.8 / 3)
    assert by_name["best / n^0.5"](np.array([0.8, 0.1, 0.1, 0.1])) == pytest.approx(0.4)
    assert all(f(np.zeros(0)) == 0.0 for f in by_name.values())  # no evidence scores 0 under every aggregation


def test_per_premise_scores_give_the_services_answers(fixture_build: Build) -> None:
    engine = ScoringEngine(GraphSet.load(fixture_build.graphs), open_store(fixture_build.sqlite_url))
    rows = read_triples(fixture_build.triples).to_pylist()[:60]
    entries = [{"subj": r["subj"], "predicate": r["predicate"], "obj": r["obj"], "subj_type": r["subj_type"],
                "obj_type": r["obj_type"], "window": r["window"], "exclude_sentence_ids": [r["sentence_id"]] if k % 2
                else []} for k, r in enumerate(rows)]
    items = [HypothesisInput(subject=e["subj"], predicate=e["predicate"], object=e["obj"], subject_type=e["subj_type"],
                             object_type=e["obj_type"], window=e["window"],
                             exclude_sentence_ids=tuple(e["exclude_sentence_ids"])) for e in entries]
    assert [aggregation.hypothesis(e) for e in entries] == items  # the proposition `egqa evaluate` sends
    premises = aggregation.premise_scores(engine, entries, "binc")
    best = [aggregation.AGGREGATIONS["best (the service)"](v) for v in premises]
    over_n = [aggregation.AGGREGATIONS["best / n^1.0"](v) for v in premises]
    assert best == pytest.approx([a.score for a in engine.judge(items, Options("binc", top_k=0))])
    assert over_n == pytest.approx([a.score for a in engine.judge(items, Options("binc+many", top_k=0))])
    assert any(len(v) > 1 for v in premises), "some entry should have several premises"
