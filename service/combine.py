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
from graph_builder.graphs.combined import (DEFAULT_C, DEFAULT_FOLDS, DEFAULT_MIN_GAIN, Combination, fit_combination,
                                           write_combination)
from graph_builder.graphs.scorers import COMBINED
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


def _columns(evaluation: Path, components: Sequence[str],
             read: tuple[list[dict[str, Any]], list[str]] | None = None) -> tuple[list[dict[str, Any]],
                                                                           npt.NDArray[np.float64]]:
    """The evaluation's rows and its components' scores as columns (`read`: its `read_scores`, if done already)."""
    rows, offered = read or read_scores(evaluation)
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
    metrics = {COMBINED: evaluate_scores(labels, combined, evidence, groups, resamples)}
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
    if COMBINED in components:
        raise InputError("the combined scorer cannot be one of its own components")
    rows, scores = _columns(evaluation, components)
    origin = {"evaluation": Path(evaluation).resolve().name, "egqa": __version__}
    combination = fit_combination(scores, [int(r["label"]) for r in rows], components, graphs,
                                  has_evidence=[bool(r.get("has_evidence", True)) for r in rows], c=c, origin=origin,
                                  groups=[str(r["bundle_id"]) for r in rows])
    path = write_combination(graphs, combination) if write else None
    results = [check(evaluation, combination)] + [check(p, combination) for p in checks]
    return FitResult(combination, path, results)


@dataclass(frozen=True)
class Selection:
    """Components chosen by forward selection: each step's addition with the out-of-fold AP_norm it gave, and
    each candidate's own out-of-fold AP_norm, fitted alone."""

    candidates: tuple[str, ...]
    folds: int
    seed: int
    min_gain: float
    alone: dict[str, float]
    steps: list[tuple[str, float]]
    stopped: tuple[str, float] | None  # the best next candidate, which added less than min_gain

    @property
    def components(self) -> list[str]:
        """The components chosen, in the order they were added."""
        return [name for name, _ in self.steps]


def bundle_folds(bundles: Sequence[str], folds: int, seed: int) -> npt.NDArray[np.int64]:
    """Each entry's fold: bundles dealt to `folds` folds at random (seeded), a bundle's entries in one fold."""
    names = sorted(set(bundles))
    if folds < 2 or folds > len(names):
        raise InputError(f"cross-validation needs 2 to {len(names)} folds (one bundle each at least), got {folds}")
    dealt = np.random.default_rng(seed).permutation(len(names)) % folds
    fold_of = dict(zip(names, dealt.tolist(), strict=True))
    return np.array([fold_of[b] for b in bundles], dtype=np.int64)


def out_of_fold(scores: npt.NDArray[np.float64], labels: npt.NDArray[np.int64], evidence: npt.NDArray[np.bool_],
                fold_of: npt.NDArray[np.int64], components: Sequence[str], graphs: Path,
                c: float) -> npt.NDArray[np.float64]:
    """Each entry's P(true) from a combination fitted on the other folds; 0 where it has no evidence."""
    out = np.zeros(len(labels))
    for fold in np.unique(fold_of).tolist():
        held = fold_of == fold
        model = fit_combination(scores[~held], labels[~held], components, graphs, has_evidence=evidence[~held], c=c)
        out[held] = np.where(evidence[held], model.probability(scores[held]), 0.0)
    return out


def select_components(evaluation: Path, graphs: Path, candidates: Sequence[str] = (), *, folds: int = DEFAULT_FOLDS,
                      seed: int = 0, min_gain: float = DEFAULT_MIN_GAIN, c: float = DEFAULT_C) -> Selection:
    """Forward selection on one evaluation alone (the fit split): add, one at a time, the candidate whose
    combination with those chosen gives the best out-of-fold AP_norm (folds of whole bundles), while it adds at
    least `min_gain` points. `candidates` default to every scorer the evaluation holds but `combined`."""
    rows, offered = read_scores(evaluation)
    pool = [name for name in (candidates or offered) if name != COMBINED]
    if len(set(pool)) != len(pool) or not pool:
        raise InputError("name one or more distinct candidate scorers")
    _, scores = _columns(evaluation, pool, (rows, offered))
    labels = np.array([int(r["label"]) for r in rows], dtype=np.int64)
    evidence = np.array([bool(r.get("has_evidence", True)) for r in rows])
    bundles = [str(r["bundle_id"]) for r in rows]
    fold_of = bundle_folds(bundles, folds, seed)

    def ap(chosen: list[int]) -> float:
        p = out_of_fold(scores[:, chosen], labels, evidence, fold_of, [pool[k] for k in chosen], graphs, c)
        return 100 * float(evaluate_scores(labels, p, evidence, bundles, resamples=0)["ap_norm"])

    alone = {name: ap([k]) for k, name in enumerate(pool)}
    steps: list[tuple[str, float]] = []
    chosen: list[int] = []
    stopped = None
    while len(chosen) < len(pool):
        trials = {k: (alone[pool[k]] if not chosen else ap(chosen + [k])) for k in range(len(pool)) if k not in chosen}
        best = max(trials, key=lambda k: (trials[k], -k))  # ties: the candidate named first
        if steps and trials[best] < steps[-1][1] + min_gain:
            stopped = (pool[best], trials[best])
            break
        chosen.append(best)
        steps.append((pool[best], trials[best]))
    return Selection(tuple(pool), folds, seed, min_gain, alone, steps, stopped)


def format_selection(selection: Selection) -> str:
    """Each candidate alone and each step of the selection, out-of-fold AP_norm."""
    rows = [(name, f"{selection.alone[name]:.1f}") for name in selection.candidates]
    lines = [f"components chosen by {selection.folds}-fold cross-validation over bundles (seed {selection.seed}) "
             f"on the fit split, each adding at least {selection.min_gain:g} AP_norm points:",
             render(table(("candidate", "alone, out of fold"), right=("alone, out of fold",), rows=rows))]
    lines += [f"  step {k}: + {name} -> {value:.1f}" for k, (name, value) in enumerate(selection.steps, 1)]
    if selection.stopped:
        lines.append(f"  stop: + {selection.stopped[0]} would give {selection.stopped[1]:.1f}")
    return "\n".join(lines)


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
             f"positive: {combo.fitted.get('threshold', 'its cut')})"]
    for k, item in enumerate(result.checks):
        scored = ("fitted on" if k == 0 else "held out")
        rows = [(name, with_interval(item.metrics[name], "ap_norm"), with_interval(item.metrics[name], "auc_norm"),
                 "" if name == COMBINED else _signed(item.minus[name])) for name in item.metrics]
        lines += ["", f"{item.name} ({scored}, {item.entries:,} entries):",
                  render(table(("scorer", "AP_norm [95% CI]", "AUC_norm [95% CI]", "combined minus it, AP_norm"),
                               right=("AP_norm [95% CI]", "AUC_norm [95% CI]", "combined minus it, AP_norm"),
                               rows=rows))]
    lines.append("" if result.path is None else f"\nwritten: {result.path} (restart or reload the service to offer "
                                                "`combined`)")
    if result.path is None:
        lines.append("dry run: nothing written")
    return "\n".join(lines)
