"""Fit the `combined` scorer from a finished evaluation, and score other evaluations with it.

An `egqa evaluate` run holds every scorer's answer to every benchmark entry (`scores.jsonl`), exactly what the
service's `combined` scorer combines, so fitting needs no service and no store: the component columns of the
fit split are read, the logistic regression fitted (`graph_builder.graphs.combined`), and the weights written
beside the graphs. Scoring a held-out evaluation the same way gives the figures the service will give there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from benchmark.metrics import evaluate_scores, paired_difference, with_interval
from graph_builder import __version__
from graph_builder.errors import InputError
from graph_builder.graphs.combined import Combination, fit_combination, write_combination
from graph_builder.tables import render, table
from service.evaluate import read_scores


@dataclass(frozen=True)
class Check:
    """One evaluation scored with the fitted weights: the combination against each component, paired."""

    name: str
    entries: int
    metrics: dict[str, dict[str, Any]]  # scorer (the components and `combined`) -> evaluate_scores
    minus: dict[str, dict[str, Any]]  # component -> combined minus it, paired (PairedDifference.as_dict)


@dataclass(frozen=True)
class FitResult:
    """The fitted combination, where it was written (None on a dry run), and how it scores each evaluation."""

    combination: Combination
    path: Path | None
    checks: list[Check] = field(default_factory=list)


def _columns(evaluation: Path, components: Sequence[str]) -> tuple[list[dict[str, Any]], npt.NDArray[np.float64]]:
    rows, offered = read_scores(evaluation)
    missing = [c for c in components if c not in offered]
    if missing:
        raise InputError(f"{evaluation}: no scores for {', '.join(missing)}; the run holds {', '.join(offered)}; "
                         f"evaluate them first (`egqa evaluate ... --scorer {','.join(components)}`)")
    return rows, np.array([[float(r[c]) for c in components] for r in rows], dtype=np.float64)


def check(evaluation: Path, combination: Combination, resamples: int = 1000) -> Check:
    """Score an evaluation's entries with the combination, beside its components, with paired intervals."""
    rows, scores = _columns(evaluation, combination.components)
    labels = [int(r["label"]) for r in rows]
    groups = [str(r["bundle_id"]) for r in rows]
    evidence = [bool(r.get("has_evidence", True)) for r in rows]
    combined = combination.probability(scores)
    metrics = {"combined": evaluate_scores(labels, combined, evidence, groups, resamples)}
    minus = {}
    for k, name in enumerate(combination.components):
        metrics[name] = evaluate_scores(labels, scores[:, k], evidence, groups, resamples)
        minus[name] = paired_difference(labels, combined, scores[:, k], evidence, groups, resamples).as_dict()
    return Check(str(evaluation), len(rows), metrics, minus)


def fit_from_evaluation(evaluation: Path, graphs: Path, components: Sequence[str], *, c: float,
                        checks: Sequence[Path] = (), write: bool = True) -> FitResult:
    """Fit on one evaluation's answers, write `<graphs>/combined.json` (unless `write` is False), score `checks`."""
    if not components:
        raise InputError("name one or more component scorers")
    if len(set(components)) != len(components):
        raise InputError("each component scorer may be named once")
    if "combined" in components:
        raise InputError("the combined scorer cannot be one of its own components")
    rows, scores = _columns(evaluation, components)
    origin = {"evaluation": Path(evaluation).resolve().name, "egqa": __version__}
    combination = fit_combination(scores, [int(r["label"]) for r in rows], components, graphs,
                                  has_evidence=[bool(r.get("has_evidence", True)) for r in rows], c=c, origin=origin)
    path = write_combination(graphs, combination) if write else None
    results = [check(evaluation, combination)] + [check(p, combination) for p in checks]
    return FitResult(combination, path, results)


def _signed(diff: dict[str, Any]) -> str:
    low, high = diff["ap_norm_ci"]
    return f"{100 * diff['ap_norm']:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}]"


def format_fit(result: FitResult) -> str:
    """The weights, the threshold, and per evaluation each scorer's AP_norm and the combination's paired gain."""
    combo = result.combination
    weights = table(("component", "w score", "w ln(score)", "w [score>0]"), right=("w score", "w ln(score)",
                                                                                "w [score>0]"),
                    rows=[(name, *(f"{w:+.3f}" for w in row)) for name, row in zip(combo.components, combo.weights,
                                                                                   strict=True)])
    lines = [render(weights),
             f"intercept {combo.intercept:+.3f}; answers true at P >= {combo.threshold:.3f} (best balanced accuracy "
             f"on the {combo.fitted['entries']:,} entries with evidence fitted on, {combo.fitted['positives']:,} "
             "positive)"]
    for k, item in enumerate(result.checks):
        scored = ("fitted on" if k == 0 else "held out")
        rows = [(name, with_interval(item.metrics[name], "ap_norm"), with_interval(item.metrics[name], "auc_norm"),
                 "" if name == "combined" else _signed(item.minus[name])) for name in item.metrics]
        lines += ["", f"{item.name} ({scored}, {item.entries:,} entries):",
                  render(table(("scorer", "AP_norm [95% CI]", "AUC_norm [95% CI]", "combined minus it, AP_norm"),
                               right=("AP_norm [95% CI]", "AUC_norm [95% CI]", "combined minus it, AP_norm"),
                               rows=rows))]
    lines.append("" if result.path is None else f"\nwritten: {result.path} (restart or reload the service to offer "
                                                "`combined`)")
    if result.path is None:
        lines.append("dry run: nothing written")
    return "\n".join(lines)
