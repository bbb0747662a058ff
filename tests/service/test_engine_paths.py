"""The engine's two evidence paths agree: grouped predicates (batch evaluation, top_k 0) and whole rows."""

from __future__ import annotations

import random

import numpy as np
import pytest
import scipy.sparse as sp

from graph_builder.errors import NotFoundError
from graph_builder.graphs.graphset import GraphSet, Query, lookup_scores
from graph_builder.triples import read_triples
from retrieval.factory import open_store
from service.engine import HypothesisInput, Options, ScoringEngine
from tests.conftest import Build


@pytest.fixture(scope="module")
def engine(any_build: Build, any_graphs: GraphSet) -> ScoringEngine:
    """An in-process engine on each build (SQLite): the made-up news and the real Reuters slice."""
    return ScoringEngine(any_graphs, open_store(any_build.sqlite_url))


def _bundles(build: Build, graphs: GraphSet, n: int = 150) -> list[HypothesisInput]:
    """BoOQA-like bundles: a pair of the build in its window asked with its own predicate, a graph neighbour of
    it (so graph edges score) and a random graph predicate; `n` pairs, or every pair of a smaller build."""
    rows = read_triples(build.triples).to_pylist()
    n = min(n, len(rows))
    rng = random.Random(3)
    predicates = sorted({node.rsplit("#", 2)[0] for g in graphs.graphs.values() for node in g.nodes})
    items = []
    for row in rng.sample(rows, n):
        exclude = (row["sentence_id"],) if rng.random() < 0.5 else ()
        try:
            near = graphs.neighbours(row["predicate"], (row["subj_type"], row["obj_type"]), "binc", limit=3)
        except NotFoundError:
            near = []
        asked = [row["predicate"], rng.choice(predicates)]
        asked += [node.rsplit("#", 2)[0] for node, _ in near[:1] if node.endswith(f"#{row['subj_type']}#{row['obj_type']}")
                  or node.endswith(f"#{row['subj_type']}_1#{row['obj_type']}_2")]
        for predicate in asked:
            items.append(HypothesisInput(subject=row["subj"], predicate=predicate, object=row["obj"],
                                         subject_type=row["subj_type"], object_type=row["obj_type"],
                                         window=row["window"], exclude_sentence_ids=exclude))
    return items


@pytest.mark.parametrize("exclude_same", [False, True])
def test_grouped_path_scores_exactly_as_whole_rows(engine: ScoringEngine, any_build: Build, any_graphs: GraphSet,
                                                   exclude_same: bool) -> None:
    """Every scorer gives the same score, answer and evidence count with top_k 0 as with whole rows."""
    items = _bundles(any_build, any_graphs)
    for scorer in [s for s in engine.scorers if s != "lm_cosine"]:
        grouped = engine.judge(items, Options(scorer, exclude_same_predicate=exclude_same, top_k=0))
        rows = engine.judge(items, Options(scorer, exclude_same_predicate=exclude_same, top_k=10_000))
        assert [(a.score, a.answer, a.evidence_count) for a in grouped] == \
            [(a.score, a.answer, a.evidence_count) for a in rows], scorer
        assert all(a.evidence == [] for a in grouped)
        assert all(a.evidence_count == len(a.evidence) for a in rows)
    counts = [a.evidence_count for a in engine.judge(items, Options("binc", top_k=0))]
    assert sum(c > 0 for c in counts) >= len(items) // 2, "the sample should mostly find evidence"
    assert any(a.score not in (0.0, 1.0) for a in engine.judge(items, Options("binc", top_k=0))), \
        "some scores should come from graph edges, not only exact matches"


def test_batch_memo_gives_the_scores_of_single_queries(any_graphs: GraphSet) -> None:
    """Scoring a batch with repeated pairs (memoised) equals scoring each pair alone."""
    graphs = any_graphs
    name, graph = max(graphs.graphs.items(), key=lambda kv: len(kv[1].nodes))
    a, b = name.split("#")
    preds = [node.rsplit("#", 2)[0] for node in graph.nodes[:40]]
    rng = random.Random(1)
    queries = [Query(rng.choice(preds), rng.choice(preds), (a, b), rng.random() < 0.3) for _ in range(300)]
    batch = graphs.score_batch(queries, "binc")
    alone = [graphs.score_batch([q], "binc") for q in queries]
    assert batch.scores.tolist() == [s.scores[0] for s in alone]
    assert batch.stage == [s.stage[0] for s in alone]
    assert len(set(queries)) < len(queries)


def _edge(graphs: GraphSet, graph: str, measure: str, p: int, h: int) -> float:
    """One edge's score read straight from the CSR arrays (self-edges are 1)."""
    if p == h:
        return 1.0
    data, indices, indptr = graphs.graphs[graph].matrices[measure]
    for k in range(int(indptr[p]), int(indptr[p + 1])):
        if int(indices[k]) == h:
            return float(data[k])
    return 0.0


