"""A combined scorer: a logistic regression over several scorers' answers, fitted on a benchmark split.

Each scorer answers a hypothesis with the best score of its evidence; they are calibrated differently (a BInc
score of 0.003 is a weak edge, an LM-backoff score sits below 1e-9 by design), so a single global ranking of
several scorers' answers needs weights. The combination is stacked generalisation (Wolpert 1992) with a
logistic model: P(true) = sigmoid(b + sum over components k of w_k . phi(s_k)), where s_k is component k's answer
and phi(s) = (s, ln(s + 1e-12), [s > 0]): the score, its order of magnitude, and whether it scored at all. The
floor sits below the smallest score a scorer gives (an LM backoff's, 1e-9 x a cosine), so the order of those
scores survives: with a floor of 1e-6 it was lost to the 6 significant digits of the service's answers.

The weights are fitted on one evaluation's answers (`egqa evaluate` on a benchmark's dev split, then `egqa graph
combine`), written as JSON beside the graphs they were fitted for (`<graphs>/combined.json`, format
`egqa.combined.v1`), and refused for any other graph set: a rebuilt graph scores differently.

Pure functions of score arrays live here; the scorer that applies them is `scorers.Combined`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graph_builder.errors import ArtefactError, InputError
from graph_builder.extras import require
from graph_builder.graphs.artefacts import read_json, sha256_file, write_json

COMBINED_FILE = "combined.json"
COMBINED_FORMAT = "egqa.combined.v1"
FEATURES_VERSION = "egqa.combined_features.v1"  # phi(s) = (s, ln(s + LOG_FLOOR), [s > 0])
LOG_FLOOR = 1e-12
FEATURES_PER_COMPONENT = 3
# The components fitted when none are named: those `--select all` chose on the 2006-2013 benchmark's dev split among
# seventeen scorers (docs/results.md, 2026-11-29): the default scorer over its hypothesis' premises (`+many`), the
# link-prediction measure, which scores the most pairs, likewise, and the default scorer itself.
DEFAULT_COMPONENTS = ("binc_clean+smooth+act+lm+dir+many", "binc_clean_lp+many", "binc_clean+smooth+act+lm+dir")
DEFAULT_C = 1.0  # inverse L2 strength of the logistic regression (scikit-learn's default)
# Choosing components (`egqa graph combine --select`): folds of whole bundles of the fit split, and the AP_norm points
# a component must add out of fold to be chosen (pure noise added -0.5 to +0.4 out of fold in the runs of 1,600
# entries of tests/service/test_combine_select.py).
DEFAULT_FOLDS = 5
# The answer threshold: the median of the best-balanced-accuracy cut over this many bootstrap resamples of bundles.
THRESHOLD_RESAMPLES = 200
THRESHOLD_METHOD = f"median of the best balanced accuracy's cut over {THRESHOLD_RESAMPLES} bundle resamples"
DEFAULT_MIN_GAIN = 0.5


def features(scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """phi of an (n, k) array of component scores in [0, 1]: an (n, 3k) array, each component's three together."""
    s = np.clip(np.asarray(scores, dtype=np.float64), 0.0, 1.0)
    if s.ndim != 2:
        raise InputError(f"component scores must be an (entries, components) array, got shape {s.shape}")
    parts = np.stack([s, np.log(s + LOG_FLOOR), (s > 0).astype(np.float64)], axis=2)
    return parts.reshape(s.shape[0], s.shape[1] * FEATURES_PER_COMPONENT)


