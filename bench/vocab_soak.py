"""Memory under free text: a real `egqa serve` asked 100,000 questions whose words it has never seen.

Every question (`text`) carries three made-up words, so each parse would add strings to spaCy's vocabulary
if nothing scoped it. The questions go in batches over POST /v1/query/batch; the service's RSS is read after
a warm-up (the first tenth), at the middle and at the end: flat means the end within a few percent of the
warm-up figure, measured in this run.
Usage: python bench/vocab_soak.py [--build out/demo] [--questions 100000] [--batch 100]
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
from collections import Counter
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout: bench._support

import httpx  # noqa: E402

from bench._support import rss_mb  # noqa: E402
from service.demo import service_process  # noqa: E402


def made_up(rng: random.Random) -> str:
    """A word no vocabulary holds: a capitalised run of letters with a random tail."""
    return rng.choice(string.ascii_uppercase) + "".join(rng.choices(string.ascii_lowercase, k=9))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, default=Path("out/demo"))
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--date", default="1987-04-08", help="A day of the build's evaluation period.")
    args = parser.parse_args()
    if not (args.build / "graphs").is_dir() or not (args.build / "evidence.db").is_file():
        sys.exit(f"{args.build}: no graphs/ and evidence.db (run `make demo` first, or pass --build)")
    rng = random.Random(0)
    errors: Counter[str] = Counter()
    rss: dict[str, float] = {}
    rounds = args.questions // args.batch
    marks = {rounds // 10: "warm", rounds // 2: "middle", rounds: "end"}
    log = args.build / "vocab_soak.log"
    with service_process(args.build / "graphs", f"sqlite:///{args.build / 'evidence.db'}", log) as service, \
            httpx.Client(base_url=service.url, timeout=60.0) as http:
        rss["start"] = rss_mb(service.pid)
        began = time.perf_counter()
        for r in range(1, rounds + 1):
            items = [{"text": f"{made_up(rng)} acquired {made_up(rng)} in {made_up(rng)}.", "date": args.date}
                     for _ in range(args.batch)]
            response = http.post("/v1/query/batch", json={"queries": items})
            if response.status_code != 200:
                errors[f"HTTP {response.status_code}"] += 1
            if r in marks:
                rss[marks[r]] = rss_mb(service.pid)
        seconds = time.perf_counter() - began
    asked = rounds * args.batch
    print(f"{asked:,} questions with 3 new words each in {seconds:.0f} s ({asked / seconds:.0f}/s); "
          f"errors: {dict(errors) or 'none'}")
    print("service RSS, MB: " + ", ".join(f"{k} {v:.1f}" for k, v in rss.items()))
    print(f"end / warm-up: {rss['end'] / rss['warm']:.3f}   end / middle: {rss['end'] / rss['middle']:.3f}")


if __name__ == "__main__":
    main()
