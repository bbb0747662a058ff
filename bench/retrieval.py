"""Evidence-store benchmark: ingest rate and lookup latency for SQLite and Elasticsearch, same queries.

    python bench/retrieval.py                                  # ../data-out/reuters/triples, both backends
    python bench/retrieval.py --triples DIR --backends sqlite  # one backend
    python bench/retrieval.py --synthetic 300000               # generated triples (no dataset needed)

Ingest reads the whole dataset into memory first, so the rate is the store's, not Parquet's. The query
sample is drawn (seeded) from the stored triples, each asked in a random argument order and excluding its
own sentence, the way BoOQA asks; every backend gets the same sample and must return the same ids.
"""

from __future__ import annotations

import argparse
import os
import datetime as dt
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graph_builder.triples import TRIPLE_SCHEMA, read_articles, read_triples  # noqa: E402
from graph_builder.windows import window_of  # noqa: E402
from retrieval.factory import open_store  # noqa: E402
from retrieval.protocol import EvidenceQuery  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DEFAULT_TRIPLES = REPO.parent / "data-out" / "reuters" / "triples"


@dataclass
class Result:
    """Figures for one backend."""

    backend: str
    triples: int
    ingest_s: float
    ingest_cpu_s: float
    reingest_s: float
    p50_ms: float
    p99_ms: float
    single_qps: float
    batch_qps: float
    mean_hits: float
    answers: list[list[str]]


def synthetic(n: int, seed: int) -> pa.Table:
    """Return `n` generated triples with Zipf-like argument and predicate frequencies over 8 months."""
    rng = random.Random(seed)
    args = [f"arg{i}" for i in range(20000)]
    weights = [1.0 / (i + 1) for i in range(len(args))]
    preds = [f"(pred{i}.1,pred{i}.2)" for i in range(5000)]
    pweights = [1.0 / (i + 1) for i in range(len(preds))]
    start = dt.date(1987, 2, 26)
    subj = rng.choices(args, weights, k=n)
    obj = rng.choices(args, weights, k=n)
    pred = rng.choices(preds, pweights, k=n)
    rows = []
    for i in range(n):
        date = start + dt.timedelta(days=rng.randrange(236))
        art = f"art{i // 20:07d}"
        rows.append({"triple_id": f"{art}:{i % 20:03d}", "article_id": art, "sentence_id": f"{art}:{i % 20 // 2}",
                     "date": date, "window": window_of(date), "split": "train", "subj": subj[i],
                     "subj_text": subj[i].title(), "subj_type": "organization", "obj": obj[i],
                     "obj_text": obj[i].title(), "obj_type": "location", "predicate": pred[i],
                     "predicate_text": pred[i][1:7], "negated": False,
                     "sentence": f"{subj[i]} did something with {obj[i]} on {date} in a sentence of typical length."})
    return pa.Table.from_pylist(rows, schema=TRIPLE_SCHEMA)


def sample_queries(table: pa.Table, n: int, seed: int) -> list[EvidenceQuery]:
    """Draw `n` BoOQA-like queries from the stored triples (seeded)."""
    rng = random.Random(seed)
    picks = sorted(rng.sample(range(table.num_rows), min(n, table.num_rows)))
    rows = table.select(["window", "subj", "obj", "sentence_id"]).take(picks).to_pylist()
    rng.shuffle(rows)
    out = []
    for r in rows:
        a, b = (r["subj"], r["obj"]) if rng.random() < 0.5 else (r["obj"], r["subj"])
        out.append(EvidenceQuery(r["window"], a, b, (r["sentence_id"],)))
    return out