@dataclass(frozen=True)
class Combination:
    """Fitted weights over named component scorers, the answer threshold fitted with them, and their origin."""

    components: tuple[str, ...]
    weights: npt.NDArray[np.float64]  # (components, 3): the weights of s, ln(s + 1e-12) and [s > 0]
    intercept: float
    threshold: float  # P(true) at or above which an answer is true
    graphs_manifest_sha256: str
    fitted: Mapping[str, Any]  # where and how: the evaluation read, entries, positives, C, date, egqa version

    def __post_init__(self) -> None:
        if not self.components or len(set(self.components)) != len(self.components):
            raise InputError("a combination needs one or more distinct component scorers")
        if self.weights.shape != (len(self.components), FEATURES_PER_COMPONENT):
            raise InputError(f"weights must be ({len(self.components)}, {FEATURES_PER_COMPONENT}), "
                             f"got {self.weights.shape}")
        if not (np.isfinite(self.weights).all() and np.isfinite(self.intercept) and 0.0 < self.threshold < 1.0):
            raise InputError("weights and intercept must be finite and the threshold inside (0, 1)")

    def probability(self, scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """P(true) of each row of an (n, components) array of component scores."""
        z = features(scores) @ self.weights.reshape(-1) + self.intercept
        return 1.0 / (1.0 + np.exp(-z))

    def to_json(self) -> dict[str, Any]:
        """The artefact's JSON document."""
        return {"format": COMBINED_FORMAT, "features": FEATURES_VERSION, "components": list(self.components),
                "weights": {c: [float(w) for w in row] for c, row in zip(self.components, self.weights, strict=True)},
                "intercept": float(self.intercept), "threshold": float(self.threshold),
                "graphs_manifest_sha256": self.graphs_manifest_sha256, "fitted": dict(self.fitted)}


def graphs_digest(graphs_dir: Path) -> str:
    """The SHA-256 of a graph set's manifest: what a combination was fitted for."""
    path = Path(graphs_dir) / "manifest.json"
    if not path.is_file():
        raise ArtefactError(f"{graphs_dir}: no graph set here (run `egqa graph build` or `egqa graph import`)")
    return sha256_file(path)


def load_combination(graphs_dir: Path) -> Combination | None:
    """Open `<graphs_dir>/combined.json` (None when absent); refuse one fitted for other graphs or malformed."""
    path = Path(graphs_dir) / COMBINED_FILE
    if not path.is_file():
        return None
    doc = read_json(path)
    refit = "fit it again with `egqa graph combine`"
    if not isinstance(doc, dict) or doc.get("format") != COMBINED_FORMAT or doc.get("features") != FEATURES_VERSION:
        raise ArtefactError(f"{path}: not an {COMBINED_FORMAT} artefact with {FEATURES_VERSION} features; {refit}")
    if doc.get("graphs_manifest_sha256") != graphs_digest(graphs_dir):
        raise ArtefactError(f"{path}: fitted for other graphs (the graph set was rebuilt since); {refit}")
    try:
        components = tuple(str(c) for c in doc["components"])
        weights = np.array([[float(w) for w in doc["weights"][c]] for c in components], dtype=np.float64)
        return Combination(components, weights, float(doc["intercept"]), float(doc["threshold"]),
                           str(doc["graphs_manifest_sha256"]), dict(doc.get("fitted") or {}))
    except (KeyError, TypeError, ValueError, InputError) as exc:
        raise ArtefactError(f"{path}: malformed ({exc}); {refit}") from None


def write_combination(graphs_dir: Path, combination: Combination) -> Path:
    """Write the artefact beside the graphs it was fitted for; return its path."""
    path = Path(graphs_dir) / COMBINED_FILE
    tmp = path.with_suffix(".json.tmp")
    write_json(tmp, combination.to_json())
    tmp.replace(path)  # a service reloading meanwhile reads the old file or the new one, never half of one
    return path


def balanced_threshold(labels: npt.NDArray[np.int64], probability: npt.NDArray[np.float64]) -> float:
    """The probability cut with the best balanced accuracy (mean of the true-positive and true-negative rates):
    independent of how many negatives a benchmark draws per positive, unlike plain accuracy."""
    cuts = np.unique(probability)
    positives, negatives = max(int(labels.sum()), 1), max(int((1 - labels).sum()), 1)
    order = np.argsort(-probability, kind="mergesort")
    sorted_p, sorted_y = probability[order], labels[order]
    tp = np.cumsum(sorted_y)
    fp = np.cumsum(1 - sorted_y)
    ends = np.searchsorted(-sorted_p, -cuts, side="right") - 1  # last index with p >= cut
    balanced = (tp[ends] / positives + (negatives - fp[ends]) / negatives) / 2.0
    return float(np.clip(cuts[int(np.argmax(balanced))], 1e-6, 1 - 1e-6))


def stable_threshold(labels: npt.NDArray[np.int64], probability: npt.NDArray[np.float64],
                     groups: Sequence[str] | None = None, resamples: int = THRESHOLD_RESAMPLES,
                     seed: int = 0) -> float:
    """The median, over bootstrap resamples of whole groups (a benchmark's bundles; entries where None), of the cut
    with the best balanced accuracy. That accuracy is flat near its best (on the 2006-2013 benchmark's dev split
    every cut from 0.29 to 0.42 is within half a point of it), so its argmax moves with any change to the entries
    (0.382, 0.368, 0.365 over three rebuilds of the same corpus); the median of the resamples' argmaxes moves less
    (0.371, 0.370, 0.381)."""
    y = np.asarray(labels, dtype=np.int64)
    p = np.asarray(probability, dtype=np.float64)
    names = np.asarray(groups if groups is not None else np.arange(len(y)).astype(str))
    unique, index = np.unique(names, return_inverse=True)
    members = np.argsort(index, kind="stable")
    starts = np.searchsorted(index[members], np.arange(len(unique) + 1))
    rng = np.random.default_rng(seed)
    cuts = []
    for _ in range(resamples):
        drawn = rng.integers(0, len(unique), len(unique))
        pick = np.concatenate([members[starts[g]:starts[g + 1]] for g in drawn])
        if 0 < y[pick].sum() < len(pick):
            cuts.append(balanced_threshold(y[pick], p[pick]))
    if not cuts:
        return balanced_threshold(y, p)
    return float(np.clip(np.median(cuts), 1e-6, 1 - 1e-6))


def fit_combination(scores: npt.ArrayLike, labels: npt.ArrayLike, components: Sequence[str], graphs_dir: Path,
                    *, has_evidence: npt.ArrayLike | None = None, c: float = DEFAULT_C,
                    origin: Mapping[str, Any] | None = None, groups: Sequence[str] | None = None) -> Combination:
    """Fit the logistic regression on (entries, components) answers and 0/1 labels; entries without evidence
    are left out (every scorer answers them 0, and the service never scores them). The answer threshold is
    `stable_threshold` over `groups` (each entry's bundle; each entry its own where None)."""
    sklearn = require("benchmark", "sklearn.linear_model", "fitting a combined scorer")
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels)
    if s.ndim != 2 or s.shape[1] != len(components) or y.shape != (s.shape[0],):
        raise InputError(f"need one label and {len(components)} component scores per entry, got scores {s.shape} "
                         f"and labels {y.shape}")
    if not np.isin(y, (0, 1)).all():
        raise InputError("labels must be 0/1")
    if c <= 0:
        raise InputError("C must be above 0")
    keep = np.ones(len(y), dtype=bool) if has_evidence is None else np.asarray(has_evidence, dtype=bool)
    s, y = s[keep], y[keep].astype(np.int64)
    if y.sum() == 0 or y.sum() == len(y):
        raise InputError("fitting needs entries with evidence of both labels")
    model = sklearn.LogisticRegression(C=c, max_iter=10_000).fit(features(s), y)
    weights = model.coef_.reshape(len(components), FEATURES_PER_COMPONENT)
    intercept = float(model.intercept_[0])
    draft = Combination(tuple(components), weights, intercept, 0.5, graphs_digest(graphs_dir), {})
    kept_groups = None if groups is None else [g for g, k in zip(groups, keep, strict=True) if k]
    threshold = stable_threshold(y, draft.probability(s), kept_groups)
    fitted = {"entries": int(len(y)), "positives": int(y.sum()), "c": c, "threshold": THRESHOLD_METHOD,
              "date": dt.date.today().isoformat(), **dict(origin or {})}
    return Combination(tuple(components), weights, intercept, threshold, draft.graphs_manifest_sha256, fitted)
