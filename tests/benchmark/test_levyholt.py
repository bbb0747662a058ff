"""LevyHolt: file reading, readable-format parsing, and the directional check on dev_dir."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graph_builder.graphs.build import BuildParams, build_graphs
from graph_builder.graphs.graphset import GraphSet
from benchmark.metrics import pr_curve
from benchmark.levyholt import evaluate_levyholt, format_table, read_readable, read_rels, score_pairs, to_query
from graph_builder.graphs.scorers import LmCosine, build_scorers
from graph_builder.embeddings import embed_graphset
from tests.graph_builder.graph_fixtures import SHARED_DATA, write_triples
from tests.graph_builder.lm_fixtures import encoder_or_skip

LEVYHOLT = SHARED_DATA / "levyholt"


def need_levyholt() -> None:
    if not (LEVYHOLT / "dev_dir" / "dev_dir_rels.txt").is_file():
        pytest.skip(f"LevyHolt not found at {LEVYHOLT} (../shared/data beside the repository)")


def test_rels_files_read_with_labels_and_unparsed_sides() -> None:
    need_levyholt()
    dev_dir = read_rels(LEVYHOLT / "dev_dir" / "dev_dir_rels.txt")
    assert len(dev_dir) == 630 and sum(p.label for p in dev_dir) == 315
    dev = read_rels(LEVYHOLT / "dev" / "dev_rels.txt")
    assert len(dev) == 5486 and sum(p.label for p in dev) == 1085
    assert sum(p.premise is None for p in dev) == 6
    first = dev[2]  # kanamycin: "(kill.1,kill.2)" premise entails the "useful in" hypothesis
    assert first.label and first.premise.predicate == "(kill.1,kill.2)"
    assert first.hypothesis.predicate == "(useful.1,useful.in.2)" and first.hypothesis.type2 == "disease"


def test_symmetric_measures_score_zero_auc_norm_on_dev_dir(tmp_path: Path) -> None:
    need_levyholt()
    pairs = read_rels(LEVYHOLT / "dev_dir" / "dev_dir_rels.txt")
    rng = np.random.default_rng(0)
    specs = []
    sides = sorted({(s.predicate, s.type1, s.type2) for p in pairs for s in (p.premise, p.hypothesis) if s})
    for pred, t1, t2 in sides:
        for _ in range(6):  # random argument pairs from small pools, so predicates share features
            a, b = rng.choice(5, size=2, replace=False)
            specs.append((f"{t1}{a}", t1, pred, f"{t2}{b}", t2))
    write_triples(tmp_path / "t", specs)
    # Unpruned: a node's top 100 may keep p -> q and drop q -> p, so pruned symmetric measures are not symmetric.
    build_graphs(tmp_path / "t", tmp_path / "g", BuildParams(min_predicates_per_pair=1, min_pairs_per_predicate=1,
                                                             top_k=None, min_score=0.0), progress=False)
    gs = GraphSet.load(tmp_path / "g")
    rows = evaluate_levyholt(gs, LEVYHOLT / "dev_dir", ("rels",), tmp_path / "pr.png")
    by = {r["measure"]: r for r in rows}
    assert by["cos"]["coverage"] > 0.5 and by["lin"]["coverage"] > 0.5
    labels = np.array([p.label for p in pairs])
    for measure in ("cos", "lin"):
        scores, _ = score_pairs(build_scorers(gs)[measure], pairs)
        # Each line and the next are the same pair in both orders with opposite labels: equal scores.
        np.testing.assert_array_equal(scores[0::2], scores[1::2])
        assert (labels[0::2] != labels[1::2]).all()
        curve = pr_curve(labels, scores)
        # So every threshold has precision xi = 0.5: zero AUC_norm up to the ties, i.e. except the
        # triangle from the curve's start (recall 0, precision 1) to the first tie group.
        np.testing.assert_allclose(curve.precision[1:], 0.5)
        assert by[measure]["auc_norm"] == pytest.approx(curve.recall[1] / 2, abs=1e-12)
        assert by[measure]["auc_norm"] < 0.05
        # AP_norm has no such triangle: precision xi at every step gives AP = xi, AP_norm exactly 0, and so
        # does every resample (each unit is a pair in both orders, one true and one false).
        assert by[measure]["ap_norm"] == pytest.approx(0.0, abs=1e-12)
        assert by[measure]["ap_norm_ci"] == pytest.approx([0.0, 0.0], abs=1e-12)
        assert by[measure]["bootstrap"]["unit"] == "pair"
        # 315 pairs asked in both orders; a few pairs occur twice in the file and are one unit.
        assert by[measure]["bootstrap"]["units"] == len({frozenset((p.premise, p.hypothesis)) for p in pairs}) == 308
    assert by["binc"]["xi"] == 0.5
    assert (tmp_path / "pr_dev_dir_rels.png").stat().st_size > 10_000
    table = format_table(rows).splitlines()
    assert table[0].split()[5:9] == ["AUC_norm", "[95%", "CI]", "AP_norm"]
    cos_row = next(line.split() for line in table if line.split()[2:3] == ["cos"])
    assert cos_row[8:11] == ["0.0", "[0.0,", "0.0]"]  # AP_norm and its interval, in percent


def test_readable_format_keeps_the_best_matching_triple(tmp_path: Path) -> None:
    src = tmp_path / "x_s.txt"
    src.write_text("Kanamycin,is useful in,infections\tKanamycin,kills,infections\tTrue\n", encoding="utf-8")

    def fake_extract(text: str) -> list[dict[str, object]]:
        if "kills" in text:
            return [{"subject": "kanamycin", "predicate": "(kill.1,kill.2)", "object": "infection",
                     "subject_type": "thing", "object_type": "thing"}]
        return [{"subject": "it", "predicate": "(be.1,be.2)", "object": "x", "subject_type": "thing", "object_type": "thing"},
                {"subject": "kanamycin", "predicate": "(useful.1,useful.in.2)", "object": "infections",
                 "subject_type": "thing", "object_type": "thing"}]

    [pair] = read_readable(src, fake_extract)
    assert pair.hypothesis.predicate == "(useful.1,useful.in.2)" and pair.premise.predicate == "(kill.1,kill.2)"
    query = to_query(pair)
    assert query is not None and query.premise == "(kill.1,kill.2)" and not query.premise_reversed


def test_lm_rows_smoothing_raises_coverage_and_lm_cosine_is_symmetric(tmp_path: Path) -> None:
    need_levyholt()
    encoder = encoder_or_skip()
    pairs = read_rels(LEVYHOLT / "dev_dir" / "dev_dir_rels.txt")
    rng = np.random.default_rng(1)
    # Each pair comes twice, in both directions: graphs that know only the first lines' hypotheses leave
    # most of their premises unseen, the case smoothing is for.
    sides = sorted({(p.hypothesis.predicate, p.hypothesis.type1, p.hypothesis.type2) for p in pairs[0::2]
                    if p.hypothesis})
    specs = []
    for pred, t1, t2 in sides:
        for _ in range(6):
            a, b = rng.choice(5, size=2, replace=False)
            specs.append((f"{t1}{a}", t1, pred, f"{t2}{b}", t2))
    write_triples(tmp_path / "t", specs)
    build_graphs(tmp_path / "t", tmp_path / "g", BuildParams(min_predicates_per_pair=1, min_pairs_per_predicate=1,
                                                                         measures=("binc", "cos")), progress=False)
    embed_graphset(tmp_path / "g", encoder, progress=False)
    rows = evaluate_levyholt(GraphSet.load(tmp_path / "g"), LEVYHOLT / "dev_dir", ("rels",), tmp_path / "pr.png",
                             encoder=encoder)
    by = {r["measure"]: r for r in rows}
    graph_rows = {"binc", "cos", "binc+smooth", "cos+smooth"}
    graph_rows |= {f"{r}+act" for r in graph_rows}
    undirected = graph_rows | {f"{r}+lm" for r in graph_rows} | {"lm_cosine"}
    assert set(by) == undirected | {f"{r}+dir" for r in undirected} | {"exact"}
    # +lm: every readable pair gets a score (the LM's where the graph has none), the graph's rows unchanged.
    assert by["binc+lm"]["coverage"] == by["lm_cosine"]["coverage"] > by["binc"]["coverage"]
    assert by["binc+smooth"]["grounded"] > by["binc"]["grounded"] + 0.05  # measured: 0.54 -> 0.61
    assert by["binc+smooth"]["coverage"] > by["binc"]["coverage"]
    # The LM cosine is symmetric: each pair and its reverse score alike, so dev_dir gives it ~0 AUC_norm.
    scores, readable = score_pairs(LmCosine(encoder), pairs)
    np.testing.assert_array_equal(scores[0::2], scores[1::2])
    assert readable.all() and by["lm_cosine"]["coverage"] > 0.9 and by["lm_cosine"]["auc_norm"] < 0.05
    # +dir lowers a pair's score only towards a less general hypothesis: never above the LM's, on the same pairs.
    assert by["lm_cosine+dir"]["coverage"] == by["lm_cosine"]["coverage"]
