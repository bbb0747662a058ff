"""Boolean-QA metrics of Li et al. (2022): the precision-recall curve, AUC_norm, normalised average precision,
bundle-bootstrap confidence intervals, AUC_50, xi and coverage.

Everything here is a pure function of labels and scores. The curve is the one of
`sklearn.metrics.precision_recall_curve` (one point per distinct score, entries with equal scores
entering together, plus the point recall 0 / precision 1), but ordered by increasing recall.

- AUC_norm (the published metric): trapezoids of max(P - xi, 0) over recall, divided by 1 - xi. The
  trapezoid from (0, 1) to the first threshold rewards ties: a scorer that ties every entry gets 0.5.
- AP_norm (its companion): average precision, step-wise without interpolation,
  AP = sum over distinct thresholds of (R_k - R_{k-1}) * P_k, normalised as (AP - xi) / (1 - xi).
  A constant scorer gets exactly 0, a perfect one 1, a scorer worse than chance a negative value.
- Both are undefined without positives or without negatives (xi = 0 or 1): those inputs raise InputError.
- Confidence intervals: percentile bootstrap resampling whole units (a benchmark bundle: a positive
  with its negatives), computed for all resamples at once as per-unit weights on one sorted order.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graph_builder.errors import InputError
from graph_builder.extras import require

ArrayLike = Sequence[float] | Sequence[int] | Sequence[bool] | npt.NDArray[np.generic]

METRIC_KEYS = ("auc_norm", "auc_norm_ci", "ap_norm", "ap_norm_ci", "auc_50", "xi", "coverage", "n",
               "positives", "bootstrap")
BOOTSTRAP_VERSION = "egqa.bootstrap_percentile_by_unit.v1"
DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
CI_LEVEL = 0.95
_CHUNK_CELLS = 500_000  # resamples x entries per numpy step: peak memory under ~100 MB


@dataclass(frozen=True)
class PRCurve:
    """A precision-recall curve in increasing-recall order; `thresholds[i]` yields point i + 1."""

    recall: npt.NDArray[np.float64]
    precision: npt.NDArray[np.float64]
    thresholds: npt.NDArray[np.float64]
    xi: float


@dataclass(frozen=True)
class BootstrapResult:
    """Percentile intervals of AUC_norm and AP_norm, with how they were drawn."""

    auc_norm: tuple[float, float]
    ap_norm: tuple[float, float]
    resamples: int
    seed: int
    units: int
    undefined: int  # resamples without a positive or without a negative, left out of the percentiles
    unit: str = "entry"  # what one resampled unit is: "entry", or the name given to the groups
    level: float = CI_LEVEL

    def describe(self) -> dict[str, Any]:
        """Return the bootstrap settings as recorded in reports."""
        return {"method": BOOTSTRAP_VERSION, "level": self.level, "resamples": self.resamples, "seed": self.seed,
                "unit": self.unit, "units": self.units, "undefined": self.undefined}


def _prepare(labels: ArrayLike, scores: ArrayLike,
             has_evidence: ArrayLike | None = None) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    y = np.asarray(labels)
    s = np.asarray(scores, dtype=np.float64)
    if y.ndim != 1 or s.ndim != 1 or y.shape != s.shape:
        raise InputError(f"labels and scores must be 1-D and of equal length, got {y.shape} and {s.shape}")
    if y.size == 0:
        raise InputError("no entries to evaluate")
    if y.dtype == bool:
        y = y.astype(np.int64)
    if not np.isin(y, (0, 1)).all():
        raise InputError("labels must be 0/1 (or booleans)")
    y = y.astype(np.int64)
    if has_evidence is not None:
        ev = np.asarray(has_evidence, dtype=bool)
        if ev.shape != s.shape:
            raise InputError(f"has_evidence must match the scores' length, got {ev.shape} and {s.shape}")
        # No evidence means score 0 (Li et al. 2022), whatever the scorer wrote there.
        s = np.where(ev, s, 0.0)
    if not np.isfinite(s).all():
        raise InputError("scores must be finite numbers")
    positives = int(y.sum())
    if positives == 0:
        raise InputError("no positive entries: recall (and so AUC_norm and AP_norm) is undefined")
    if positives == y.size:
        raise InputError("only positive entries: xi = 1 and AUC_norm and AP_norm are undefined")
    return y, s


def _tie_groups(s: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Return the descending-score order and the last sorted index of every group of equal scores."""
    order = np.argsort(-s, kind="mergesort")
    s_sorted = s[order]
    ends = np.r_[np.flatnonzero(np.diff(s_sorted)), s_sorted.size - 1]
    return order, ends


