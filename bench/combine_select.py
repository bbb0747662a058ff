"""Which components should `combined` weigh? Forward selection by cross-validation on the split it is fitted on.

`egqa graph combine` fits the logistic regression over the components it is given. This script chooses them the
way a held-out test allows: on the fit split alone (the benchmark's dev), bundles are cut into folds, each fold is
scored by a combination fitted on the others, and the candidate whose addition gives the best out-of-fold AP_norm
is added, until none adds at least `--min-gain` points. The chosen set is then fitted on the whole fit split and
scored once on the check split (test), beside every single candidate, with paired bundle-bootstrap intervals.

Usage: python bench/combine_select.py EVAL_DEV EVAL_TEST --graphs GRAPHS [--candidates a,b,...] [--folds 5]
Both evaluations are `egqa evaluate --out` folders holding the candidates' scores.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

from benchmark.metrics import evaluate_scores, paired_difference  # noqa: E402
from graph_builder.graphs.combined import DEFAULT_C, fit_combination  # noqa: E402
from service.evaluate import read_scores  # noqa: E402


def _load(path: Path) -> tuple[dict[str, npt.NDArray[np.float64]], npt.NDArray[np.int64], npt.NDArray[np.bool_],
                               list[str]]:
    rows, scorers = read_scores(path)
    columns = {s: np.array([float(r[s]) for r in rows]) for s in scorers}
    labels = np.array([int(r["label"]) for r in rows], dtype=np.int64)
    evidence = np.array([bool(r.get("has_evidence", True)) for r in rows])
    return columns, labels, evidence, [str(r["bundle_id"]) for r in rows]


def out_of_fold(columns: dict[str, npt.NDArray[np.float64]], chosen: list[str], labels: npt.NDArray[np.int64],
                evidence: npt.NDArray[np.bool_], fold_of: npt.NDArray[np.int64], folds: int, graphs: Path,
                c: float) -> npt.NDArray[np.float64]:
    """Each entry's P(true) from a combination fitted on the other folds (0 where there is no evidence)."""
    scores = np.stack([columns[name] for name in chosen], axis=1)
    out = np.zeros(len(labels))
    for fold in range(folds):
        train = fold_of != fold
        model = fit_combination(scores[train], labels[train], chosen, graphs, has_evidence=evidence[train], c=c)
        test = ~train
        out[test] = np.where(evidence[test], model.probability(scores[test]), 0.0)
    return out


def main() -> None:
    """Select on the fit split, report on the check split."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("fit", type=Path)
    parser.add_argument("check", type=Path)
    parser.add_argument("--graphs", type=Path, required=True, help="the graph set the evaluations were served with")
    parser.add_argument("--candidates", default="", help="comma-separated scorers (default: every one in the fit run)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-gain", type=float, default=0.3, help="AP_norm points a component must add")
    parser.add_argument("--c", type=float, default=DEFAULT_C)
    args = parser.parse_args()

    columns, labels, evidence, bundles = _load(args.fit)
    candidates = [c for c in (args.candidates.split(",") if args.candidates else columns) if c != "combined"]
    unknown = [c for c in candidates if c not in columns]
    if unknown:
        parser.error(f"{args.fit} holds no scores for {', '.join(unknown)}")
    rng = np.random.default_rng(args.seed)
    names = sorted(set(bundles))
    fold_by_bundle = dict(zip(names, rng.permutation(len(names)) % args.folds, strict=True))
    fold_of = np.array([fold_by_bundle[b] for b in bundles])

    def cv_ap(chosen: list[str]) -> float:
        p = out_of_fold(columns, chosen, labels, evidence, fold_of, args.folds, args.graphs, args.c)
        return 100 * float(evaluate_scores(labels, p, evidence, bundles, resamples=0)["ap_norm"])

    print(f"fit split {args.fit}: {len(labels):,} entries, {len(names):,} bundles, {args.folds} folds (seed {args.seed})")
    for name in candidates:
        print(f"  alone {name:40s} own AP_norm {100 * evaluate_scores(labels, columns[name], evidence, bundles, 0)['ap_norm']:5.1f}"
              f"   fitted, out of fold {cv_ap([name]):5.1f}")
    chosen: list[str] = []
    best = -1.0
    while True:
        trials = {name: cv_ap(chosen + [name]) for name in candidates if name not in chosen}
        if not trials:
            break
        name, value = max(trials.items(), key=lambda kv: kv[1])
        if chosen and value < best + args.min_gain:
            print(f"  stop: adding {name} gives {value:.1f} (best {best:.1f})")
            break
        chosen.append(name)
        best = value
        print(f"  step {len(chosen)}: + {name:40s} out-of-fold AP_norm {value:5.1f}")

    dev_scores = np.stack([columns[n] for n in chosen], axis=1)
    combination = fit_combination(dev_scores, labels, chosen, args.graphs, has_evidence=evidence, c=args.c)
    test_columns, test_labels, test_evidence, test_bundles = _load(args.check)
    missing = [n for n in chosen if n not in test_columns]
    if missing:
        parser.error(f"{args.check} holds no scores for {', '.join(missing)}")
    combined = combination.probability(np.stack([test_columns[n] for n in chosen], axis=1))
    combined = np.where(test_evidence, combined, 0.0)
    whole = evaluate_scores(test_labels, combined, test_evidence, test_bundles)
    print(f"\nchosen on {args.fit.name}: {', '.join(chosen)}; held out on {args.check} ({len(test_labels):,} entries):")
    low, high = whole["ap_norm_ci"]
    print(f"  combined AP_norm {100 * whole['ap_norm']:.1f} [{100 * low:.1f}, {100 * high:.1f}]  "
          f"AUC_norm {100 * whole['auc_norm']:.1f}")
    for name in candidates:
        if name not in test_columns:
            continue
        own = evaluate_scores(test_labels, test_columns[name], test_evidence, test_bundles, resamples=0)
        diff = paired_difference(test_labels, combined, test_columns[name], test_evidence, test_bundles).as_dict()
        lo, hi = diff["ap_norm_ci"]
        print(f"  {name:40s} {100 * own['ap_norm']:5.1f}   combined minus it {100 * diff['ap_norm']:+.1f} "
              f"[{100 * lo:+.1f}, {100 * hi:+.1f}]")


if __name__ == "__main__":
    main()
