"""The global step equals a naive dense reading of its update rule on tiny typed graphs."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from graph_builder.graphs.globalstep import GlobalParams, TypedGraph, global_step


def naive_global(graphs: list[tuple[str, list[str], np.ndarray]], params: GlobalParams,
                 partners: list[dict[int, int]] | None = None, top_k: int | None = None) -> list[np.ndarray]:
    """Jacobi rounds of the documented update, with Python loops over dense matrices and names."""
    lam1, lam2, eps, beta = params.lambda1, params.lambda2, params.epsilon, params.cross_graph_weight
    w0 = [np.clip(m.copy(), 0, 1) for _, _, m in graphs]
    for m in w0:
        np.fill_diagonal(m, 0.0)
    w = [m.copy() for m in w0]

    def parts(name: str, node: str) -> tuple[str, int]:
        pred, slot1, _ = node.rsplit("#", 2)
        first = name.split("#")[0]
        return pred, 0 if slot1 in (first, first + "_1") else 1

    index = [{parts(name, node): i for i, node in enumerate(nodes)} for name, nodes, _ in graphs]
    for _ in range(params.iterations):
        new = []
        for t, (name, nodes, _) in enumerate(graphs):
            n = len(nodes)
            cur = w[t]
            ind = lambda x: x if x > eps else 0.0  # noqa: E731
            pi = np.array([[ind(cur[a, b]) * ind(cur[b, a]) for b in range(n)] for a in range(n)])
            np.fill_diagonal(pi, 0.0)
            out = np.zeros((n, n))
            for i in range(n):
                for j in range(n):
                    if i == j:
                        continue
                    (pp, oi), (qq, oj) = parts(name, nodes[i]), parts(name, nodes[j])
                    xs = []
                    for u, (uname, _unodes, _) in enumerate(graphs):
                        if u == t:
                            continue
                        for ou in (0, 1):
                            a = index[u].get((pp, ou))
                            b = index[u].get((qq, ou if oi == oj else 1 - ou))
                            if a is not None and b is not None and a != b:
                                xs.append(w[u][a, b])
                    num = w0[t][i, j] + beta * sum(xs) - lam1 / 2
                    den = 1 + beta * len(xs)
                    for b in range(n):
                        if b not in (i, j):
                            num += lam2 * pi[i, b] * cur[b, j] + lam2 * pi[j, b] * cur[i, b]
                            den += lam2 * (pi[i, b] + pi[j, b])
                    if pi[i, j] > 0:
                        s = sum((cur[i, k] - cur[j, k]) ** 2 + (cur[k, i] - cur[k, j]) ** 2
                                for k in range(n) if k not in (i, j))
                        num -= lam2 / 2 * cur[j, i] * s
                    value = min(1.0, max(0.0, num / den))
                    if partners and partners[t].get(i) == j:
                        value = 0.0
                    out[i, j] = value
            if top_k is not None:  # each round keeps a node's top_k scores by (-score, column)
                for i in range(n):
                    ranked = sorted((j for j in range(n) if j != i and out[i, j] > 0), key=lambda j: (-out[i, j], j))
                    for j in ranked[top_k:]:
                        out[i, j] = 0.0
            new.append(out)
        w = new
    for m in w:
        np.fill_diagonal(m, 1.0)
    return w


def tiny_graphs(seed: int, preds: int = 5) -> list[tuple[str, list[str], np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for name in ("location#person", "organization#person", "person#person"):
        a, b = name.split("#")
        slots = [(f"{a}_1", f"{a}_2"), (f"{a}_2", f"{a}_1")] if a == b else [(a, b), (b, a)]
        nodes = sorted({f"(p{rng.integers(preds)}.1,p.2)#{s1}#{s2}"
                        for s1, s2 in (slots[int(rng.integers(2))] for _ in range(6))})
        n = len(nodes)
        m = (rng.random((n, n)) < 0.5) * rng.random((n, n))
        m[rng.random((n, n)) < 0.15] = 1.0  # some exact 1.0 scores, so paraphrase pairs occur
        out.append((name, nodes, m))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_global_step_matches_naive_dense_reference(seed: int) -> None:
    graphs = tiny_graphs(seed)
    params = GlobalParams()
    got = global_step([TypedGraph(name, nodes, sp.csr_matrix(m)) for name, nodes, m in graphs], params)
    expected = naive_global(graphs, params)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.toarray(), e, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_top_k_each_round_and_key_chunks_match_the_reference(seed: int) -> None:
    graphs = tiny_graphs(seed + 10)
    params = GlobalParams(max_instances=5)  # many chunks of keys
    got = global_step([TypedGraph(name, nodes, sp.csr_matrix(m)) for name, nodes, m in graphs], params, top_k=2)
    expected = naive_global(graphs, params, top_k=2)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.toarray(), e, atol=1e-12)
        assert (np.count_nonzero(g.toarray(), axis=1) <= 3).all()


def test_paraphrases_share_neighbours_and_cross_graph_fills_a_missing_edge() -> None:
    # Graph A: p and q are paraphrases (0.9 both ways); p -> r is known, q -> r is not.
    nodes = ["(p.1,p.2)#location#person", "(q.1,q.2)#location#person", "(r.1,r.2)#location#person"]
    a = np.array([[0, 0.9, 0.8], [0.9, 0, 0], [0, 0, 0]], dtype=float)
    # Graph B holds q -> r at 0.6 for other types: the cross-graph term lends it to graph A.
    b_nodes = ["(q.1,q.2)#organization#person", "(r.1,r.2)#organization#person"]
    b = np.array([[0, 0.6], [0, 0]], dtype=float)
    graphs = [("location#person", nodes, a), ("organization#person", b_nodes, b)]
    params = GlobalParams(iterations=1)
    got = global_step([TypedGraph(n, ns, sp.csr_matrix(m)) for n, ns, m in graphs], params)
    ga = got[0].toarray()
    assert ga[1, 2] > 0.3  # q -> r: pulled up by its paraphrase p and by graph B
    np.testing.assert_allclose(ga, naive_global(graphs, params)[0], atol=1e-12)


def test_no_edge_between_a_predicate_and_its_negation() -> None:
    nodes = ["(p.1,p.2)#location#person", "NEG__(p.1,p.2)#location#person"]
    m = np.array([[0, 1.0], [1.0, 0]])
    got = global_step([TypedGraph("location#person", nodes, sp.csr_matrix(m), np.array([1, 0]))])[0].toarray()
    assert got[0, 1] == 0.0 and got[1, 0] == 0.0 and got[0, 0] == 1.0
