"""Extraction precision on fresh samples read by hand, recomputed: the recorded verdicts, and today's extractor.

`bench/data/extraction_blind.json` records samples drawn with `bench/extraction_sample.py` (corpus, seed, n) and
every triple that extractor v3 or v4 gave on them, read once with both versions' triples mixed and unlabelled, each
judged stated or not (lenient: a generic argument is allowed; a split or merged name, a wrong subject, a date or an
amount as argument is not). No sentence text is stored: the sentences are redrawn from ../shared/data by seed.

For each read the script prints the recorded precision of v3 and v4 with a 95% bootstrap interval over sentences,
then redraws the sentences, runs today's extractor and scores its triples against the verdicts. A triple no verdict
covers (a rule changed since the read) is counted apart as unjudged, never guessed.
Usage: python bench/extraction_blind.py [--data ../shared/data] [--verdicts bench/data/extraction_blind.json]
       [--no-rerun]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
Key = tuple[int, str, str, str]


def _sampler() -> ModuleType:
    spec = importlib.util.spec_from_file_location("extraction_sample", HERE / "extraction_sample.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def precision_interval(per_sentence: list[tuple[int, int]], n_boot: int = 2000,
                       seed: int = 0) -> tuple[float, float, float]:
    """Precision (stated / triples) and its 95% percentile bootstrap interval, resampling sentences."""
    total = sum(n for n, _ in per_sentence)
    stated = sum(s for _, s in per_sentence)
    if total == 0:
        return float("nan"), float("nan"), float("nan")
    rng = random.Random(seed)
    draws = []
    for _ in range(n_boot):
        picked = [per_sentence[rng.randrange(len(per_sentence))] for _ in per_sentence]
        n = sum(a for a, _ in picked)
        draws.append(sum(b for _, b in picked) / n if n else 0.0)
    draws.sort()
    return stated / total, draws[int(0.025 * n_boot)], draws[int(0.975 * n_boot) - 1]


def recorded(triples: list[dict[str, object]], version: str) -> list[tuple[int, int]]:
    """(triples, stated) per sentence for one version, from the verdicts."""
    per: dict[int, list[int]] = {}
    for t in triples:
        if version in t["in"]:  # type: ignore[operator]
            cell = per.setdefault(int(t["sentence"]), [0, 0])  # type: ignore[call-overload]
            cell[0] += 1
            cell[1] += int(bool(t["stated"]))
    return [(a, b) for a, b in per.values()]


def rerun(sample: dict[str, object], data: Path, sampler: ModuleType) -> tuple[list[tuple[int, int]], int]:
    """Redraw the sample, extract with today's code and score against the verdicts: per-sentence counts, unjudged."""
    draw = sampler.draw_ding if sample["corpus"] == "ding2014" else sampler.draw_reuters
    rows, raws = draw(data, int(sample["n"]), int(sample["seed"]))  # type: ignore[call-overload]
    sampler.add_predictions(rows, raws)
    verdicts: dict[Key, bool] = {
        (int(t["sentence"]), str(t["subject"]), str(t["predicate"]), str(t["object"])): bool(t["stated"])
        for t in sample["triples"]}  # type: ignore[attr-defined]
    per: list[tuple[int, int]] = []
    unjudged = 0
    for i, row in enumerate(rows):
        n = stated = 0
        for p in {(p["subject"], p["predicate"], p["object"]) for p in row["predicted"]}:
            verdict = verdicts.get((i, *p))
            if verdict is None:
                unjudged += 1
                continue
            n += 1
            stated += int(verdict)
        if n:
            per.append((n, stated))
    return per, unjudged


def _fmt(value: tuple[float, float, float], per: list[tuple[int, int]]) -> str:
    p, lo, hi = value
    return f"{100 * p:5.1f}% [{100 * lo:.0f}, {100 * hi:.0f}] ({sum(b for _, b in per)}/{sum(a for a, _ in per)})"


def main() -> None:
    """Print recorded and recomputed precision per read."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=HERE.parents[1] / "shared" / "data")
    parser.add_argument("--verdicts", type=Path, default=HERE / "data" / "extraction_blind.json")
    parser.add_argument("--no-rerun", action="store_true", help="print the recorded figures only")
    args = parser.parse_args()
    reads = json.loads(args.verdicts.read_text())["reads"]
    sampler = None if args.no_rerun else _sampler()
    if sampler is not None and not (args.data / "reuters_ding2014").is_dir():
        sys.exit(f"{args.data} has no reuters_ding2014: pass --data or --no-rerun")
    print(f"{'read':<6} {'seeds':<11} {'v3 (recorded)':<24} {'v4 (recorded)':<24} {'today':<24} unjudged")
    for read in reads:
        seeds = "/".join(str(s["seed"]) for s in read["samples"])
        # sentence indices restart per sample: keep the samples apart when grouping by sentence
        v3 = [c for s in read["samples"] for c in recorded(s["triples"], "v3")]
        v4 = [c for s in read["samples"] for c in recorded(s["triples"], "v4")]
        today = "-"
        unjudged = "-"
        if sampler is not None:
            per: list[tuple[int, int]] = []
            missing = 0
            for sample in read["samples"]:
                counts, gap = rerun(sample, args.data, sampler)
                per += counts
                missing += gap
            today, unjudged = _fmt(precision_interval(per), per), str(missing)
        print(f"{read['name']:<6} {seeds:<11} {_fmt(precision_interval(v3), v3):<24} "
              f"{_fmt(precision_interval(v4), v4):<24} {today:<24} {unjudged}")
        print(f"       ({read['note']})")


if __name__ == "__main__":
    main()
