"""Measures equal a naive pure-Python reading of the published formulas (Hosseini et al. 2018)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from graph_builder.graphs import measures as M


def naive_scores(dense: list[list[float]]) -> dict[str, dict[tuple[int, int], float]]:
    """Every measure for every pair sharing a feature, straight from the formulas with Python loops."""
    n, f = len(dense), len(dense[0])
    total = sum(sum(r) for r in dense)
    cp = [sum(r) for r in dense]
    cf = [sum(dense[i][j] for i in range(n)) for j in range(f)]

    def w(p: int, j: int) -> float:
        c = dense[p][j]
        # log c(p,f) + log N - log c(p) - log c(f), as the log of one ratio so PMI 0 stays exactly 0
        return max(math.log(c * total / (cp[p] * cf[j])), 0.0) if c > 0 else 0.0

    out: dict[str, dict[tuple[int, int], float]] = {m: {} for m in M.LOCAL_MEASURES}
    for p in range(n):
        for q in range(n):
            shared = [j for j in range(f) if dense[p][j] > 0 and dense[q][j] > 0]
            if not shared:
                continue
            if p == q:
                for m in out:
                    out[m][(p, q)] = 1.0
                continue
            dot = sum(dense[p][j] * dense[q][j] for j in shared)
            out["cos"][(p, q)] = dot / (math.sqrt(sum(x * x for x in dense[p])) *
                                        math.sqrt(sum(x * x for x in dense[q])))
            sp_ = sum(w(p, j) for j in shared)
            sq = sum(w(q, j) for j in shared)
            if sp_ > 0 and sq > 0:
                fp = sum(w(p, j) for j in range(f))
                fq = sum(w(q, j) for j in range(f))
                lin = (sp_ + sq) / (fp + fq)
                weeds = sp_ / fp
                out["lin"][(p, q)] = lin
                out["weeds"][(p, q)] = weeds
                out["binc"][(p, q)] = math.sqrt(lin * weeds)
    return out


def as_dict(m: sp.csr_matrix) -> dict[tuple[int, int], float]:
    coo = m.tocoo()
    return {(int(r), int(c)): float(v) for r, c, v in zip(coo.row, coo.col, coo.data)}


def random_counts(seed: int, n: int = 9, f: int = 12, density: float = 0.35) -> list[list[float]]:
    rng = np.random.default_rng(seed)
    dense = (rng.random((n, f)) < density) * rng.integers(1, 6, size=(n, f))
    dense[:, 0] += 1  # every predicate has a feature, so the formulas stay defined
    return dense.astype(float).tolist()


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("measure", list(M.LOCAL_MEASURES))
def test_measure_matches_naive_on_random_matrices(seed: int, measure: str) -> None:
    dense = random_counts(seed)
    expected = naive_scores(dense)[measure]
    got = as_dict(M.MEASURE_FUNCTIONS[measure](sp.csr_matrix(np.array(dense))))
    # Same edge set (diagonal: self-edges of predicates whose PMI is all zero are 1 too).
    assert set(got) - {(i, i) for i in range(len(dense))} == set(expected) - {(i, i) for i in range(len(dense))}
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-9)


def test_hand_computed_example() -> None:
    # Two predicates, three argument pairs:      f0 f1 f2
    #   p0 = visit                                2  1  0
    #   p1 = arrive in                            1  0  1
    counts = sp.csr_matrix(np.array([[2.0, 1.0, 0.0], [1.0, 0.0, 1.0]]))
    # N = 5, c(p0) = 3, c(p1) = 2, c(f0) = 3, c(f1) = 1, c(f2) = 1.
    w00 = max(math.log(2) + math.log(5) - math.log(3) - math.log(3), 0)   # log(10/9) > 0
    w01 = math.log(1) + math.log(5) - math.log(3) - math.log(1)          # log(5/3)
    w10 = max(math.log(1) + math.log(5) - math.log(2) - math.log(3), 0)   # log(5/6) < 0 -> 0
    w12 = math.log(5 / 2)
    assert w10 == 0.0
    # Shared feature S = {f0}; w+(p1, f0) = 0, so Lin/Weeds/BInc have no edge p0-p1 at all.
    assert as_dict(M.binc(counts)) == {(0, 0): 1.0, (1, 1): 1.0}
    assert as_dict(M.lin(counts)) == {(0, 0): 1.0, (1, 1): 1.0}
    cos = as_dict(M.cosine(counts))
    assert cos[(0, 1)] == pytest.approx(2 / (math.sqrt(5) * math.sqrt(2)), abs=1e-12)
    assert cos[(1, 0)] == pytest.approx(cos[(0, 1)], abs=1e-15)
    # Add p2 sharing f0 and f2 with p1: now both sums are positive for the pair (p1, p2).
    counts3 = sp.csr_matrix(np.array([[2.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 3.0]]))
    # N = 8; c(p1) = 2, c(p2) = 3; c(f2) = 4.  Shared S(p1, p2) = {f2}.
    w1_2 = math.log(1 * 8 / (2 * 4))                                    # log(1) = 0 -> no edge
    assert w1_2 == 0.0
    assert (1, 2) not in as_dict(M.weeds_prec(counts3))
    counts4 = sp.csr_matrix(np.array([[4.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 3.0]]))
    # N = 10; rows 4, 2, 4; cols 5, 2, 3.  p1 and p2 share f1.
    w11 = math.log(1 * 10 / (2 * 2))      # log 2.5
    w10b = max(math.log(1 * 10 / (2 * 5)), 0)  # log 1 = 0
    w21 = math.log(1 * 10 / (4 * 2))      # log 1.25
    w22 = math.log(3 * 10 / (4 * 3))      # log 2.5
    weeds_12 = w11 / (w10b + w11)         # = 1: all of p1's positive PMI is on the shared f1
    weeds_21 = w21 / (w21 + w22)
    lin_12 = (w11 + w21) / (w10b + w11 + w21 + w22)
    got_w = as_dict(M.weeds_prec(counts4))
    got_b = as_dict(M.binc(counts4))
    assert got_w[(1, 2)] == pytest.approx(1.0, abs=1e-12) and weeds_12 == pytest.approx(1.0)
    assert got_w[(2, 1)] == pytest.approx(weeds_21, abs=1e-12)
    assert got_b[(1, 2)] == pytest.approx(math.sqrt(lin_12 * 1.0), abs=1e-12)
    assert got_b[(2, 1)] == pytest.approx(math.sqrt(lin_12 * weeds_21), abs=1e-12)
    del w00, w01, w12


def test_binc_is_asymmetric_and_lin_cos_symmetric() -> None:
    counts = sp.csr_matrix(np.array(random_counts(3, n=15, f=20, density=0.4)))
    b = M.binc(counts).toarray()
    w = M.weeds_prec(counts).toarray()
    assert not np.allclose(b, b.T)
    assert not np.allclose(w, w.T)
    for m in (M.lin(counts), M.cosine(counts)):
        d = m.toarray()
        np.testing.assert_allclose(d, d.T, atol=1e-12)


def test_top_k_and_min_score_keep_best_edges_and_self() -> None:
    counts = sp.csr_matrix(np.array(random_counts(5, n=12, f=10, density=0.6)))
    full = M.measure_matrix(counts, "cos").toarray()
    pruned = M.measure_matrix(counts, "cos", top_k=2, min_score=0.3).toarray()
    for i in range(full.shape[0]):
        assert pruned[i, i] == 1.0
        others = [(-full[i, j], j) for j in range(full.shape[1]) if j != i and full[i, j] >= 0.3]
        expected = {j for _, j in sorted(others)[:2]}
        assert {j for j in np.flatnonzero(pruned[i]) if j != i} == expected


def naive_clean(rows: list[tuple[str, str, str]], nodes: list[str], feats: list[str],
                min_shared: int = 1) -> dict[str, dict[tuple[int, int], float]]:
    """Clean measures from (node, feature, sentence) rows: counts are distinct sentences; f is shared by
    p and q only if some sentence states f with exactly one of them; no edge p <-> NEG__p."""
    sents: dict[tuple[int, int], set[str]] = {}
    for node, feat, sent in rows:
        sents.setdefault((nodes.index(node), feats.index(feat)), set()).add(sent)
    n, f = len(nodes), len(feats)
    dense = [[float(len(sents.get((p, j), ()))) for j in range(f)] for p in range(n)]
    total = sum(map(sum, dense))
    cp = [sum(r) for r in dense]
    cf = [sum(dense[p][j] for p in range(n)) for j in range(f)]

    def w(p: int, j: int) -> float:
        c = dense[p][j]
        return max(math.log(c * total / (cp[p] * cf[j])), 0.0) if c > 0 else 0.0

    out: dict[str, dict[tuple[int, int], float]] = {m: {} for m in M.LOCAL_MEASURES}
    for p in range(n):
        for q in range(n):
            if p == q:
                for m in out:
                    out[m][(p, q)] = 1.0
                continue
            if nodes[p] in ("NEG__" + nodes[q], ) or nodes[q] in ("NEG__" + nodes[p], ):
                continue
            shared = [j for j in range(f) if dense[p][j] > 0 and dense[q][j] > 0 and sents[(p, j)] != sents[(q, j)]]
            if len(shared) < min_shared:
                continue
            dot = sum(dense[p][j] * dense[q][j] for j in shared)
            norm_p, norm_q = (math.sqrt(sum(x * x for x in dense[k])) for k in (p, q))
            out["cos"][(p, q)] = dot / (norm_p * norm_q)
            sp_, sq = sum(w(p, j) for j in shared), sum(w(q, j) for j in shared)
            if sp_ > 0 and sq > 0:
                fp, fq = sum(w(p, j) for j in range(f)), sum(w(q, j) for j in range(f))
                out["lin"][(p, q)] = (sp_ + sq) / (fp + fq)
                out["weeds"][(p, q)] = sp_ / fp
                out["binc"][(p, q)] = math.sqrt(out["lin"][(p, q)] * sp_ / fp)
    return out


def clean_rows(seed: int) -> list[dict[str, object]]:
    """Triples over one type pair where sentences repeat (story updates) and state several predicates."""
    from tests.graph_builder.graph_fixtures import triple_rows

    rng = np.random.default_rng(seed)
    preds = ["(p0.1,p0.2)", "(p1.1,p1.2)", "(p2.1,p2.2)", "(p3.1,p3.2)", "NEG__(p0.1,p0.2)", "(p4.1,p4.x.2)"]
    specs, sentences = [], []
    for k in range(70):
        s, o = f"e{rng.integers(4)}", f"l{rng.integers(4)}"
        text = f"sentence {rng.integers(25)} about {s} {o}"  # few texts: repeats and co-extractions
        for p in rng.choice(preds, size=int(rng.integers(1, 4)), replace=False):
            specs.append((s, "person", str(p), o, "location"))
            sentences.append(text)
    rows = triple_rows(specs)
    for row, text in zip(rows, sentences):
        row["sentence"] = text
    return rows


@pytest.mark.parametrize("seed,min_shared", [(s, 1) for s in range(6)] + [(0, 5), (5, 7), (9, 8), (7, 9)])
@pytest.mark.parametrize("measure", list(M.LOCAL_MEASURES))
def test_clean_measures_match_naive_sentence_level_reference(seed: int, min_shared: int, measure: str) -> None:
    import pyarrow as pa

    from graph_builder.graphs.counts import CountParams, count_matrices, negation_partners, partial_counts
    from graph_builder.triples import TRIPLE_SCHEMA

    rows = clean_rows(seed)
    gc = count_matrices(partial_counts(pa.Table.from_pylist(rows, schema=TRIPLE_SCHEMA)), CountParams(1, 1))[0]
    feats = sorted({f"{r['subj']}#{r['obj']}" for r in rows})
    naive_rows = [(f"{r['predicate']}#person#location", f"{r['obj']}#{r['subj']}", str(r["sentence"])) for r in rows]
    feats = sorted({f for _, f, _ in naive_rows})
    expected = naive_clean(naive_rows, gc.nodes, feats, min_shared)[measure]
    got = as_dict(M.measure_matrix(gc.clean, f"{measure}_clean", excluded=gc.co_extracted,
                                   partner=negation_partners(gc.nodes), min_shared=min_shared))
    assert gc.co_extracted is not None and gc.co_extracted[0].size > 0  # the data has co-extractions
    if min_shared > 1:  # the minimum removes edges
        assert len(expected) < len(naive_clean(naive_rows, gc.nodes, feats, 1)[measure])
    assert set(got) == set(expected)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-9)


def test_co_extracted_predicates_lose_their_one_both_ways_edge() -> None:
    import pyarrow as pa

    from graph_builder.graphs.counts import CountParams, count_matrices, negation_partners, partial_counts
    from graph_builder.triples import TRIPLE_SCHEMA
    from tests.graph_builder.graph_fixtures import triple_rows

    # "A raised its stake in B to N from M": .to and .from are read off every such sentence together.
    specs, texts = [], []
    for k in range(4):
        for p in ("(raise.1,raise.stake.in.to.2)", "(raise.1,raise.stake.in.from.2)"):
            specs.append((f"a{k}", "organization", p, f"b{k}", "person"))
            texts.append(f"a{k} raised its stake in b{k}")
        specs.append((f"a{k}", "organization", "(own.1,own.2)", f"b{k}", "person"))
        texts.append(f"a{k} owns b{k}")
        # The same update published again: counted once in the clean counts.
        specs.append((f"a{k}", "organization", "(own.1,own.2)", f"b{k}", "person"))
        texts.append(f"a{k} owns b{k}")
    rows = triple_rows(specs)
    for row, text in zip(rows, texts):
        row["sentence"] = text
    gc = count_matrices(partial_counts(pa.Table.from_pylist(rows, schema=TRIPLE_SCHEMA)), CountParams(1, 1))[0]
    to, frm, own = (gc.nodes.index(f"{p}#organization#person") for p in
                    ("(raise.1,raise.stake.in.to.2)", "(raise.1,raise.stake.in.from.2)", "(own.1,own.2)"))
    assert gc.matrix[own].sum() == 8 and gc.clean[own].sum() == 4
    plain = M.measure_matrix(gc.matrix, "cos").toarray()
    clean = M.measure_matrix(gc.clean, "cos_clean", excluded=gc.co_extracted,
                             partner=negation_partners(gc.nodes)).toarray()
    assert plain[to, frm] == pytest.approx(1.0) and plain[frm, to] == pytest.approx(1.0)
    assert clean[to, frm] == 0.0 and clean[frm, to] == 0.0
    assert clean[to, own] == pytest.approx(1.0)  # stated separately: still evidence


def test_row_blocks_bound_candidate_pairs_and_do_not_change_scores() -> None:
    counts = sp.csr_matrix(np.array(random_counts(4, n=20, f=15, density=0.4)))
    prep = M.prepare(counts)
    blocks = M.row_blocks(prep.binary, max_rows=1000, max_pairs=60)
    assert blocks[0][0] == 0 and blocks[-1][1] == 20 and all(a[1] == b[0] for a, b in zip(blocks, blocks[1:]))
    bound = np.asarray(prep.binary @ np.asarray(prep.binary.sum(axis=0)).ravel()).ravel()
    assert len(blocks) > 3
    assert all(bound[s:e].sum() <= 60 or e - s == 1 for s, e in blocks)
    edges = [M.block_scores(prep, s, e, ("binc",))["binc"] for s, e in blocks]
    small = M.to_csr(*(np.concatenate(x) for x in zip(*edges)), 20)
    assert abs(small - M.binc(counts)).max() == 0
