"""Soak: a real `egqa serve` held at a steady request rate over loopback for minutes, watching memory.

Starts the service on a build (e.g. the demo's out/demo: graphs/, evidence.db, triples/), then sends
POST /v1/query at a fixed rate (open loop: request i leaves at start + i/rate, whatever the answers do)
for --seconds, with at most --in-flight requests outstanding; the loop is bounded and stops by itself.
Hypotheses are real triples of the indexed windows. Prints errors, p50/p99 latency per third of the run
(the last third against the first, a ratio from the same run), open SQLite connections, and the
server's RSS at the start, the middle and the end (goal: middle -> end growth under 10%).
Usage: python bench/soak.py [--build out/demo] [--seconds 600] [--rate 200] [--env EGQA_X=value ...]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections import Counter
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout: bench._support

import httpx  # noqa: E402
import numpy as np  # noqa: E402

from graph_builder.triples import read_triples  # noqa: E402
from retrieval.backends.sqlite import SQLiteStore  # noqa: E402
from bench._support import open_files, rss_mb  # noqa: E402
from service.demo import service_process  # noqa: E402


async def soak(url: str, pid: int, db: Path, bodies: list[dict[str, object]], seconds: float, rate: float,
               in_flight: int) -> None:
    """Drive the service at `rate` requests/s for `seconds` and print the figures."""
    total = int(seconds * rate)
    latencies = np.full(total, np.nan)
    errors: Counter[str] = Counter()
    skipped = 0
    samples: dict[str, tuple[float, int]] = {}
    gate = asyncio.Semaphore(in_flight)
    limits = httpx.Limits(max_connections=in_flight, max_keepalive_connections=in_flight)

    async with httpx.AsyncClient(base_url=url, timeout=10.0, limits=limits) as http:
        async def one(i: int) -> None:
            start = time.perf_counter()
            try:
                response = await http.post("/v1/query", json=bodies[i % len(bodies)])
                if response.status_code != 200:
                    errors[f"HTTP {response.status_code} {response.json()['error']['code']}"] += 1
                else:
                    latencies[i] = time.perf_counter() - start
            except httpx.HTTPError as exc:
                errors[type(exc).__name__] += 1
            finally:
                gate.release()

        samples["start"] = (rss_mb(pid), open_files(pid, db))
        tasks = []
        begin = time.perf_counter()
        for i in range(total):
            delay = begin + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if i == total // 2:
                samples["middle"] = (rss_mb(pid), open_files(pid, db))
            if gate.locked():  # --in-flight requests outstanding: the service is not keeping up
                skipped += 1
                continue
            await gate.acquire()
            tasks.append(asyncio.create_task(one(i)))
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - begin
        samples["end"] = (rss_mb(pid), open_files(pid, db))

    sent = len(tasks)
    print(f"{sent:,} requests in {elapsed:.0f} s ({sent / elapsed:.0f}/s, target {rate:g}/s); "
          f"errors {sum(errors.values())} {dict(errors)}; not sent (service behind) {skipped}")
    thirds = np.array_split(latencies, 3)
    for name, part in zip(("first third", "second third", "last third"), thirds, strict=True):
        ok = part[~np.isnan(part)] * 1000
        if len(ok):
            print(f"  {name:12s} p50 {np.percentile(ok, 50):6.1f} ms   p99 {np.percentile(ok, 99):6.1f} ms")
    first, last = (t[~np.isnan(t)] for t in (thirds[0], thirds[-1]))
    if len(first) and len(last):
        print(f"  last/first third: p50 x{np.percentile(last, 50) / np.percentile(first, 50):.2f}, "
              f"p99 x{np.percentile(last, 99) / np.percentile(first, 99):.2f}")
    for name, (rss, conns) in samples.items():
        print(f"  RSS {name:6s} {rss:7.1f} MB   SQLite connections {conns}")
    growth = (samples["end"][0] - samples["middle"][0]) / samples["middle"][0] * 100
    print(f"  RSS growth middle -> end: {growth:+.1f}% (goal: under 10%)")


def main() -> None:
    """Start the service on the build, run the soak and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, default=Path("out/demo"))
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--in-flight", type=int, default=64, help="most requests outstanding at once")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="environment of the service, e.g. EGQA_STORE_CONNECTIONS=8 (repeatable)")
    args = parser.parse_args()
    env = dict(item.split("=", 1) for item in args.env)

    db = (args.build / "evidence.db").resolve()
    rows = read_triples(args.build / "triples", columns=["subj", "obj", "subj_type", "obj_type", "predicate",
                                                         "date", "window"]).to_pylist()
    # Only triples of windows the store holds (an evaluation store holds the evaluation period only).
    with SQLiteStore(db, create=False) as store:
        held = {w.id for w in store.windows()}
    rows = [r for r in rows if r["window"] in held]
    bodies = [{"subject": r["subj"], "predicate": r["predicate"], "object": r["obj"], "subject_type": r["subj_type"],
               "object_type": r["obj_type"], "date": r["date"].isoformat(), "top_k": 3}
              for r in random.Random(0).sample(rows, min(5000, len(rows)))]
    log = args.build / "soak-serve.log"
    with service_process(args.build / "graphs", f"sqlite:///{db}", log, env=env) as service:
        print(f"service at {service.url} (pid {service.pid}); {args.rate:g} requests/s for {args.seconds:g} s")
        asyncio.run(soak(service.url, service.pid, db, bodies, args.seconds, args.rate, args.in_flight))


if __name__ == "__main__":
    main()
