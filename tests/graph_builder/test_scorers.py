"""The scorer registry: names derived from the graphs and the model, errors that say why, and each kind's
scores checked against a naive reference on small inputs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from graph_builder.embeddings import LM_BACKOFF_SCALE
from graph_builder.errors import InputError
from graph_builder.graphs.acts import act_of
from graph_builder.graphs.graphset import GraphSet, Query
from graph_builder.graphs.scorers import (ACT_DISCOUNT, LM_BACKOFF_MATCH, ActBackoff, ExactScorer, GraphScorer,
                                          LmBackoff, LmCosine, PairBatch, Scored, Smoothed, Unavailable, base_scorer,
                                          build_scorers, direction_factors, graph_names, model_scorers)
from tests.graph_builder.graph_fixtures import naive_generality
from tests.graph_builder.lm_fixtures import build_lm_graphs


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> GraphSet:
    return GraphSet.load(build_lm_graphs(tmp_path_factory.mktemp("scorers")))


class FakeEncoder:
    """Unit vectors from a fixed table: `same` texts embed alike, anything else orthogonally."""

    def encode(self, texts: list[str]) -> np.ndarray:
        table = {"a": [1.0, 0.0, 0.0], "a'": [0.6, 0.8, 0.0], "b": [0.0, 0.0, 1.0]}
        return np.array([table.get(t, [0.0, 1.0, 0.0]) for t in texts], dtype=np.float32)


def test_names_follow_the_graphs_and_the_model_in_a_fixed_order(graphs: GraphSet) -> None:
    plain = build_scorers(graphs)
    acts = [f"{m}+act" for m in graphs.measures]
    directed = [f"{m}+dir" for m in [*graphs.measures, *acts]]
    many = [f"{m}+many" for m in [*graphs.measures, *acts, *directed]]
    assert list(plain) == [*graphs.measures, "exact", *acts, *directed, *many]
    assert plain.default == f"{graphs.default_measure}+act"
    # Without the model, every LM scorer is named as unavailable (not unknown), the reason without a path.
    for name in ("lm_cosine", "binc+smooth", "binc+lm", "binc+smooth+lm", "binc+smooth+act", "binc+act+lm"):
        with pytest.raises(InputError, match=rf"scorer '{name.replace('+', '[+]')}' is unavailable: the "
                                             r"sentence-embedding model is not loaded"):
            plain.check(name)
    with pytest.raises(InputError, match=r"unknown scorer 'exact\+lm'; valid scorers: binc, "):
        plain.check("exact+lm")
    with pytest.raises(InputError, match=r"unknown scorer 'binc\+smooth\+smooth'"):
        plain.check("binc+smooth+smooth")
    assert str(graphs.path) not in " ".join(plain.unavailable.values())


def test_an_extra_set_is_a_scorer_and_its_name_may_not_clash(graphs: GraphSet) -> None:
    registry = build_scorers(graphs, measures=["binc"], extra_graphs={"other": graphs})
    kept = ["binc", "other", "binc+act", "other+act", "binc+dir", "other+dir", "binc+act+dir", "other+act+dir"]
    assert list(registry) == [*kept[:2], "exact", *kept[2:], *(f"{s}+many" for s in kept)]
    for clash in ("binc", "exact", "lm_cosine", "mine+lm", "a+smooth", "b+dir"):
        with pytest.raises(InputError, match="clashes with a scorer name"):
            build_scorers(graphs, extra_graphs={clash: graphs})


def test_with_the_model_the_wrappers_apply_to_every_graph_scorer(graphs: GraphSet) -> None:
    other = GraphSet.load(graphs.path)  # a set of its own (the errors name sets by name)
    registry = build_scorers(graphs, measures=["binc"], extra_graphs={"other": other}, encoder=FakeEncoder())
    smooth = ["binc+smooth", "other+smooth"] if graphs.embeddings is not None else []
    act = ["binc+act", "other+act", *[f"{s}+act" for s in smooth]]
    lm = [f"{s}+lm" for s in ["binc", "other", *smooth, *act]]
    directed = [f"{s}+dir" for s in ["binc", "other", "lm_cosine", *smooth, *act, *lm]]
    many = [f"{s}+many" for s in ["binc", "other", "lm_cosine", *smooth, *act, *lm, *directed]]
    assert list(registry) == ["binc", "other", "exact", "lm_cosine", *smooth, *act, *lm, *directed, *many]
    if graphs.embeddings is None:  # the fixture has none: the reason names the set, not its folder
        assert registry.unavailable["other+smooth"].startswith("the graph set 'other' has no predicate embeddings")
        assert registry.unavailable["binc+smooth+lm"].startswith("the loaded graph set has no predicate embeddings")


def test_exact_and_graph_identity() -> None:
    same, other, flipped = (Query("(p.1,p.2)", "(p.1,p.2)", ("a", "b")), Query("(q.1,q.2)", "(p.1,p.2)", ("a", "b")),
                            Query("(p.1,p.2)", "(p.1,p.2)", ("a", "b"), premise_reversed=True))
    batch = PairBatch([same, other, flipped])
    np.testing.assert_array_equal(batch.identity(), [True, False, False])


def test_lm_backoff_matches_a_naive_reference_group_by_group() -> None:
    # Groups 0 and 2 have a graph score above 0 somewhere: they keep theirs; group 1 has none: the LM's, scaled.
    graph_scores = np.array([0.0, 0.4, 0.0, 0.0, 0.0, 0.2])
    lm_scores = np.array([0.9, 0.1, 0.5, 0.7, 0.3, 0.8])
    groups = np.array([0, 0, 1, 1, 2, 2])

    class Fixed:
        def __init__(self, name: str, scores: np.ndarray, reads_graphs: bool) -> None:
            self.name, self.scores, self.reads_graphs, self.reads_text = name, scores, reads_graphs, False

        def score(self, batch: PairBatch) -> Scored:
            return Scored(self.scores, ["typed"] * len(self.scores), np.ones(len(self.scores), dtype=bool))

    queries = [Query(f"(x{k}.1,x{k}.2)", "(h.1,h.2)", ("a", "b")) for k in range(6)]
    batch = PairBatch(queries, groups=groups, premise_texts=["s"] * 6, hypothesis_texts=["h"] * 6)
    scorer = LmBackoff(Fixed("g", graph_scores, True), Fixed("lm_cosine", lm_scores, False))  # type: ignore[arg-type]
    scored = batch.scored(scorer)
    expected = []
    for k in range(6):
        in_group = graph_scores[groups == groups[k]]
        expected.append(graph_scores[k] if (in_group > 0).any() else LM_BACKOFF_SCALE * lm_scores[k])
    np.testing.assert_allclose(scored.scores, expected)
    assert [m == LM_BACKOFF_MATCH for m in scored.matches] == [False, False, True, True, False, False]
    # Without groups each pair is its own: exactly the graph score where above 0, else the scaled LM.
    alone = PairBatch(queries, premise_texts=["s"] * 6, hypothesis_texts=["h"] * 6).scored(scorer)
    np.testing.assert_allclose(alone.scores, np.where(graph_scores > 0, graph_scores, LM_BACKOFF_SCALE * lm_scores))


def test_a_text_scorer_refuses_a_batch_without_texts(graphs: GraphSet) -> None:
    registry = build_scorers(graphs, encoder=FakeEncoder())
    with pytest.raises(ValueError, match="reads text"):
        PairBatch([Query("(a.1,a.2)", "(b.1,b.2)", ("x", "y"))]).scored(registry["lm_cosine"])
    texts = PairBatch([Query("(a.1,a.2)", "(b.1,b.2)", ("x", "y"))] * 2, premise_texts=["a", "a'"],
                      hypothesis_texts=["a", "b"])
    np.testing.assert_allclose(texts.scored(registry["lm_cosine"]).scores, [1.0, 0.0], atol=1e-6)


def test_empty_batches_score_nothing(graphs: GraphSet) -> None:
    for scorer in build_scorers(graphs).values():
        assert len(PairBatch([]).scored(scorer).scores) == 0


def test_the_registry_is_the_one_place_that_spells_the_wrappers() -> None:
    # No other module builds or takes apart scorer names by their suffixes.
    root = Path(__file__).resolve().parents[2]
    offenders = []
    for package in ("service", "benchmark", "graph_builder", "retrieval", "bench", "scripts"):
        for path in (root / package).rglob("*.py"):
            if path.name == "scorers.py":
                continue
            text = path.read_text(encoding="utf-8")
            for needle in ('"+smooth"', '"+lm"', 'fix("+smooth', 'fix("+lm', 'with("+smooth', 'with("+lm'):
                if needle in text:
                    offenders.append(f"{path.relative_to(root)}: {needle}")
    assert offenders == []


def test_a_wrapped_name_is_taken_apart_by_the_registry(graphs: GraphSet) -> None:
    # Every name the registry builds comes back to the scorer its wrappers stand on.
    offered = build_scorers(graphs, encoder=FakeEncoder())
    assert {name: base_scorer(name) for name in offered if "+" in name} == {
        name: name.split("+")[0] for name in offered if "+" in name}
    assert base_scorer("binc_clean_lp+smooth+lm") == "binc_clean_lp" and base_scorer("exact") == "exact"
    # What the graph build must hold for a list of scorers: no `exact`, no `lm_cosine`, each measure once.
    assert graph_names(["exact", " binc+lm", "binc_clean+smooth+lm", "lm_cosine", "binc", "berant", ""]) == [
        "binc", "binc_clean", "berant"]
    assert model_scorers() == "lm_cosine, <scorer>+smooth, <scorer>+lm"  # `+dir` needs no model of its own
    assert base_scorer("binc_clean+smooth+lm+dir") == base_scorer("binc_clean+smooth+act+lm+dir") == "binc_clean"


def test_the_default_is_the_best_measured_scorer_the_installation_offers(graphs: GraphSet) -> None:
    assert build_scorers(graphs).default == "binc+act"  # no model: the graphs' own measure, reading acts back
    assert build_scorers(graphs, measures=["cos"]).default == "cos"  # without binc: the first measure offered
    with_model = build_scorers(graphs, encoder=FakeEncoder())
    assert with_model.default == ("binc_clean+smooth+act+lm+dir" if graphs.embeddings is not None
                                  else "binc+act+lm+dir")
    assert build_scorers(graphs, encoder=FakeEncoder(), default="cos").default == "cos"  # a setting wins
    with pytest.raises(InputError, match="unknown scorer 'nope'"):
        build_scorers(graphs, default="nope")


def test_the_scorers_that_run_the_sentence_model_say_so(graphs: GraphSet) -> None:
    """The service lets batches of these run side by side (their model works outside the interpreter lock)."""
    assert LmCosine.runs_model and Smoothed.runs_model and LmBackoff.runs_model
    assert not GraphScorer.runs_model and not ExactScorer.runs_model and not Unavailable.runs_model
    registry = build_scorers(graphs, encoder=FakeEncoder())
    assert registry["lm_cosine+dir"].runs_model and registry["lm_cosine+dir"].reads_text
    assert not registry["binc+dir"].runs_model and not registry["binc+dir"].reads_text


def _node_generality(graphs: GraphSet) -> dict[str, int]:
    """n(p) as a set without predicate counts has it: node counts summed, mirrored slot orders once."""
    naive: dict[str, int] = {}
    for g in graphs.graphs.values():
        for node, count in zip(g.nodes, g.counts):
            predicate, first, second = node.split("#")
            if not (g.types[0] == g.types[1] and first.endswith("_2")):
                naive[predicate] = naive.get(predicate, 0) + int(count)
    return naive


def test_generality_counts_every_predicate_of_the_build_input(graphs: GraphSet) -> None:
    naive = naive_generality(graphs.path.parent / "triples")
    predicates = [*sorted(naive), "(never.1,never.2)"]
    np.testing.assert_array_equal(graphs.generality(predicates), [naive.get(p, 0) for p in predicates])
    # Counted before the cutoffs: all 8 companies that acquire, where the graph keeps 4 of those pairs.
    assert naive["(acquire.1,acquire.2)"] == 8 and _node_generality(graphs)["(acquire.1,acquire.2)"] == 4
    assert graphs.manifest["generality"]["predicates"] == len(naive)


def test_a_set_without_predicate_counts_reads_its_node_counts(graphs: GraphSet) -> None:
    manifest = {k: v for k, v in graphs.manifest.items() if k != "generality"}
    older = GraphSet(graphs.path, manifest, graphs.graphs)
    naive = _node_generality(graphs)
    predicates = [*sorted(naive), "(never.1,never.2)"]
    np.testing.assert_array_equal(older.generality(predicates), [naive.get(p, 0) for p in predicates])
    # The fixture: 12 people buy; 8 companies acquire, 4 of those pairs surviving the cutoffs (they also merge).
    assert naive["(buy.1,buy.2)"] == 12 and naive["(acquire.1,acquire.2)"] == 4


def test_direction_factors_match_a_naive_reference(graphs: GraphSet) -> None:
    naive = naive_generality(graphs.path.parent / "triples")
    predicates = [*sorted(naive), "(never.1,never.2)"]
    queries = [Query(p, h, ("person", "organization")) for p in predicates for h in predicates]
    expected = []
    for q in queries:
        ratio = (naive.get(q.hypothesis, 0) + 1) / (naive.get(q.premise, 0) + 1)
        # tanh(ln r) = (r^2 - 1) / (r^2 + 1): a premise more general than its hypothesis (r < 1) loses up to 5%.
        expected.append(1.0 - 0.05 * max(0.0, (1 - ratio ** 2) / (1 + ratio ** 2)))
    factors = direction_factors(graphs, queries)
    np.testing.assert_allclose(factors, expected, rtol=1e-12)
    assert factors.max() == 1.0 and factors.min() > 0.95
    # A pair and its reverse: the one towards the more general predicate keeps its score.
    buy_own, own_buy = direction_factors(graphs, [Query("(acquire.1,acquire.2)", "(buy.1,buy.2)", ("a", "b")),
                                                  Query("(buy.1,buy.2)", "(acquire.1,acquire.2)", ("a", "b"))])
    assert buy_own == 1.0 and own_buy < 1.0


def test_a_directed_scorer_is_its_inner_scores_times_the_factors(graphs: GraphSet) -> None:
    registry = build_scorers(graphs, measures=["binc"])
    queries = [Query("(buy.1,buy.2)", "(own.1,own.2)", ("person", "organization")),
               Query("(own.1,own.2)", "(buy.1,buy.2)", ("person", "organization")),
               Query("(buy.1,buy.2)", "(buy.1,buy.2)", ("person", "organization"))]
    batch = PairBatch(queries)
    inner, directed = batch.scored(registry["binc"]), batch.scored(registry["binc+dir"])
    np.testing.assert_allclose(directed.scores, inner.scores * direction_factors(graphs, queries))
    assert directed.scores[2] == 1.0  # the hypothesis itself: no premise is more general than itself
    assert directed.matches == inner.matches and list(directed.grounded) == list(inner.grounded)


def naive_many(queries: list[Query], groups: list[int], scores: list[float]) -> list[float]:
    """Each pair's score over the number of distinct (premise, order) pairs of its group, counted by hand."""
    out = []
    for g, s in zip(groups, scores, strict=True):
        distinct = {(q.premise, q.premise_reversed) for q, h in zip(queries, groups, strict=True) if h == g}
        out.append(s / len(distinct))
    return out


