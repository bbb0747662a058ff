"""Hypothesis-only artefact audit (Poliak et al. 2018): how well is the label guessed without evidence?

A logistic regression sees only the proposition's predicate (its string, its lemma tokens, its surface
words) and the argument types, never the window's evidence. Its out-of-fold scores, with folds grouped by
bundle so a positive and its negatives are never split, are scored with AUC_norm and AP_norm (with 95%
bundle-bootstrap intervals): near 0 means the labels cannot be read off the hypotheses; the published
BoOQA scored 51.0 (%) AUC_norm. A benchmark folder is audited split by split (dev and test), recorded in
its `audit.json`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from benchmark.build import parse_predicate, read_jsonl
from benchmark.metrics import DEFAULT_RESAMPLES, evaluate_scores, percent, with_interval
from graph_builder.errors import InputError
from graph_builder.extras import require
from graph_builder.tables import render, table

log = logging.getLogger(__name__)

AUDIT_VERSION = "egqa.hypothesis_only_logreg.v1"
SPLITS = ("dev", "test")
AUDIT_FILE = "audit.json"
PUBLISHED_AUC_NORM = 0.510  # BoOQA-EN (Li et al. 2022)


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
                  with_arguments: bool = False, resamples: int = DEFAULT_RESAMPLES) -> dict[str, Any]:
    """Cross-validate the hypothesis-only classifier by bundle and return its metrics (AUC_norm first)."""
    why = "the hypothesis-only audit"
    DictVectorizer = require("benchmark", "sklearn.feature_extraction", why).DictVectorizer  # noqa: N806
    LogisticRegression = require("benchmark", "sklearn.linear_model", why).LogisticRegression  # noqa: N806
    selection = require("benchmark", "sklearn.model_selection", why)
    GroupKFold, cross_val_predict = selection.GroupKFold, selection.cross_val_predict  # noqa: N806
    make_pipeline = require("benchmark", "sklearn.pipeline", why).make_pipeline

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
    metrics = evaluate_scores(labels, scores, groups=groups, resamples=resamples)
    # Every entry has a "score" here, so coverage says nothing; keep the rest.
    metrics.pop("coverage")
    return {"audit": AUDIT_VERSION, **metrics, "folds": folds, "c": c, "with_arguments": with_arguments,
            "bundles": n_groups}


def audit_file(path: Path, folds: int = 5, c: float = 1.0, with_arguments: bool = False,
               resamples: int = DEFAULT_RESAMPLES) -> dict[str, Any]:
    """Audit one benchmark JSON Lines file."""
    result = audit_entries(read_jsonl(path), folds=folds, c=c, with_arguments=with_arguments, resamples=resamples)
    return {"file": str(path), **result}


def audit_benchmark(folder: Path, folds: int = 5, c: float = 1.0, with_arguments: bool = False,
                    resamples: int = DEFAULT_RESAMPLES) -> dict[str, dict[str, Any]]:
    """Audit the dev and test files of a benchmark folder and record the results in its audit.json.

    A split too small to cross-validate gets {"error": reason} instead of metrics; a missing file is an error.
    """
    missing = [s for s in SPLITS if not (folder / f"{s}.jsonl").is_file()]
    if missing:
        raise InputError(f"{folder}: no {', '.join(f'{s}.jsonl' for s in missing)} "
                         "(a folder from `egqa benchmark build` holds dev.jsonl and test.jsonl)")
    results: dict[str, dict[str, Any]] = {}
    for split in SPLITS:
        path = folder / f"{split}.jsonl"
        try:
            results[split] = audit_file(path, folds=folds, c=c, with_arguments=with_arguments, resamples=resamples)
        except InputError as exc:
            log.warning("%s: not audited: %s", path, exc)
            results[split] = {"file": str(path), "audit": AUDIT_VERSION, "error": str(exc)}
    (folder / AUDIT_FILE).write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    return results


def format_audit(results: Mapping[str, Mapping[str, Any]]) -> str:
    """Return one table row per split: AUC_norm and AP_norm with intervals, AUC_50, xi, n and bundles."""
    numbers = ("AUC_norm [95% CI]", "AP_norm [95% CI]", "AUC_50", "xi", "n", "bundles")
    rows = [(split, with_interval(r, "auc_norm"), with_interval(r, "ap_norm"), percent(r["auc_50"]),
             f"{float(r['xi']):.3f}", int(r["n"]), int(r["bundles"])) for split, r in results.items() if "error" not in r]
    lines = [f"hypothesis-only audit (lower is better; published BoOQA AUC_norm {percent(PUBLISHED_AUC_NORM)}%)"]
    if rows:
        lines.append(render(table(("split", *numbers), right=numbers, rows=rows)))
    lines += [f"{split}: not audited: {r['error']}" for split, r in results.items() if "error" in r]
    return "\n".join(lines)
