"""Extraction precision on fresh samples read by hand, recomputed: the recorded verdicts, and today's extractor.

`bench/data/extraction_blind.json` records samples drawn with `bench/extraction_sample.py` (corpus, seed, n) and
every triple that extractor v3 or v4 gave on them, read once with both versions' triples mixed and unlabelled, each
judged stated or not (lenient: a generic argument is allowed; a split or merged name, a wrong subject, a date or an
amount as argument is not). No sentence text is stored: the sentences are redrawn from ../shared/data by seed.

For each read the script prints the recorded precision of v3 and v4 with a 95% bootstrap interval over sentences,
then redraws the sentences, runs today's extractor and scores its triples against the verdicts. A triple no verdict
covers (a rule changed since the read) is counted apart as unjudged, never guessed.
A read may name the versions it judged (`versions`, e.g. the parsers `sm` and `md`); v3 and v4 otherwise.
Usage: python bench/extraction_blind.py [--data ../shared/data] [--verdicts bench/data/extraction_blind.json]
       [--parser sm|md] [--read NAME] [--no-rerun]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
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


def wilson_interval(stated: int, total: int, z: float = 1.96) -> tuple[float, float, float]:
    """Precision and its 95% Wilson score interval, counting triples as independent draws."""
    if total == 0:
        return float("nan"), float("nan"), float("nan")
    p = stated / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return p, max(0.0, centre - half), min(1.0, centre + half)


def recorded(triples: list[dict[str, object]], version: str) -> list[tuple[int, int]]:
    """(triples, stated) per sentence for one version, from the verdicts."""
    per: dict[int, list[int]] = {}
    for t in triples:
        if version in t["in"]:  # type: ignore[operator]
            cell = per.setdefault(int(t["sentence"]), [0, 0])  # type: ignore[call-overload]
            cell[0] += 1
            cell[1] += int(bool(t["stated"]))
    return [(a, b) for a, b in per.values()]


def rerun(sample: dict[str, object], data: Path, sampler: ModuleType,
          parser: str = "sm") -> tuple[list[tuple[int, int]], int]:
    """Redraw the sample, extract with today's code (and the named parser) and score against the verdicts:
    per-sentence counts, unjudged."""
    draw = sampler.draw_ding if sample["corpus"] == "ding2014" else sampler.draw_reuters
    rows, raws = draw(data, int(sample["n"]), int(sample["seed"]))  # type: ignore[call-overload]
    sampler.add_predictions(rows, raws, parser)
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
    stated, total = sum(b for _, b in per), sum(a for a, _ in per)
    _, w_lo, w_hi = wilson_interval(stated, total)
    return (f"{100 * p:5.1f}% [{100 * lo:.0f}, {100 * hi:.0f}] ({stated}/{total}), "
            f"Wilson [{100 * w_lo:.0f}, {100 * w_hi:.0f}]")


DEFAULT_VERSIONS = ("v3", "v4")  # the versions a read judged, when it does not name them


def main() -> None:
    """Print recorded and recomputed precision per read."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=HERE.parents[1] / "shared" / "data")
    parser.add_argument("--verdicts", type=Path, default=HERE / "data" / "extraction_blind.json")
    parser.add_argument("--parser", default="sm", help="the parser today's extractor runs with (sm, md)")
    parser.add_argument("--read", default=None, metavar="NAME", help="only this read (e.g. s9)")
    parser.add_argument("--no-rerun", action="store_true", help="print the recorded figures only")
    args = parser.parse_args()
    reads = [r for r in json.loads(args.verdicts.read_text())["reads"] if args.read in (None, r["name"])]
    sampler = None if args.no_rerun else _sampler()
    if sampler is not None and not (args.data / "reuters_ding2014").is_dir():
        sys.exit(f"{args.data} has no reuters_ding2014: pass --data or --no-rerun")
    print("precision [95% bootstrap over sentences] (stated/triples), Wilson interval over triples")
    for read in reads:
        seeds = "/".join(str(s["seed"]) for s in read["samples"])
        print(f"{read['name']} (seeds {seeds}): {read['note']}")
        # sentence indices restart per sample: keep the samples apart when grouping by sentence
        for version in read.get("versions", DEFAULT_VERSIONS):
            per = [c for s in read["samples"] for c in recorded(s["triples"], version)]
            print(f"  {version + ' (recorded)':<16} {_fmt(precision_interval(per), per)}")
        if sampler is not None:
            per = []
            missing = 0
            for sample in read["samples"]:
                counts, gap = rerun(sample, args.data, sampler, args.parser)
                per += counts
                missing += gap
            print(f"  {'today, ' + args.parser:<16} {_fmt(precision_interval(per), per)}, {missing} unjudged")


if __name__ == "__main__":
    main()