def run(backend: str, url: str, table: pa.Table, articles: pa.Table | None, queries: list[EvidenceQuery],
        batch: int, keep: bool) -> Result:
    """Ingest `table` into a fresh store at `url` and time lookups of `queries`."""
    store = open_store(url)
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        for chunk in table.to_batches(max_chunksize=batch):
            store.add_triples(chunk)
        ingest, ingest_cpu = time.perf_counter() - t0, time.process_time() - c0
        if articles is not None:
            store.add_articles(articles)
        t0 = time.perf_counter()
        again = sum(store.add_triples(chunk) for chunk in table.to_batches(max_chunksize=batch))
        reingest = time.perf_counter() - t0
        assert again == 0, f"{backend}: re-ingest added {again} triples"
        stats = store.stats()
        assert stats.triples == table.num_rows, (stats, table.num_rows)
        for q in queries[: max(1, len(queries) // 10)]:  # warm caches and connections
            store.evidence(q.window, q.arg_a, q.arg_b, q.exclude_sentence_ids)
        times: list[float] = []
        answers: list[list[str]] = []
        t_all = time.perf_counter()
        for q in queries:
            t = time.perf_counter_ns()
            got = store.evidence(q.window, q.arg_a, q.arg_b, q.exclude_sentence_ids)
            times.append((time.perf_counter_ns() - t) / 1e6)
            answers.append([e.triple_id for e in got])
        single = time.perf_counter() - t_all
        t0 = time.perf_counter()
        batched: list[list[str]] = []
        for i in range(0, len(queries), 100):
            batched += [[e.triple_id for e in r] for r in store.evidence_many(queries[i:i + 100])]
        batch_s = time.perf_counter() - t0
        assert batched == answers, f"{backend}: evidence_many disagrees with evidence"
        times.sort()
        return Result(backend, table.num_rows, ingest, ingest_cpu, reingest, statistics.median(times),
                      times[min(len(times) - 1, int(len(times) * 0.99))], len(queries) / single,
                      len(queries) / batch_s, statistics.fmean(len(a) for a in answers), answers)
    finally:
        if not keep:
            store.drop()  # type: ignore[attr-defined]
        store.close()


def main() -> None:
    """Parse arguments, run the chosen backends, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--triples", type=Path, default=DEFAULT_TRIPLES, help="triples dataset folder")
    ap.add_argument("--synthetic", type=int, default=0, help="generate this many triples instead")
    ap.add_argument("--backends", default="sqlite,elasticsearch")
    ap.add_argument("--es-url", default="http://127.0.0.1:9200")
    ap.add_argument("--queries", type=int, default=5000)
    ap.add_argument("--batch", type=int, default=20000, help="triples per add_triples call")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--keep", action="store_true", help="keep the stores (default: drop them)")
    opts = ap.parse_args()

    t0 = time.perf_counter()
    if opts.synthetic:
        table, articles, source = synthetic(opts.synthetic, opts.seed), None, f"synthetic({opts.synthetic})"
    else:
        table, source = read_triples(opts.triples), str(opts.triples)
        try:
            articles = read_articles(opts.triples)
        except Exception:
            articles = None
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    print(f"dataset {source}: {table.num_rows:,} triples, "
          f"{len(set(table.column('window').to_pylist()))} windows, read in {time.perf_counter() - t0:.1f}s")
    queries = sample_queries(table, opts.queries, opts.seed)
    results: list[Result] = []
    with tempfile.TemporaryDirectory() as tmp:
        for backend in opts.backends.split(","):
            url = (f"sqlite:///{tmp}/bench.db" if backend == "sqlite"
                   else f"{opts.es_url.rstrip('/')}/egqa-bench-{int(time.time())}")
            results.append(run(backend, url, table, articles, queries, opts.batch, opts.keep))
            r = results[-1]
            # CPU rate = triples per second of this process's CPU time: for the in-process store it is the
            # rate on an idle core; for Elasticsearch it only counts the client side.
            print(f"{r.backend:14s} ingest {r.triples / r.ingest_s:>10,.0f} triples/s ({r.ingest_s:.1f}s wall, "
                  f"{r.triples / r.ingest_cpu_s:,.0f} triples/CPU-s in this process)  "
                  f"re-ingest {r.triples / r.reingest_s:>10,.0f} triples/s  "
                  f"lookup p50 {r.p50_ms:.3f} ms  p99 {r.p99_ms:.3f} ms  {r.single_qps:,.0f} q/s single  "
                  f"{r.batch_qps:,.0f} q/s batched  ({len(queries)} queries, {r.mean_hits:.1f} hits on average)",
                  flush=True)
    if len(results) > 1:
        same = sum(a == b for a, b in zip(results[0].answers, results[1].answers, strict=True))
        print(f"identical answers across backends: {same}/{len(queries)}")


if __name__ == "__main__":
    main()
