"""Boolean-QA metrics of REFERENCE §2: the precision-recall curve, AUC_norm, AUC_50, xi and coverage.

Everything here is a pure function of labels and scores. The curve is the one of
`sklearn.metrics.precision_recall_curve` (one point per distinct score, entries with equal scores
entering together, plus the point recall 0 / precision 1), but ordered by increasing recall.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from graph_builder.errors import InputError

ArrayLike = Sequence[float] | Sequence[int] | Sequence[bool] | npt.NDArray[np.generic]

METRIC_KEYS = ("auc_norm", "auc_50", "xi", "coverage", "n", "positives")


@dataclass(frozen=True)
class PRCurve:
    """A precision-recall curve in increasing-recall order; `thresholds[i]` yields point i + 1."""

    recall: npt.NDArray[np.float64]
    precision: npt.NDArray[np.float64]
    thresholds: npt.NDArray[np.float64]
    xi: float


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
        # No evidence means score 0 (REFERENCE §1), whatever the scorer wrote there.
        s = np.where(ev, s, 0.0)
    if not np.isfinite(s).all():
        raise InputError("scores must be finite numbers")
    positives = int(y.sum())
    if positives == 0:
        raise InputError("no positive entries: recall (and so AUC_norm) is undefined")
    if positives == y.size:
        raise InputError("only positive entries: xi = 1 and AUC_norm is undefined")
    return y, s


def pr_curve(labels: ArrayLike, scores: ArrayLike, has_evidence: ArrayLike | None = None) -> PRCurve:
    """Return the precision-recall curve over distinct score thresholds, starting at (0, 1)."""
    y, s = _prepare(labels, scores, has_evidence)
    order = np.argsort(-s, kind="mergesort")
    s_sorted, y_sorted = s[order], y[order]
    # Last index of every group of equal scores: a tie enters the curve as one step.
    ends = np.r_[np.flatnonzero(np.diff(s_sorted)), s_sorted.size - 1]
    tps = np.cumsum(y_sorted)[ends].astype(np.float64)
    predicted = (ends + 1).astype(np.float64)
    positives = float(y.sum())
    recall = np.r_[0.0, tps / positives]
    precision = np.r_[1.0, tps / predicted]
    return PRCurve(recall=recall, precision=precision, thresholds=s_sorted[ends].copy(),
                   xi=positives / y.size)


def auc_norm_of_curve(curve: PRCurve) -> float:
    """Return AUC_norm of a curve: trapezoids of max(P - xi, 0) over recall, divided by 1 - xi."""
    lifted = np.maximum(curve.precision - curve.xi, 0.0)
    area = float(np.sum(np.diff(curve.recall) * (lifted[1:] + lifted[:-1]) / 2.0))
    return area / (1.0 - curve.xi)


def auc_50_of_curve(curve: PRCurve) -> float:
    """Return AUC_50: trapezoid area under P over recall on the segments whose ends both have P >= 0.5."""
    keep = curve.precision >= 0.5
    both = keep[1:] & keep[:-1]
    widths = np.diff(curve.recall)
    heights = (curve.precision[1:] + curve.precision[:-1]) / 2.0
    return float(np.sum(widths[both] * heights[both]))


def auc_norm(labels: ArrayLike, scores: ArrayLike, has_evidence: ArrayLike | None = None) -> float:
    """Return AUC_norm (REFERENCE §2) of scores against 0/1 labels; no-evidence entries score 0."""
    return auc_norm_of_curve(pr_curve(labels, scores, has_evidence))


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


def evaluate_scores(labels: ArrayLike, scores: ArrayLike,
                    has_evidence: ArrayLike | None = None) -> dict[str, float | int]:
    """Return auc_norm, auc_50, xi, coverage, n and positives for one scorer's scores."""
    curve = pr_curve(labels, scores, has_evidence)
    y = np.asarray(labels).astype(np.int64)
    return {
        "auc_norm": auc_norm_of_curve(curve),
        "auc_50": auc_50_of_curve(curve),
        "xi": curve.xi,
        "coverage": coverage(scores, has_evidence),
        "n": int(y.size),
        "positives": int(y.sum()),
    }


def plot_pr_curves(curves: Mapping[str, PRCurve], path: Path, title: str | None = None) -> Path:
    """Draw several scorers' precision-recall curves and the random baseline into one PNG at `path`."""
    # The object API with the Agg canvas: no pyplot global state, no display needed.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not curves:
        raise InputError("no curves to plot")
    xis = {round(c.xi, 12) for c in curves.values()}
    if len(xis) != 1:
        raise InputError("curves come from different label sets (their xi differ); plot them apart")
    xi = next(iter(curves.values())).xi
    fig = Figure(figsize=(6.4, 4.8), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for name in sorted(curves):
        curve = curves[name]
        ax.plot(curve.recall, curve.precision, drawstyle="default", linewidth=1.5,
                label=f"{name} (AUC_norm {100 * auc_norm_of_curve(curve):.1f})")
    ax.axhline(xi, color="grey", linestyle="--", linewidth=1, label=f"random (xi = {xi:.3f})")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize="small")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path