def pr_curve(labels: ArrayLike, scores: ArrayLike, has_evidence: ArrayLike | None = None) -> PRCurve:
    """Return the precision-recall curve over distinct score thresholds, starting at (0, 1)."""
    y, s = _prepare(labels, scores, has_evidence)
    order, ends = _tie_groups(s)
    # A tie enters the curve as one step: cumulative counts are read at the end of each group.
    tps = np.cumsum(y[order])[ends].astype(np.float64)
    predicted = (ends + 1).astype(np.float64)
    positives = float(y.sum())
    recall = np.r_[0.0, tps / positives]
    precision = np.r_[1.0, tps / predicted]
    return PRCurve(recall=recall, precision=precision, thresholds=s[order][ends].copy(),
                   xi=positives / y.size)


def auc_norm_of_curve(curve: PRCurve) -> float:
    """Return AUC_norm of a curve: trapezoids of max(P - xi, 0) over recall, divided by 1 - xi."""
    lifted = np.maximum(curve.precision - curve.xi, 0.0)
    area = float(np.sum(np.diff(curve.recall) * (lifted[1:] + lifted[:-1]) / 2.0))
    return area / (1.0 - curve.xi)


def ap_norm_of_curve(curve: PRCurve) -> float:
    """Return normalised average precision: (sum of (R_k - R_{k-1}) * P_k - xi) / (1 - xi), no interpolation."""
    ap = float(np.sum(np.diff(curve.recall) * curve.precision[1:]))
    return (ap - curve.xi) / (1.0 - curve.xi)


def auc_50_of_curve(curve: PRCurve) -> float:
    """Return AUC_50: trapezoid area under P over recall on the segments whose ends both have P >= 0.5."""
    keep = curve.precision >= 0.5
    both = keep[1:] & keep[:-1]
    widths = np.diff(curve.recall)
    heights = (curve.precision[1:] + curve.precision[:-1]) / 2.0
    return float(np.sum(widths[both] * heights[both]))


def auc_norm(labels: ArrayLike, scores: ArrayLike, has_evidence: ArrayLike | None = None) -> float:
    """Return AUC_norm (Li et al. 2022) of scores against 0/1 labels; no-evidence entries score 0."""
    return auc_norm_of_curve(pr_curve(labels, scores, has_evidence))


def ap_norm(labels: ArrayLike, scores: ArrayLike, has_evidence: ArrayLike | None = None) -> float:
    """Return normalised average precision (constant scorer 0, perfect 1); no-evidence entries score 0."""
    return ap_norm_of_curve(pr_curve(labels, scores, has_evidence))


def auc_50(labels: ArrayLike, scores: ArrayLike, has_evidence: ArrayLike | None = None) -> float:
    """Return AUC_50, the area of the precision-recall curve where precision stays >= 0.5."""
    return auc_50_of_curve(pr_curve(labels, scores, has_evidence))


def coverage(scores: ArrayLike, has_evidence: ArrayLike | None = None) -> float:
    """Return the share of entries with evidence (without `has_evidence`: with a score above 0)."""
    s = np.asarray(scores, dtype=np.float64)
    if s.size == 0:
        raise InputError("no entries to evaluate")
    flags = np.asarray(has_evidence, dtype=bool) if has_evidence is not None else s > 0
    return float(flags.mean())