def _reference(graphs: GraphSet, q: Query, measure: str) -> tuple[str, float]:
    """A query's stage and score by the rules, one query at a time: the typed edge (same-type graphs read the
    canonical mirror pair), else fuzzy readings in the typed graph, else the mean over every graph reading both
    predicates of the best pair there; 0 and `none` otherwise."""
    from graph_builder.graphs.counts import graph_name
    from graph_builder.graphs.graphset import _typed_pair

    def readings(predicate: str) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for e in graphs.fuzzy.lookup(predicate, None, 10**9, graphs.min_count):
            rows = out.setdefault(e.graph, [])
            if len(rows) < 20:
                rows.append(graphs.graphs[e.graph].index[e.node])
        return out

    def slots(graph_name_: str, row: int) -> str:
        parts = graphs.graphs[graph_name_].nodes[row].rsplit("#", 2)
        return f"#{parts[1]}#{parts[2]}"

    def swap(order: str) -> str:
        _, x, y = order.split("#")
        return f"#{y}#{x}"

    found: list[tuple[str, list[int], list[int]]] = []
    stage = "none"
    typed = graphs.graphs.get(graph_name(*q.types)) if q.typed else None
    if typed is not None:
        p_node, h_node = _typed_pair(q)
        p, h = typed.index.get(p_node), typed.index.get(h_node)
        # Fuzzy readings keep each side's orientation: the premise's slot order, the hypothesis'.
        p_order, h_order = "#" + "#".join(p_node.rsplit("#", 2)[1:]), "#" + "#".join(h_node.rsplit("#", 2)[1:])
        ps = [r for r in readings(q.premise).get(typed.name, []) if slots(typed.name, r) == p_order]
        hs = [r for r in readings(q.hypothesis).get(typed.name, []) if slots(typed.name, r) == h_order]
        if p is not None and h is not None:
            stage, found = "typed", [(typed.name, [p], [h])]
        elif ps and hs:
            stage, found = "fuzzy", [(typed.name, ps, hs)]
    if stage == "none":
        # Backoff pairs readings whose arguments line up as the query's: same slot order, or swapped if reversed.
        rp, rh = readings(q.premise), readings(q.hypothesis)
        for name in sorted(rp.keys() & rh.keys()):
            for order in dict.fromkeys(slots(name, r) for r in rh[name]):
                want = swap(order) if q.premise_reversed else order
                p_rows = [r for r in rp[name] if slots(name, r) == want]
                h_rows = [r for r in rh[name] if slots(name, r) == order]
                if p_rows and h_rows:
                    found.append((name, p_rows, h_rows))
        if found:
            stage = "backoff"
    if not found:
        return stage, 0.0
    per_graph: dict[str, float] = {}  # the best pair of each graph, over every slot order read there
    for name, ps, hs in found:
        per_graph[name] = max(per_graph.get(name, 0.0), max(_edge(graphs, name, measure, p, h) for p in ps for h in hs))
    total = 0.0
    for name in sorted(per_graph):
        total += per_graph[name]
    return stage, total / len(per_graph)


def test_grouped_resolution_equals_one_query_at_a_time(any_graphs: GraphSet) -> None:
    """score_batch resolves a batch hypothesis by hypothesis; every stage and score is that of the rules applied
    to each query alone: typed and same-type graphs, reversed premises, untyped queries, unknown predicates and
    type pairs without a graph, hypotheses asked against many premises as an evaluation batch asks them."""
    graphs = any_graphs
    rng = random.Random(7)
    by_graph = {name: [node.rsplit("#", 2)[0] for node in g.nodes] for name, g in graphs.graphs.items()}
    names = sorted(by_graph)
    same = [n for n in names if n.split("#")[0] == n.split("#")[1]]
    queries = []
    for _ in range(40):
        name = rng.choice(same if same and rng.random() < 0.4 else names)
        a, b = name.split("#")
        types = (a, b) if rng.random() < 0.5 else (b, a)
        hypothesis = rng.choice(by_graph[name] + ["(never.1,seen.2)"])
        for _ in range(rng.randint(1, 30)):
            pool = by_graph[rng.choice(names)] if rng.random() < 0.3 else by_graph[name]
            premise = hypothesis if rng.random() < 0.1 else rng.choice(pool + ["(unknown.1,thing.2)"])
            queries.append(Query(premise, hypothesis, types if rng.random() < 0.9 else ("nosuch", "type"),
                                 rng.random() < 0.4, rng.random() < 0.95))
    for measure in graphs.measures:
        batch = graphs.score_batch(queries, measure)
        expected = [_reference(graphs, q, measure) for q in queries]
        assert batch.stage == [stage for stage, _ in expected], measure
        assert batch.scores.tolist() == [score for _, score in expected], measure
    stages = set(graphs.score_batch(queries, "binc").stage)
    assert {"typed", "backoff", "none"} <= stages
    # A fuzzy reading must keep both sides' orientation: the small fixture has none to find, the corpus' graphs do.
    if sum(len(g.nodes) for g in graphs.graphs.values()) > 1000:
        assert "fuzzy" in stages


def test_lookup_scores_equals_dense_reference() -> None:
    """The per-row binary search reads exactly the dense matrix, misses included, on random sparse inputs."""
    rng = np.random.default_rng(0)
    for n, density in ((1, 1.0), (7, 0.0), (30, 0.2), (200, 0.05), (64, 0.9)):
        m = sp.random(n, n, density=density, format="csr", random_state=rng, dtype=np.float64)
        m.sort_indices()
        dense = m.toarray()
        np.fill_diagonal(dense, 1.0)
        rows, cols = rng.integers(0, n, 500), rng.integers(0, n, 500)
        got = lookup_scores((m.data, m.indices, m.indptr), n, rows, cols)
        assert np.array_equal(got, dense[rows, cols])
    assert lookup_scores((m.data, m.indices, m.indptr), 64, np.array([], dtype=np.int64),
                         np.array([], dtype=np.int64)).size == 0
