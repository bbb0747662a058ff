"""Hypothesis-only artefact audit (REFERENCE §7, Poliak et al.): how well is the label guessed without evidence?

A logistic regression sees only the proposition's predicate (its string, its lemma tokens, its surface
words) and the argument types, never the window's evidence. Its out-of-fold scores, with folds grouped by
bundle so a positive and its negatives are never split, are scored with AUC_norm: near 0 means the labels
cannot be read off the hypotheses; the published BoOQA scored 51.0 (%).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmark.build import parse_predicate, read_jsonl
from benchmark.metrics import evaluate_scores
from graph_builder.errors import InputError

log = logging.getLogger(__name__)

AUDIT_VERSION = "egqa.hypothesis_only_logreg.v1"


def hypothesis_features(entry: dict[str, object], with_arguments: bool = False) -> dict[str, float]:
    """Return the hypothesis-only features of one entry: predicate, its lemma tokens and words, types."""
    predicate = str(entry["predicate"])
    features: dict[str, float] = {f"pred={predicate}": 1.0}
    parsed = parse_predicate(predicate)
    if parsed is not None:
        if parsed.prefix:
            features[f"prefix={parsed.prefix}"] = 1.0
        for token in {*parsed.left, *parsed.right}:
            for word in token.split("_"):
                features[f"lemma={word}"] = 1.0
    for word in str(entry.get("predicate_text", "")).lower().split():
        features[f"word={word}"] = 1.0
    subj_type, obj_type = str(entry.get("subj_type", "")), str(entry.get("obj_type", ""))
    features[f"types={subj_type}#{obj_type}"] = 1.0
    features[f"subj_type={subj_type}"] = 1.0
    features[f"obj_type={obj_type}"] = 1.0
    if with_arguments:
        features[f"subj={entry.get('subj', '')}"] = 1.0
        features[f"obj={entry.get('obj', '')}"] = 1.0
    return features


def audit_entries(entries: Sequence[dict[str, object]], folds: int = 5, c: float = 1.0,
                  with_arguments: bool = False) -> dict[str, object]:
    """Cross-validate the hypothesis-only classifier by bundle and return its metrics (AUC_norm first)."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline

    if not entries:
        raise InputError("no entries to audit")
    ordered = sorted(entries, key=lambda e: str(e["id"]))
    labels = np.array([int(e["label"]) for e in ordered])  # type: ignore[arg-type]
    groups = np.array([str(e["bundle_id"]) for e in ordered])
    n_groups = len(set(groups.tolist()))
    if n_groups < folds:
        raise InputError(f"{n_groups} bundles are too few for {folds}-fold cross-validation")
    if labels.min() == labels.max():
        raise InputError("every entry has the same label: nothing to audit")
    features = [hypothesis_features(e, with_arguments) for e in ordered]
    model = make_pipeline(DictVectorizer(), LogisticRegression(C=c, max_iter=2000))
    scores = cross_val_predict(model, features, labels, groups=groups, cv=GroupKFold(n_splits=folds),
                               method="predict_proba")[:, 1]
    metrics = evaluate_scores(labels, scores)
    # Every entry has a "score" here, so coverage says nothing; keep the rest.
    metrics.pop("coverage")
    return {"audit": AUDIT_VERSION, **metrics, "folds": folds, "c": c, "with_arguments": with_arguments,
            "bundles": n_groups}


def audit_file(path: Path, folds: int = 5, c: float = 1.0, with_arguments: bool = False) -> dict[str, object]:
    """Audit one benchmark JSON Lines file."""
    result = audit_entries(read_jsonl(path), folds=folds, c=c, with_arguments=with_arguments)
    return {"file": str(path), **result}
