"""How a hypothesis' premises are aggregated: every entry of a benchmark split scored premise by premise with the
engine in process, then the best score (what the service answers) against other aggregations, each as AP_norm
with the paired difference against the best over the same resampled bundles. The run that chose `+many`
(docs/results.md, "Many premises").

Usage: python bench/premise_aggregation.py BENCHMARK.jsonl --graphs GRAPHS --store sqlite:///PATH [--scorer S]
A scorer that reads text (`+lm`, `+smooth`) needs the `lm` extra.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import orjson

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from benchmark.metrics import ap_norm, paired_difference  # noqa: E402
from service.app import open_engine  # noqa: E402
from service.engine import HypothesisInput, Options, ScoringEngine  # noqa: E402
from service.evaluate import entry_query  # noqa: E402
from service.settings import Settings  # noqa: E402

BATCH = 500
ALL_EVIDENCE = 10**9  # top_k that keeps every piece of evidence (the HTTP API caps it; in process it is not)
Premises = npt.NDArray[np.float64]  # one entry's best score per distinct premise (predicate, order), best first


def hypothesis(entry: dict) -> HypothesisInput:
    """A benchmark entry as the proposition `egqa evaluate` sends for it (`entry_query`)."""
    query = entry_query(entry)
    return HypothesisInput(**{**query, "exclude_sentence_ids": tuple(query["exclude_sentence_ids"])})


def premise_scores(engine: ScoringEngine, entries: Sequence[dict], scorer: str) -> list[Premises]:
    """Each entry's distinct premises' scores under `scorer`, best first (empty without evidence): the service's
    answers with every piece of evidence kept, each (predicate, order) at its best."""
    out: list[Premises] = []
    for start in range(0, len(entries), BATCH):
        chunk = entries[start:start + BATCH]
        for answer in engine.judge([hypothesis(e) for e in chunk], Options(scorer, top_k=ALL_EVIDENCE)):
            best: dict[tuple[str, bool], float] = {}
            for scored in answer.evidence:
                key = (scored.evidence.predicate, scored.evidence.aligned)
                best[key] = max(best.get(key, 0.0), scored.score)
            out.append(np.sort(np.array(list(best.values()), dtype=np.float64))[::-1])
        print(f"  {min(start + BATCH, len(entries))}/{len(entries)} entries", file=sys.stderr)
    return out


def _or_zero(f: Callable[[Premises], float]) -> Callable[[Premises], float]:
    return lambda v: f(v) if len(v) else 0.0


AGGREGATIONS: dict[str, Callable[[Premises], float]] = {
    "best (the service)": _or_zero(lambda v: float(v[0])),
    "noisy-OR": _or_zero(lambda v: float(1 - np.prod(1 - np.clip(v, 0, 1 - 1e-9)))),
    "best + half the second": _or_zero(lambda v: float(v[0] + 0.5 * (v[1] if len(v) > 1 else 0.0))),
    "sum": _or_zero(lambda v: float(v.sum())),
    **{f"mean of the best {k}": _or_zero(lambda v, k=k: float(v[:k].mean())) for k in (3, 5)},
    **{f"best / n^{a}" + (f", n capped at {cap}" if cap else ""):
       _or_zero(lambda v, a=a, cap=cap: float(v[0] / min(len(v), cap or len(v)) ** a))
       for a in (0.5, 1.0, 1.5, 2.0) for cap in (3, 5, 8, None)},
}


def main() -> None:
    """Score the split premise by premise and print each aggregation against the best."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("benchmark", type=Path, help="A benchmark split (JSON lines, as `egqa evaluate` reads).")
    parser.add_argument("--graphs", type=Path, required=True)
    parser.add_argument("--store", required=True, help="The evidence store URL the service would use.")
    parser.add_argument("--scorer", default="binc_clean+smooth+act+lm+dir")
    args = parser.parse_args()
    entries = [orjson.loads(line) for line in args.benchmark.read_bytes().splitlines() if line.strip()]
    engine = open_engine(Settings(graphs_dir=args.graphs, store_url=args.store))
    premises = premise_scores(engine, entries, args.scorer)
    labels = np.array([int(e["label"]) for e in entries])
    evidence = np.array([len(v) > 0 for v in premises])
    bundles = [e["bundle_id"] for e in entries]
    best = np.array([AGGREGATIONS["best (the service)"](v) for v in premises])
    print(f"{args.benchmark} ({len(entries)} entries), {args.scorer}: AP_norm, and minus the best, paired over bundles")
    for name, aggregate in AGGREGATIONS.items():
        scores = np.array([aggregate(v) for v in premises])
        diff = paired_difference(labels, scores, best, has_evidence=evidence, groups=bundles)
        lo, hi = diff.ap_norm_ci
        print(f"{name:32s} {100 * ap_norm(labels, scores, evidence):5.1f}  {100 * diff.ap_norm:+5.1f} "
              f"[{100 * lo:+.1f}, {100 * hi:+.1f}]")


if __name__ == "__main__":
    main()