def test_many_divides_by_each_hypothesis_distinct_premises_as_a_naive_reference(graphs: GraphSet) -> None:
    registry = build_scorers(graphs, measures=["binc"])
    types = ("person", "organization")
    buy, own, acquire = "(buy.1,buy.2)", "(own.1,own.2)", "(acquire.1,acquire.2)"
    queries = [Query(buy, own, types), Query(own, own, types), Query(buy, own, types),  # hypothesis 0: 2 premises
               Query(buy, own, types, premise_reversed=True),                           # ... and a reversed one: 3
               Query(acquire, buy, types),                                               # hypothesis 1: 1 premise
               Query(own, buy, types), Query(buy, buy, types)]                           # hypothesis 2: 2 premises
    groups = [0, 0, 0, 0, 1, 2, 2]
    batch = PairBatch(queries, groups=np.array(groups))
    inner, many = batch.scored(registry["binc+dir"]), batch.scored(registry["binc+dir+many"])
    np.testing.assert_allclose(many.scores, naive_many(queries, groups, inner.scores.tolist()))
    np.testing.assert_array_equal(batch.premise_counts(), [3, 3, 3, 3, 1, 2, 2])
    assert many.matches == inner.matches and list(many.grounded) == list(inner.grounded)
    # Without groups (two bare predicates, LevyHolt) every pair is its own hypothesis: nothing is divided.
    alone = PairBatch(queries)
    np.testing.assert_array_equal(alone.scored(registry["binc+many"]).scores, alone.scored(registry["binc"]).scores)
    assert "exact+many" not in registry and registry["binc+many"].name == "binc+many"
    for seed in range(20):  # random groups and repeated premises against the reference
        rng = np.random.default_rng(seed)
        picks = [Query(str(rng.integers(4)), "h", types, bool(rng.integers(2))) for _ in range(rng.integers(1, 12))]
        g = rng.integers(0, 3, len(picks)).tolist()
        random_batch = PairBatch(picks, groups=np.array(g))
        shares = naive_many(picks, g, [1.0] * len(picks))  # 1 / n per pair
        np.testing.assert_allclose(random_batch.premise_counts(), [1 / x for x in shares])


