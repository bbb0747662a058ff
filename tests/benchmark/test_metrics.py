"""AUC_norm and friends against values computed by hand, and the curve against scikit-learn's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, precision_recall_curve

from benchmark.metrics import (
    ap_norm,
    auc_50,
    auc_norm,
    bootstrap_draws,
    bootstrap_metrics,
    bundle_contrast,
    coverage,
    describe_metrics,
    evaluate_scores,
    paired_difference,
    plot_pr_curves,
    pr_curve,
    unit_index,
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
    result = evaluate_scores(labels, scores, evidence, resamples=0)
    # AP_norm: steps (1/4)*1 + (1/2)*(3/4) + 0 + (1/4)*(1/2) = .25 + .375 + .125 = .75; (.75 - .5) / .5 = .5
    assert result == pytest.approx({"auc_norm": 0.65, "auc_norm_ci": None, "ap_norm": 0.5, "ap_norm_ci": None,
                                    "auc_50": 0.825, "xi": 0.5, "coverage": 0.625, "n": 8, "positives": 4,
                                    "bootstrap": None})
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
    # (1 - xi) / 2, so AUC_norm is 1/2. This is what the definition of Li et al. (2022) gives; noted, not hidden.
    labels = [1, 0, 0, 0]
    result = evaluate_scores(labels, [0.3, 0.2, 0.1, 0.4], has_evidence=[False] * 4)
    assert result["auc_norm"] == pytest.approx(0.5)
    # Its companion does not reward the tie: one step to recall 1 at precision xi, AP = xi, AP_norm = 0.
    assert result["ap_norm"] == pytest.approx(0.0)
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
    assert imread(path).shape[:2] == (768, 960)
    with pytest.raises(InputError, match="different label sets"):
        plot_pr_curves({"a": curves["binc"], "b": pr_curve([1, 0, 0], [1, 0, 0])}, tmp_path / "x.png")


# --- normalised average precision (AP_norm): step-wise, ties entering together, (AP - xi) / (1 - xi) ---

def test_ap_norm_of_a_constant_scorer_is_zero() -> None:
    # One threshold: every entry enters at once, (R, P) goes (0, 1) -> (1, xi = 1/4).
    # AP = (1 - 0) * 1/4 = 1/4 = xi, so AP_norm = 0. AUC_norm's trapezoid from (0, 1) gives it 1/2.
    labels = [1, 0, 0, 0]
    for constant in (0.0, 0.5, 1.0):
        assert ap_norm(labels, [constant] * 4) == pytest.approx(0.0, abs=1e-12)
        assert auc_norm(labels, [constant] * 4) == pytest.approx(0.5)


def test_ap_norm_of_a_perfect_scorer_is_one() -> None:
    # Thresholds .9 -> (1/2, 1), .8 -> (1, 1), .1 -> (1, 2/3), 0 -> (1, 2/5); xi = 2/5.
    # AP = 1/2 * 1 + 1/2 * 1 + 0 + 0 = 1; (1 - 2/5) / (1 - 2/5) = 1.
    assert ap_norm([1, 1, 0, 0, 0], [0.9, 0.8, 0.1, 0.0, 0.0]) == pytest.approx(1.0)


def test_ap_norm_of_a_reversed_scorer_is_below_zero() -> None:
    # Scores rank every negative first: .9, .8, .7 -> (0, 0); .2 -> TP1 of 4 (1/2, 1/4); .1 -> TP2 of 5 (1, 2/5).
    # AP = 1/2 * 1/4 + 1/2 * 2/5 = 1/8 + 1/5 = 13/40; xi = 2/5; AP_norm = (13/40 - 16/40) / (24/40) = -1/8.
    # AUC_norm floors precision at xi and says 0: it cannot tell "worse than chance" from "chance".
    labels, scores = [1, 1, 0, 0, 0], [0.1, 0.2, 0.7, 0.8, 0.9]
    assert ap_norm(labels, scores) == pytest.approx(-1 / 8)
    assert auc_norm(labels, scores) == pytest.approx(0.0)


def test_a_tie_at_the_top_is_rewarded_by_auc_norm_and_not_by_ap_norm() -> None:
    # labels 1 0 | 1 0 0 | 0, scores .9 .9 | .5 .5 .5 | 0; xi = 2/6 = 1/3.
    # Tied: .9 -> TP1 of 2 (1/2, 1/2); .5 -> TP2 of 5 (1, 2/5); 0 -> (1, 1/3).
    #   AP = 1/2 * 1/2 + 1/2 * 2/5 = 9/20; AP_norm = (9/20 - 1/3) / (2/3) = 7/40.
    #   AUC_norm: max(P - xi, 0) = 2/3, 1/6, 1/15, 0; trapezoids 1/2 * (2/3 + 1/6) / 2 = 5/24 and
    #   1/2 * (1/6 + 1/15) / 2 = 7/120: 32/120 = 4/15; / (2/3) = 2/5.
    # The tie broken the lucky way (positive .95, negative .9): (1/2, 1), (1/2, 1/2), (1, 2/5), (1, 1/3):
    #   AP = 1/2 + 1/5 = 7/10 -> AP_norm 11/20; AUC_norm (1/3 + 0 + 7/120) * 3/2 = 47/80.
    # ... and the unlucky way (negative .95, positive .9): (0, 0), (1/2, 1/2), (1, 2/5), (1, 1/3):
    #   AP = 1/4 + 1/5 = 9/20 -> AP_norm 7/40; AUC_norm (0 + 1/24 + 7/120) * 3/2 = 3/20.
    # A tie is a coin flip: AUC_norm gives it more than the flip's mean (2/5 > (47/80 + 3/20) / 2 = 59/160),
    # AP_norm gives it no more (7/40 <= (11/20 + 7/40) / 2).
    labels = [1, 0, 1, 0, 0, 0]
    tied, lucky, unlucky = ([t, 0.9, 0.5, 0.5, 0.5, 0.0] for t in (0.9, 0.95, 0.85))
    assert ap_norm(labels, tied) == pytest.approx(7 / 40)
    assert auc_norm(labels, tied) == pytest.approx(2 / 5)
    assert ap_norm(labels, lucky) == pytest.approx(11 / 20)
    assert auc_norm(labels, lucky) == pytest.approx(47 / 80)
    assert ap_norm(labels, unlucky) == pytest.approx(7 / 40)
    assert auc_norm(labels, unlucky) == pytest.approx(3 / 20)
    assert auc_norm(labels, tied) > (auc_norm(labels, lucky) + auc_norm(labels, unlucky)) / 2
    assert ap_norm(labels, tied) <= (ap_norm(labels, lucky) + ap_norm(labels, unlucky)) / 2


def test_all_zero_scores_and_no_evidence_give_ap_norm_zero() -> None:
    # Every entry at 0 (or without evidence, which counts as 0): one step to (1, xi = 1/3), AP = xi.
    labels = [1, 0, 0, 1, 0, 0]
    assert ap_norm(labels, [0.0] * 6) == pytest.approx(0.0, abs=1e-12)
    assert ap_norm(labels, [0.9, 0.1, 0.1, 0.8, 0.1, 0.1], has_evidence=[False] * 6) == pytest.approx(0.0, abs=1e-12)


def test_no_positives_or_only_positives_are_a_clear_error() -> None:
    # xi = 0 leaves recall undefined; xi = 1 makes 1 - xi = 0: both metrics are undefined, said so.
    with pytest.raises(InputError, match="no positive entries"):
        ap_norm([0, 0, 0], [0.1, 0.5, 0.0])
    with pytest.raises(InputError, match="only positive entries"):
        ap_norm([1, 1], [0.1, 0.5])
    with pytest.raises(InputError, match="only positive entries"):
        evaluate_scores([1, 1], [0.1, 0.5])


def test_ap_norm_matches_sklearn_average_precision_on_random_scores_with_ties() -> None:
    rng = np.random.default_rng(11)
    labels = rng.integers(0, 2, size=800)
    scores = np.round(rng.random(800) * labels * 0.4 + rng.random(800), 1)
    scores[rng.random(800) < 0.3] = 0.0
    xi = labels.mean()
    expected = (average_precision_score(labels, scores) - xi) / (1 - xi)
    assert ap_norm(labels, scores) == pytest.approx(expected)


# --- bootstrap intervals, resampling bundles ---

def _random_bundles(bundles: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Bundles of one positive and 0-2 negatives, coarse scores (many ties), a third without evidence."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 4, size=bundles)
    groups = [f"b{b:05d}" for b, size in enumerate(sizes) for _ in range(size)]
    labels = np.concatenate([[1] + [0] * (size - 1) for size in sizes])
    scores = np.round(rng.random(labels.size) * 0.7 + 0.3 * labels * rng.random(labels.size), 1)
    evidence = rng.random(labels.size) > 0.33
    return labels, scores, evidence, groups


def test_identical_bundles_give_a_zero_width_interval_at_the_point_estimate() -> None:
    # 40 copies of one bundle: labels 1 0 0, scores .5 .8 .3. Any resample is 40 copies of it again.
    # Thresholds .8 -> (0, 0), .5 -> (1, 1/2), .3 -> (1, 1/3); xi = 1/3.
    # AP = 1 * 1/2 -> AP_norm (1/2 - 1/3) / (2/3) = 1/4.
    # AUC_norm: max(P - xi, 0) = 2/3, 0, 1/6, 0; only (0, 0) -> (1, 1/6) has width: 1/12; / (2/3) = 1/8.
    labels, scores = [1, 0, 0] * 40, [0.5, 0.8, 0.3] * 40
    groups = [f"b{k}" for k in range(40) for _ in range(3)]
    boot = bootstrap_metrics(labels, scores, groups=groups, resamples=200)
    assert boot.auc_norm == pytest.approx((1 / 8, 1 / 8))
    assert boot.ap_norm == pytest.approx((1 / 4, 1 / 4))
    assert (boot.units, boot.resamples, boot.undefined) == (40, 200, 0)


def test_bootstrap_equals_a_naive_loop_over_resampled_bundles() -> None:
    # The vectorised weights must give exactly what concatenating the drawn bundles and scoring them gives.
    labels, scores, evidence, groups = _random_bundles(150, seed=5)
    boot = bootstrap_metrics(labels, scores, evidence, groups, resamples=60, seed=9)
    unit = unit_index(groups, labels.size)
    members = [np.flatnonzero(unit == k) for k in range(boot.units)]
    values = []
    for row in bootstrap_draws(boot.units, 60, seed=9):
        idx = np.concatenate([members[k] for k in row])
        drawn = (labels[idx], scores[idx], evidence[idx])
        values.append((auc_norm(*drawn), ap_norm(*drawn)))
    low, high = np.percentile(np.array(values), [2.5, 97.5], axis=0)
    assert boot.auc_norm == pytest.approx((low[0], high[0]), abs=1e-12)
    assert boot.ap_norm == pytest.approx((low[1], high[1]), abs=1e-12)


def test_interval_holds_the_point_estimate_narrows_with_more_bundles_and_is_reproducible() -> None:
    small = evaluate_scores(*_random_bundles(200, seed=1))
    large = evaluate_scores(*_random_bundles(2000, seed=1))
    for m in (small, large):
        for key in ("auc_norm", "ap_norm"):
            low, high = m[f"{key}_ci"]
            assert low < m[key] < high
        assert m["bootstrap"]["resamples"] == 1000 and m["bootstrap"]["level"] == 0.95
    # Ten times the bundles: the interval shrinks by about sqrt(10) ~ 3.2.
    for key in ("auc_norm", "ap_norm"):
        width_small = small[f"{key}_ci"][1] - small[f"{key}_ci"][0]
        width_large = large[f"{key}_ci"][1] - large[f"{key}_ci"][0]
        assert 2.0 < width_small / width_large < 5.0
    assert evaluate_scores(*_random_bundles(200, seed=1)) == small  # fixed seed: the same interval


def test_bundles_are_resampled_whole() -> None:
    # Bundle b1 holds both positives with the top scores; b0 and b2 hold only negatives. A resample is
    # undefined when it draws no b1 (no positive) or only b1 (no negative): those are counted, not scored.
    labels = [0, 1, 1, 0, 0]
    scores = [0.2, 0.9, 0.8, 0.1, 0.3]
    groups = ["b0", "b1", "b1", "b2", "b2"]
    boot = bootstrap_metrics(labels, scores, groups=groups, resamples=300, seed=4)
    draws = bootstrap_draws(3, 300, seed=4)
    assert boot.undefined == int((draws != 1).all(axis=1).sum() + (draws == 1).all(axis=1).sum()) > 0
    # With b1 drawn, its two positives always outrank every negative: each defined resample scores 1.
    assert boot.auc_norm == pytest.approx((1.0, 1.0)) and boot.ap_norm == pytest.approx((1.0, 1.0))
    # Entry by entry the two positives are split up, and some resamples hold one of them only.
    assert bootstrap_metrics(labels, scores, resamples=300, seed=4).undefined != boot.undefined


def test_bootstrap_refuses_bad_groups_and_levels() -> None:
    with pytest.raises(InputError, match="one bundle id per entry"):
        bootstrap_metrics([1, 0, 0], [0.5, 0.1, 0.2], groups=["a", "b"])
    with pytest.raises(InputError, match="confidence level"):
        bootstrap_metrics([1, 0], [0.5, 0.1], level=1.5)
    with pytest.raises(InputError, match="at least one"):
        bootstrap_metrics([1, 0], [0.5, 0.1], resamples=0)


def test_metrics_line_reads_both_metrics_with_intervals() -> None:
    line = describe_metrics({"auc_norm": 0.59, "auc_norm_ci": [0.512, 0.664], "ap_norm": 0.031,
                             "ap_norm_ci": [-0.02, 0.08], "auc_50": 0.7, "coverage": 1.0})
    assert line == "AUC_norm 59.0 [51.2, 66.4]  AP_norm 3.1 [-2.0, 8.0]  AUC_50 70.0  coverage 100.0"


def test_points_after_full_recall_add_nothing_as_in_older_sklearn_curves() -> None:
    # scikit-learn before 1.1 cut its curve at the first threshold reaching recall 1; the points after it
    # all sit at recall 1 (zero width), so AUC_norm and AP_norm are the same either way.
    labels = [1, 0, 1, 0, 0, 0]
    scores = [0.9, 0.8, 0.7, 0.4, 0.2, 0.0]
    curve = pr_curve(labels, scores)
    cut = int(np.argmax(curve.recall == 1.0)) + 1
    assert cut < curve.recall.size  # there are points after full recall here
    recall, precision = curve.recall[:cut], curve.precision[:cut]
    lifted = np.maximum(precision - curve.xi, 0.0)
    truncated_auc = np.sum(np.diff(recall) * (lifted[1:] + lifted[:-1]) / 2) / (1 - curve.xi)
    truncated_ap = (np.sum(np.diff(recall) * precision[1:]) - curve.xi) / (1 - curve.xi)
    assert auc_norm(labels, scores) == pytest.approx(truncated_auc)
    assert ap_norm(labels, scores) == pytest.approx(truncated_ap)
    # By hand: (1/2, 1), (1/2, 1/2), (1, 2/3); xi = 1/3.
    # AP = 1/2 + 1/2 * 2/3 = 5/6 -> AP_norm (5/6 - 1/3) / (2/3) = 3/4.
    assert ap_norm(labels, scores) == pytest.approx(3 / 4)


# --- paired differences and the bundle contrast ---

def test_paired_difference_of_a_scorer_with_itself_is_exactly_zero() -> None:
    labels, scores, evidence, groups = _random_bundles(120, seed=2)
    diff = paired_difference(labels, scores, scores, evidence, groups, resamples=100)
    assert (diff.ap_norm, diff.auc_norm) == (0.0, 0.0)
    assert diff.ap_norm_ci == (0.0, 0.0) and diff.auc_norm_ci == (0.0, 0.0)
    assert diff.ap_norm_a_wins == 0.0


def test_paired_difference_equals_a_naive_loop_with_shared_draws() -> None:
    # Both scorers are scored on the same concatenated bundles of every resample; the interval is that of
    # the per-resample difference, not of two separate intervals.
    labels, scores, evidence, groups = _random_bundles(150, seed=5)
    other = np.round(np.random.default_rng(8).random(labels.size), 1) * (scores > 0.2)
    diff = paired_difference(labels, scores, other, evidence, groups, resamples=60, seed=9)
    assert diff.ap_norm == pytest.approx(ap_norm(labels, scores, evidence) - ap_norm(labels, other, evidence))
    assert diff.auc_norm == pytest.approx(auc_norm(labels, scores, evidence) - auc_norm(labels, other, evidence))
    unit = unit_index(groups, labels.size)
    members = [np.flatnonzero(unit == k) for k in range(diff.bootstrap.units)]
    values = []
    for row in bootstrap_draws(diff.bootstrap.units, 60, seed=9):
        idx = np.concatenate([members[k] for k in row])
        y, ev = labels[idx], evidence[idx]
        values.append((auc_norm(y, scores[idx], ev) - auc_norm(y, other[idx], ev),
                       ap_norm(y, scores[idx], ev) - ap_norm(y, other[idx], ev)))
    array = np.array(values)
    low, high = np.percentile(array, [2.5, 97.5], axis=0)
    assert diff.auc_norm_ci == pytest.approx((low[0], high[0]), abs=1e-12)
    assert diff.ap_norm_ci == pytest.approx((low[1], high[1]), abs=1e-12)
    assert diff.ap_norm_a_wins == pytest.approx(float((array[:, 1] > 0).mean()))


def test_paired_interval_is_narrower_than_the_separate_ones_for_close_scorers() -> None:
    # B is A with a little noise: separately both intervals are wide and overlap, the paired one is narrow.
    labels, scores, _, groups = _random_bundles(400, seed=3)
    noisy = scores + np.random.default_rng(4).normal(0, 0.02, labels.size) * (scores > 0)
    diff = paired_difference(labels, scores, noisy, groups=groups, resamples=300)
    alone = bootstrap_metrics(labels, scores, groups=groups, resamples=300)
    assert diff.ap_norm_ci[1] - diff.ap_norm_ci[0] < (alone.ap_norm[1] - alone.ap_norm[0]) / 3


def test_bundle_contrast_by_hand() -> None:
    # b1: pos .5 vs negs .2 (both scored, positive higher) and 0 (positive only).
    # b2: pos 0 vs negs .3 (negative only) and 0 (neither).  b3: pos .4 vs neg .4 (tied).
    # b4: pos .1 vs neg .7 (negative higher).  b5: a positive alone, no pair.
    labels = [1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 1]
    scores = [0.5, 0.2, 0.0, 0.0, 0.3, 0.0, 0.4, 0.4, 0.1, 0.7, 0.9]
    groups = ["b1"] * 3 + ["b2"] * 3 + ["b3"] * 2 + ["b4"] * 2 + ["b5"]
    c = bundle_contrast(labels, scores, groups)
    assert c.as_dict() == {"pairs": 6, "neither": 1, "positive_only": 1, "negative_only": 1,
                           "both_positive_higher": 1, "both_negative_higher": 1, "both_tied": 1}
    # Without evidence a score counts as 0: b4's negative then has none, and the pair becomes positive-only.
    evidence = [True] * 9 + [False, True]
    assert bundle_contrast(labels, scores, groups, evidence).positive_only == 2


def test_paired_difference_refuses_mismatched_scores() -> None:
    with pytest.raises(InputError, match="equal length"):
        paired_difference([1, 0, 0], [0.5, 0.1, 0.2], [0.5, 0.1])
    with pytest.raises(InputError, match="confidence level"):
        paired_difference([1, 0], [0.5, 0.1], [0.1, 0.5], level=0.0)
