"""AUC_norm and friends against values computed by hand, and the curve against scikit-learn's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import precision_recall_curve

from benchmark.metrics import (
    auc_50,
    auc_norm,
    coverage,
    evaluate_scores,
    plot_pr_curves,
    pr_curve,
)
from graph_builder.errors import InputError


def test_auc_norm_with_a_tie_by_hand() -> None:
    # labels 1 0 1 0 1 0, scores .9 .8 .8 .5 0 0; P = 3, n = 6, xi = 1/2.
    # thresholds: .9 -> TP1 FP0 (1/3, 1); .8 (tie, one pos one neg enter together) -> TP2 FP1 (2/3, 2/3);
    # .5 -> TP2 FP2 (2/3, 1/2); 0 -> TP3 FP3 (1, 1/2). With the start point (0, 1):
    # max(P - xi, 0) = 1/2, 1/2, 1/6, 0, 0
    # trapezoids: 1/3 * 1/2 + 1/3 * (1/2 + 1/6) / 2 + 0 + 0 = 1/6 + 1/9 = 5/18; / (1 - 1/2) = 5/9.
    labels = [1, 0, 1, 0, 1, 0]
    scores = [0.9, 0.8, 0.8, 0.5, 0.0, 0.0]
    curve = pr_curve(labels, scores)
    np.testing.assert_allclose(curve.recall, [0, 1 / 3, 2 / 3, 2 / 3, 1])
    np.testing.assert_allclose(curve.precision, [1, 1, 2 / 3, 1 / 2, 1 / 2])
    np.testing.assert_allclose(curve.thresholds, [0.9, 0.8, 0.5, 0.0])
    assert auc_norm(labels, scores) == pytest.approx(5 / 9)
    # AUC_50, every point has P >= .5: 1/3 * 1 + 1/3 * (1 + 2/3) / 2 + 0 + 1/3 * (1/2 + 1/2) / 2
    # = 6/18 + 5/18 + 3/18 = 7/9.
    assert auc_50(labels, scores) == pytest.approx(7 / 9)


def test_no_evidence_entries_tie_at_zero_by_hand() -> None:
    # Effective scores .9 .6 .6 .6 .3 | 0 0 0 (last three have no evidence, whatever they say).
    # labels            1  0  1  1  0 | 0 0 1;  P = 4, n = 8, xi = 1/2.
    # .9 -> TP1 FP0 (1/4, 1); .6 -> TP3 FP1 (3/4, 3/4); .3 -> TP3 FP2 (3/4, 3/5); 0 -> TP4 FP4 (1, 1/2).
    # max(P - xi, 0) = 1/2 (start), 1/2, 1/4, 1/10, 0
    # trapezoids: 1/4 * 1/2 + 1/2 * 3/4 / 2 + 0 + 1/4 * 1/10 / 2 = .125 + .1875 + .0125 = .325; / .5 = .65
    # AUC_50: 1/4 * 1 + 1/2 * 7/4 / 2 + 0 + 1/4 * 11/10 / 2 = .25 + .4375 + .1375 = .825
    labels = [1, 0, 1, 1, 0, 0, 0, 1]
    scores = [0.9, 0.6, 0.6, 0.6, 0.3, 0.3, 0.2, 0.8]
    evidence = [True, True, True, True, True, False, False, False]
    curve = pr_curve(labels, scores, evidence)
    assert (curve.recall[-1], curve.precision[-1]) == (1.0, 0.5)  # the end point (1, xi)
    result = evaluate_scores(labels, scores, evidence)
    assert result == pytest.approx({"auc_norm": 0.65, "auc_50": 0.825, "xi": 0.5, "coverage": 0.625,
                                    "n": 8, "positives": 4})
    # Without the evidence flags the .8 positive ranks second and the score changes.
    assert auc_norm(labels, scores) != pytest.approx(0.65)


def test_precision_below_xi_adds_nothing_and_perfect_ranking_gives_one() -> None:
    # labels 0 1 0 1, scores .9 .5 .5 0: xi = 1/2; points (0,1) (0,0) (1/2,1/2) (1,1/2):
    # max(P - xi, 0) = 1/2, 0, 0, 0 and the first segment has width 0, so AUC_norm = 0.
    assert auc_norm([0, 1, 0, 1], [0.9, 0.5, 0.5, 0.0]) == pytest.approx(0.0)
    # Perfect ranking: (0,1) (1,1) (1,xi): area (1 - xi) * 1, normalised to 1.
    assert auc_norm([1, 1, 0, 0, 0], [0.9, 0.8, 0.1, 0.0, 0.0]) == pytest.approx(1.0)


def test_all_tied_scores_give_the_straight_line_from_start_to_end() -> None:
    # Every entry without evidence: the curve is (0, 1) -> (1, xi); the trapezoid over that one segment is
    # (1 - xi) / 2, so AUC_norm is 1/2. This is what the REFERENCE §2 definition gives; noted, not hidden.
    labels = [1, 0, 0, 0]
    result = evaluate_scores(labels, [0.3, 0.2, 0.1, 0.4], has_evidence=[False] * 4)
    assert result["auc_norm"] == pytest.approx(0.5)
    assert result["coverage"] == 0.0


def test_curve_matches_sklearn_on_random_scores_with_ties() -> None:
    rng = np.random.default_rng(7)
    labels = rng.integers(0, 2, size=500)
    scores = np.round(rng.random(500) * labels * 0.5 + rng.random(500), 1)  # coarse: many ties
    scores[rng.random(500) < 0.3] = 0.0
    precision, recall, thresholds = precision_recall_curve(labels, scores)
    curve = pr_curve(labels, scores)
    # sklearn lists points by decreasing threshold from the end; ours run by increasing recall.
    np.testing.assert_allclose(curve.recall, recall[::-1])
    np.testing.assert_allclose(curve.precision, precision[::-1])
    np.testing.assert_allclose(curve.thresholds, thresholds[::-1])
    xi = labels.mean()
    lifted = np.maximum(precision - xi, 0)
    expected = -np.trapezoid(lifted, recall) / (1 - xi)
    assert auc_norm(labels, scores) == pytest.approx(expected)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(InputError, match="no positive"):
        auc_norm([0, 0], [0.1, 0.2])
    with pytest.raises(InputError, match="equal length"):
        auc_norm([0, 1], [0.1])
    with pytest.raises(InputError, match="0/1"):
        auc_norm([0, 2], [0.1, 0.2])
    with pytest.raises(InputError, match="finite"):
        auc_norm([0, 1], [0.1, float("nan")])
    assert coverage([0.0, 0.2, 0.0, 1.0]) == 0.5


def test_pr_figure_is_a_png_with_every_scorer(tmp_path: Path) -> None:
    from matplotlib.image import imread

    labels = [1, 0, 1, 0, 1, 0]
    curves = {"binc": pr_curve(labels, [0.9, 0.8, 0.8, 0.5, 0, 0]),
              "cos": pr_curve(labels, [0.1, 0.8, 0.8, 0.5, 0.2, 0])}
    path = plot_pr_curves(curves, tmp_path / "fig" / "pr.png", title="test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert imread(path).shape[:2] == (576, 768)
    with pytest.raises(InputError, match="different label sets"):
        plot_pr_curves({"a": curves["binc"], "b": pr_curve([1, 0, 0], [1, 0, 0])}, tmp_path / "x.png")