@dataclass(frozen=True)
class TableScorer:
    """Scores from a table of (premise, hypothesis) -> score; a pair not in it meets nothing."""

    table: dict[tuple[str, str], float]
    name: str = "table"
    reads_text: ClassVar[bool] = False
    reads_graphs: ClassVar[bool] = True
    runs_model: ClassVar[bool] = False

    def score(self, batch: PairBatch) -> Scored:
        found = [(q.premise, q.hypothesis) in self.table for q in batch.queries]
        return Scored(np.array([self.table.get((q.premise, q.hypothesis), 0.0) for q in batch.queries]),
                      ["typed" if f else "none" for f in found], np.array(found, dtype=bool))


def test_act_backoff_matches_a_naive_reference() -> None:
    buy, acquire = "(buy.1,buy.2)", "(acquire.1,acquire.2)"
    inner = TableScorer({(buy, buy): 1.0, (acquire, buy): 0.5, ("could__" + acquire, buy): 0.01,
                         ("may__" + acquire, buy): 0.3, ("plan__" + buy, "plan__" + buy): 1.0})
    queries = [Query(p, h, ("organization", "organization")) for p, h in [
        ("plan__" + buy, buy),            # its act is the hypothesis: the discount times 1
        ("NEG__plan__" + buy, buy),       # denied: no backoff
        ("fail__" + buy, buy),            # not done: no backoff
        ("could__" + acquire, buy),       # its own 0.01 against the discount times acquire -> buy
        ("may__" + acquire, buy),         # its own 0.3 is more than the backoff gives
        ("plan__" + buy, "plan__" + buy),  # a hypothesis with a controller of its own is scored as it stands
        ("want__" + buy, acquire),        # its act meets nothing
        (buy, buy),                       # no controller
    ]]
    scored = ActBackoff(inner).score(PairBatch(queries))
    d = ACT_DISCOUNT
    np.testing.assert_allclose(scored.scores, [d, 0.0, 0.0, max(0.01, d * 0.5), 0.3, 1.0, 0.0, 1.0])
    assert scored.matches == ["act", "none", "none", "act" if d * 0.5 > 0.01 else "typed", "typed", "typed", "none",
                              "typed"]
    assert scored.grounded.tolist() == [True, False, False, True, True, True, False, True]


def test_acts_are_read_from_the_controllers() -> None:
    assert act_of("plan__(buy.1,buy.2)") == "(buy.1,buy.2)"
    assert act_of("may__have__(pay.1,pay.2)") == "(pay.1,pay.2)"
    assert act_of("offer__(buy.1,buy.2)") == "(buy.1,buy.2)"
    for denied in ("NEG__(buy.1,buy.2)", "NEG__plan__(buy.1,buy.2)", "fail__(buy.1,buy.2)",
                   "plan__refuse__(pay.1,pay.2)", "decline__(comment.1,comment.on.2)"):
        assert act_of(denied) is None, denied
    for plain in ("(buy.1,buy.2)", "be find in"):
        assert act_of(plain) is None
