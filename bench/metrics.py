"""Benchmark the bundle bootstrap of benchmark/metrics.py: 1000 resamples over ~10,000 entries, against
two baselines from the same run (one point evaluation, and a naive loop that concatenates the drawn
bundles and scores each resample). Prints figures; not a test.

    python bench/metrics.py [--bundles 3400] [--resamples 1000] [--naive 30]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmark.metrics import (  # noqa: E402
    ap_norm,
    auc_norm,
    bootstrap_draws,
    bootstrap_metrics,
    evaluate_scores,
    unit_index,
)


def bundles(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """BoOQA-shaped entries: a positive and two negatives per bundle, coarse scores, 30% without evidence."""
    rng = np.random.default_rng(seed)
    labels = np.tile([1, 0, 0], n)
    scores = np.round(rng.random(labels.size) * 0.7 + 0.3 * labels * rng.random(labels.size), 2)
    evidence = rng.random(labels.size) > 0.3
    groups = [f"b{b:06d}" for b in range(n) for _ in range(3)]
    return labels, scores, evidence, groups


def cpu_seconds() -> float:
    """CPU time of this process (on a loaded host wall time alone is unreliable)."""
    return time.process_time()


def timed(fn, repeat: int = 1) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Return (wall, cpu) seconds of the best of `repeat` calls."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        w, c = time.perf_counter(), cpu_seconds()
        fn()
        best = min(best, (time.perf_counter() - w, cpu_seconds() - c))
    return best


def main() -> None:
    """Print the bootstrap's time, and its cost in point evaluations and against the naive loop."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bundles", type=int, default=3400)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--naive", type=int, default=30, help="resamples timed in the naive loop")
    args = parser.parse_args()
    labels, scores, evidence, groups = bundles(args.bundles)
    n = labels.size
    print(f"{n:,} entries in {args.bundles:,} bundles, {args.resamples} resamples; load {os.getloadavg()[0]:.1f}")

    point_wall, point_cpu = timed(lambda: evaluate_scores(labels, scores, evidence, groups, resamples=0), repeat=5)
    boot_wall, boot_cpu = timed(lambda: bootstrap_metrics(labels, scores, evidence, groups, args.resamples), repeat=3)

    unit = unit_index(groups, n)
    members = [np.flatnonzero(unit == k) for k in range(int(unit.max()) + 1)]

    def naive() -> None:
        for row in bootstrap_draws(len(members), args.naive):
            idx = np.concatenate([members[k] for k in row])
            auc_norm(labels[idx], scores[idx], evidence[idx])
            ap_norm(labels[idx], scores[idx], evidence[idx])

    naive_wall, naive_cpu = timed(naive)
    naive_per = naive_cpu / args.naive
    boot_per = boot_cpu / args.resamples
    print(f"point evaluation (curve, both metrics, AUC_50, coverage): {1000 * point_wall:.1f} ms wall, "
          f"{1000 * point_cpu:.1f} ms CPU")
    print(f"bootstrap, {args.resamples} resamples (vectorised):      {boot_wall:.2f} s wall, {boot_cpu:.2f} s CPU "
          f"= {boot_cpu / max(point_cpu, 1e-9):.0f} point evaluations")
    print(f"naive loop, {args.naive} resamples:                   {naive_wall:.2f} s wall, {naive_cpu:.2f} s CPU "
          f"-> {naive_per * args.resamples:.1f} s CPU for {args.resamples}")
    print(f"per resample: vectorised {1000 * boot_per:.2f} ms CPU, naive {1000 * naive_per:.2f} ms CPU "
          f"(speed-up x{naive_per / max(boot_per, 1e-12):.1f})")


if __name__ == "__main__":
    main()