def bootstrap_draws(units: int, resamples: int, seed: int = DEFAULT_SEED) -> npt.NDArray[np.int64]:
    """Return a (resamples, units) array: the units drawn with replacement by each bootstrap resample."""
    if units < 1 or resamples < 1:
        raise InputError("the bootstrap needs at least one unit and one resample")
    return np.random.default_rng(seed).integers(0, units, size=(resamples, units))


def unit_index(groups: Sequence[Hashable] | npt.NDArray[np.generic] | None, n: int) -> npt.NDArray[np.intp]:
    """Map every entry to its resampling unit 0..U-1 (sorted unit names); without groups each entry is one."""
    if groups is None:
        return np.arange(n)
    keys = [str(g) for g in groups]
    if len(keys) != n:
        raise InputError(f"groups must give one bundle id per entry, got {len(keys)} for {n} entries")
    names = sorted(set(keys))
    position = {name: k for k, name in enumerate(names)}
    return np.fromiter((position[k] for k in keys), dtype=np.intp, count=n)


def _weighted_metrics(y_sorted: npt.NDArray[np.int64], ends: npt.NDArray[np.intp],
                      weights: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """AUC_norm and AP_norm of each row of entry weights (entries in descending-score order)."""
    # A resample is the original entries, each counted as often as its unit was drawn: cumulative weighted
    # counts at the tie-group ends give every resample's curve. Groups of weight 0 repeat the previous
    # point (zero width); before the first weighted group the point is the start (0, 1).
    tp = np.cumsum(weights * y_sorted, axis=1)[:, ends].astype(np.float64)
    predicted = np.cumsum(weights, axis=1)[:, ends].astype(np.float64)
    positives, total = tp[:, -1], predicted[:, -1]
    defined = (positives > 0) & (positives < total)
    xi = np.divide(positives, total, out=np.full_like(positives, np.nan), where=defined)
    recall = np.divide(tp, positives[:, None], out=np.zeros_like(tp), where=defined[:, None])
    precision = np.divide(tp, predicted, out=np.ones_like(tp), where=predicted > 0)
    recall = np.hstack([np.zeros((tp.shape[0], 1)), recall])
    precision = np.hstack([np.ones((tp.shape[0], 1)), precision])
    widths = np.diff(recall, axis=1)
    lifted = np.maximum(precision - xi[:, None], 0.0)
    auc = np.sum(widths * (lifted[:, 1:] + lifted[:, :-1]) / 2.0, axis=1) / (1.0 - xi)
    ap = (np.sum(widths * precision[:, 1:], axis=1) - xi) / (1.0 - xi)
    return np.where(defined, auc, np.nan), np.where(defined, ap, np.nan)


def _resampled_metrics(y: npt.NDArray[np.int64], s: npt.NDArray[np.float64], unit: npt.NDArray[np.intp],
                       draws: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """AUC_norm and AP_norm of every resample (one row of `draws` each); NaN where a resample is undefined."""
    units = draws.shape[1]
    order, ends = _tie_groups(s)
    y_sorted, unit_sorted = y[order], unit[order]
    resamples = draws.shape[0]
    auc_values = np.empty(resamples)
    ap_values = np.empty(resamples)
    step = max(1, _CHUNK_CELLS // max(y.size, units))
    for start in range(0, resamples, step):
        chunk = draws[start:start + step]
        rows = np.arange(chunk.shape[0])[:, None]
        # How often each unit was drawn, per resample: one bincount over row-offset unit ids.
        counts = np.bincount((chunk + rows * units).ravel(), minlength=chunk.shape[0] * units)
        weights = counts.reshape(chunk.shape[0], units)[:, unit_sorted]
        auc_values[start:start + step], ap_values[start:start + step] = _weighted_metrics(y_sorted, ends, weights)
    return auc_values, ap_values


def _percentile_interval(values: npt.NDArray[np.float64], level: float) -> tuple[float, float]:
    """The percentile interval of the defined (non-NaN) values; (nan, nan) when none is defined."""
    if np.isnan(values).all():
        return (float("nan"), float("nan"))
    low, high = np.nanpercentile(values, (100 * (1 - level) / 2, 100 * (1 + level) / 2))
    return (float(low), float(high))


def bootstrap_metrics(labels: ArrayLike, scores: ArrayLike, has_evidence: ArrayLike | None = None,
                      groups: Sequence[Hashable] | npt.NDArray[np.generic] | None = None,
                      resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                      level: float = CI_LEVEL, unit_name: str = "bundle") -> BootstrapResult:
    """Return percentile-bootstrap intervals of AUC_norm and AP_norm, resampling whole groups (bundles)."""
    if not 0.0 < level < 1.0:
        raise InputError(f"the confidence level must lie in (0, 1), got {level}")
    y, s = _prepare(labels, scores, has_evidence)
    unit = unit_index(groups, y.size)
    draws = bootstrap_draws(int(unit.max()) + 1, resamples, seed)
    auc_values, ap_values = _resampled_metrics(y, s, unit, draws)
    return BootstrapResult(auc_norm=_percentile_interval(auc_values, level),
                           ap_norm=_percentile_interval(ap_values, level), resamples=resamples,
                           seed=seed, units=draws.shape[1], undefined=int(np.isnan(auc_values).sum()),
                           unit=unit_name if groups is not None else "entry", level=level)


@dataclass(frozen=True)
class PairedDifference:
    """Scorer A minus scorer B on the same entries: the differences and their paired bootstrap intervals."""

    auc_norm: float
    auc_norm_ci: tuple[float, float]
    ap_norm: float
    ap_norm_ci: tuple[float, float]
    ap_norm_a_wins: float  # share of the defined resamples in which A's AP_norm is above B's
    bootstrap: BootstrapResult

    def as_dict(self) -> dict[str, Any]:
        """Return the difference as recorded in reports."""
        return {"auc_norm": self.auc_norm, "auc_norm_ci": list(self.auc_norm_ci), "ap_norm": self.ap_norm,
                "ap_norm_ci": list(self.ap_norm_ci), "ap_norm_a_wins": self.ap_norm_a_wins,
                "bootstrap": self.bootstrap.describe()}


def paired_difference(labels: ArrayLike, scores_a: ArrayLike, scores_b: ArrayLike,
                      has_evidence: ArrayLike | None = None,
                      groups: Sequence[Hashable] | npt.NDArray[np.generic] | None = None,
                      resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                      level: float = CI_LEVEL, unit_name: str = "bundle") -> PairedDifference:
    """Return A - B in AUC_norm and AP_norm with paired percentile-bootstrap intervals.

    Both scorers are measured on the same resamples (the same bundles drawn), so the interval is that of
    the difference itself: two scorers whose separate intervals overlap can still differ reliably, and
    A is ahead of B on this benchmark when the AP_norm interval lies above 0.
    """
    if not 0.0 < level < 1.0:
        raise InputError(f"the confidence level must lie in (0, 1), got {level}")
    y, a = _prepare(labels, scores_a, has_evidence)
    _, b = _prepare(labels, scores_b, has_evidence)
    unit = unit_index(groups, y.size)
    draws = bootstrap_draws(int(unit.max()) + 1, resamples, seed)
    auc_a, ap_a = _resampled_metrics(y, a, unit, draws)
    auc_b, ap_b = _resampled_metrics(y, b, unit, draws)
    curve_a, curve_b = pr_curve(y, a), pr_curve(y, b)
    ap_diff = ap_a - ap_b
    defined = ~np.isnan(ap_diff)
    boot = BootstrapResult(auc_norm=_percentile_interval(auc_a - auc_b, level),
                           ap_norm=_percentile_interval(ap_diff, level), resamples=resamples, seed=seed,
                           units=draws.shape[1], undefined=int((~defined).sum()),
                           unit=unit_name if groups is not None else "entry", level=level)
    return PairedDifference(
        auc_norm=auc_norm_of_curve(curve_a) - auc_norm_of_curve(curve_b), auc_norm_ci=boot.auc_norm,
        ap_norm=ap_norm_of_curve(curve_a) - ap_norm_of_curve(curve_b), ap_norm_ci=boot.ap_norm,
        ap_norm_a_wins=float((ap_diff[defined] > 0).mean()) if defined.any() else float("nan"), bootstrap=boot)


@dataclass(frozen=True)
class BundleContrast:
    """Each (positive, negative) pair of one bundle, by what a scorer gave the two.

    Only pairs where both sides score above 0 can tell how a scorer ranks (this is where a directional
    measure can differ from a symmetric one); the rest are decided by which side meets any evidence at all.
    """

    pairs: int
    neither: int  # both score 0
    positive_only: int  # only the positive scores above 0
    negative_only: int  # only the negative scores above 0
    both_positive_higher: int
    both_negative_higher: int
    both_tied: int

    def as_dict(self) -> dict[str, int]:
        """Return the counts as recorded in reports."""
        return {"pairs": self.pairs, "neither": self.neither, "positive_only": self.positive_only,
                "negative_only": self.negative_only, "both_positive_higher": self.both_positive_higher,
                "both_negative_higher": self.both_negative_higher, "both_tied": self.both_tied}


def bundle_contrast(labels: ArrayLike, scores: ArrayLike, groups: Sequence[Hashable] | npt.NDArray[np.generic],
                    has_evidence: ArrayLike | None = None) -> BundleContrast:
    """Count every (positive, negative) pair inside a bundle by the scores the two received."""
    y, s = _prepare(labels, scores, has_evidence)
    unit = unit_index(groups, y.size)
    order = np.argsort(unit, kind="mergesort")
    bounds = np.r_[0, np.flatnonzero(np.diff(unit[order])) + 1, y.size]
    counts = np.zeros(6, dtype=np.int64)  # neither, positive_only, negative_only, pos higher, neg higher, tied
    for start, end in zip(bounds[:-1], bounds[1:]):
        members = order[start:end]
        pos = s[members[y[members] == 1]][:, None]
        neg = s[members[y[members] == 0]][None, :]
        if pos.size == 0 or neg.size == 0:
            continue
        both = (pos > 0) & (neg > 0)
        counts += [int(((pos == 0) & (neg == 0)).sum()), int(((pos > 0) & (neg == 0)).sum()),
                   int(((pos == 0) & (neg > 0)).sum()), int((both & (pos > neg)).sum()),
                   int((both & (pos < neg)).sum()), int((both & (pos == neg)).sum())]
    return BundleContrast(int(counts.sum()), *(int(c) for c in counts))


def evaluate_scores(labels: ArrayLike, scores: ArrayLike, has_evidence: ArrayLike | None = None,
                    groups: Sequence[Hashable] | npt.NDArray[np.generic] | None = None,
                    resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                    unit_name: str = "bundle") -> dict[str, Any]:
    """Return AUC_norm and AP_norm with 95% bundle-bootstrap intervals, AUC_50, xi, coverage, n and positives.

    `groups` names each entry's bundle (without it every entry is its own unit); `resamples=0` skips the
    intervals (they are then None).
    """
    curve = pr_curve(labels, scores, has_evidence)
    y = np.asarray(labels).astype(np.int64)
    result: dict[str, Any] = {
        "auc_norm": auc_norm_of_curve(curve),
        "auc_norm_ci": None,
        "ap_norm": ap_norm_of_curve(curve),
        "ap_norm_ci": None,
        "auc_50": auc_50_of_curve(curve),
        "xi": curve.xi,
        "coverage": coverage(scores, has_evidence),
        "n": int(y.size),
        "positives": int(y.sum()),
        "bootstrap": None,
    }
    if resamples > 0:
        boot = bootstrap_metrics(labels, scores, has_evidence, groups, resamples, seed, unit_name=unit_name)
        result.update(auc_norm_ci=list(boot.auc_norm), ap_norm_ci=list(boot.ap_norm), bootstrap=boot.describe())
    return result


def percent(value: float) -> str:
    """Return a share as a percentage with one decimal ("-0.0" from a float error reads "0.0")."""
    text = f"{100 * float(value):.1f}"
    return "0.0" if text == "-0.0" else text


def with_interval(metrics: Mapping[str, Any], key: str) -> str:
    """Return `key` in percent with its `<key>_ci` interval in brackets, or "-" when the key is absent."""
    value, ci = metrics.get(key), metrics.get(f"{key}_ci")
    if value is None:
        return "-"
    if ci and all(v is not None and np.isfinite(v) for v in ci):
        return f"{percent(value)} [{percent(ci[0])}, {percent(ci[1])}]"
    return percent(value)


def describe_metrics(metrics: Mapping[str, Any]) -> str:
    """Return one line: AUC_norm and AP_norm with their intervals, AUC_50 and coverage, in percent."""
    parts = [f"{name} {with_interval(metrics, key)}" for key, name in (("auc_norm", "AUC_norm"), ("ap_norm", "AP_norm"))
             if metrics.get(key) is not None]
    parts += [f"{name} {percent(metrics[key])}" for key, name in (("auc_50", "AUC_50"), ("coverage", "coverage"))
              if metrics.get(key) is not None]
    return "  ".join(parts)


def plot_pr_curves(curves: Mapping[str, PRCurve], path: Path, title: str | None = None,
                   metrics: Mapping[str, Mapping[str, Any]] | None = None) -> Path:
    """Draw several scorers' precision-recall curves and the random baseline into one PNG at `path`.

    The legend gives each scorer's AUC_norm and AP_norm (with their intervals when `metrics` holds them),
    AUC_50 and coverage; the baseline's entry gives xi.
    """
    # The object API with the Agg canvas: no pyplot global state, no display needed.
    FigureCanvasAgg = require("benchmark", "matplotlib.backends.backend_agg",  # noqa: N806
                              "precision-recall figures").FigureCanvasAgg
    Figure = require("benchmark", "matplotlib.figure", "precision-recall figures").Figure  # noqa: N806

    if not curves:
        raise InputError("no curves to plot")
    xis = {round(c.xi, 12) for c in curves.values()}
    if len(xis) != 1:
        raise InputError("curves come from different label sets (their xi differ); plot them apart")
    xi = next(iter(curves.values())).xi
    fig = Figure(figsize=(8.0, 6.4), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for name in sorted(curves):
        curve = curves[name]
        shown: Mapping[str, Any] = (metrics or {}).get(name) or {
            "auc_norm": auc_norm_of_curve(curve), "ap_norm": ap_norm_of_curve(curve),
            "auc_50": auc_50_of_curve(curve)}
        ax.plot(curve.recall, curve.precision, drawstyle="default", linewidth=1.5,
                label=f"{name}: {describe_metrics(shown)}")
    ax.axhline(xi, color="grey", linestyle="--", linewidth=1, label=f"random (xi = {xi:.3f})")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    # Below the axes, in figure coordinates: the metric lines are long and must not hide the curves.
    rows = len(curves) + 2  # scorers, the baseline and the legend's title
    fig.subplots_adjust(bottom=min(0.1 + 0.032 * rows, 0.6), top=0.93)
    fig.legend(loc="lower left", bbox_to_anchor=(0.1, 0.01), fontsize="small", frameon=False,
               title="percent; [95% bootstrap interval]", title_fontsize="small", alignment="left")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path
