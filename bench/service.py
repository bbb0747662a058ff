"""Service speed on a real build: single-query latency over loopback, batch throughput, in-process rate.

Needs a build (e.g. the demo's out/demo: graphs/, evidence.db, triples/). Hypotheses are real triples of
the indexed windows. Prints p50/p99 latency of POST /v1/query (targets p50 < 5 ms, p99 < 25 ms), batch
throughput of POST /v1/query/batch (target >= 2,000 hypotheses/s), and the in-process rate of the same
engine on the same hypotheses (the ratio shows what HTTP costs).
Usage: python bench/service.py [--build out/demo] [--queries 500] [--batch 500]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import httpx  # noqa: E402
import numpy as np  # noqa: E402

from graph_builder.graphs.graphset import GraphSet  # noqa: E402
from graph_builder.triples import read_triples  # noqa: E402
from retrieval.factory import open_store  # noqa: E402
from service.demo import running_service  # noqa: E402
from service.engine import HypothesisInput, Options, ScoringEngine  # noqa: E402


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, default=Path("out/demo"))
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--scorer", default="binc")
    args = parser.parse_args()

    rows = read_triples(args.build / "triples", columns=["subj", "obj", "subj_type", "obj_type", "predicate",
                                                         "window"]).to_pylist()
    sample = random.Random(5).sample(rows, min(args.queries, len(rows)))
    bodies = [{"subject": r["subj"], "predicate": r["predicate"], "object": r["obj"], "subject_type": r["subj_type"],
               "object_type": r["obj_type"], "window": r["window"], "scorer": args.scorer, "top_k": 3} for r in sample]
    store_url = f"sqlite:///{(args.build / 'evidence.db').resolve()}"

    engine = ScoringEngine(GraphSet.load(args.build / "graphs"), open_store(store_url))
    inputs = [HypothesisInput(subject=b["subject"], predicate=b["predicate"], object=b["object"],
                              subject_type=b["subject_type"], object_type=b["object_type"], window=b["window"])
              for b in bodies]
    engine.judge(inputs[:20], Options(args.scorer))
    start = time.perf_counter()
    engine.judge(inputs, Options(args.scorer, top_k=3))
    in_process = len(inputs) / (time.perf_counter() - start)

    with running_service(args.build / "graphs", store_url, Path("/tmp/egqa-bench-service.log")) as url:
        with httpx.Client(base_url=url, timeout=30) as client:
            for b in bodies[:20]:
                client.post("/v1/query", json=b)
            latencies = []
            for b in bodies:
                t = time.perf_counter()
                response = client.post("/v1/query", json=b)
                latencies.append((time.perf_counter() - t) * 1000)
                assert response.status_code == 200, response.text
            batches = [bodies[i:i + args.batch] for i in range(0, len(bodies), args.batch)]
            options = {"scorer": args.scorer, "top_k": 3}
            t = time.perf_counter()
            for batch in batches:
                strip = [{k: v for k, v in b.items() if k not in options} for b in batch]
                response = client.post("/v1/query/batch", json={"queries": strip, **options})
                assert response.status_code == 200, response.text
            batch_rate = len(bodies) / (time.perf_counter() - t)
    lat = np.array(latencies)
    print(f"build: {args.build}  hypotheses: {len(bodies)} real triples  scorer: {args.scorer}")
    print(f"single query over loopback: p50 {np.percentile(lat, 50):.2f} ms  p99 {np.percentile(lat, 99):.2f} ms  "
          f"(targets p50 < 5 ms, p99 < 25 ms)")
    print(f"batch of {args.batch} over loopback: {batch_rate:,.0f} hypotheses/s  (target >= 2,000/s)")
    print(f"in-process engine, same hypotheses: {in_process:,.0f} hypotheses/s  "
          f"(HTTP batch reaches {batch_rate / in_process:.0%} of it)")


if __name__ == "__main__":
    main()
