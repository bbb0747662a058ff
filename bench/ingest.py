"""A service that stays current, measured: live ingestion and graph swaps on a real build and real articles.

Needs a build (graphs/ and evidence.db, e.g. out/demo) and a JSON Lines corpus (default: the first articles of
../shared/data/reuters_ding2014). Each phase runs `egqa serve` in a child process over a copy of the store, with
a query load of real triples of the build sent open-loop at a fixed rate from this process. Prints, in one run:

1. throughput: the same articles through `egqa extract` (offline, same worker count) and through POST
   /v1/articles until all are indexed; the ratio (goal >= 90%); and the queries answered meanwhile (goal: 0
   errors, p99 < 50 ms);
2. latency: single articles POSTed one a second while queries run at --query-rate; POST-to-indexed p50 and p99
   (goals p50 < 2 s, p99 < 10 s);
3. recovery: the server killed with SIGKILL mid-ingestion of the articles, restarted; every accepted article
   indexed exactly once (triple ids compared with the offline extraction of phase 1);
4. swaps: the graph set swapped every 2 s by POST /v1/admin/reload between the build's graphs and a copy whose
   BInc scores are halved, under --swap-rate queries/s; failed requests (goal 0), and whether each swap's first
   answer carries the new set's score.

The machine may be shared: figures are ratios and percentiles of this one run.
Usage: python bench/ingest.py [--build out/demo] [--articles 2000] [--workers 1]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's code, also in the served child

import httpx  # noqa: E402
import numpy as np  # noqa: E402
import orjson  # noqa: E402

from graph_builder.corpus import ReadReport, read_jsonl_file  # noqa: E402
from graph_builder.live import prepare  # noqa: E402
from graph_builder.triples import read_triples  # noqa: E402
from service.demo import ServiceProcess, service_process  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DING = REPO.parent / "shared" / "data" / "reuters_ding2014" / "reuters_ding2014.jsonl.gz"


# -- inputs ------------------------------------------------------------------------------------------------

def corpus_articles(path: Path, count: int) -> list[dict[str, str]]:
    """The first `count` articles of a corpus, read (and cleaned) as `egqa extract` reads them."""
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    for a in read_jsonl_file(path, ReadReport()):
        # Only articles the service accepts: no repeated id, no text it cleans to one seen before.
        key = prepare(a.id, a.date, a.title, a.text).text_key
        if a.id in seen or key is None or key in seen:
            continue
        seen.update((a.id, key))
        out.append({"id": a.id, "date": a.date.isoformat(), "title": a.title, "text": a.text})
        if len(out) == count:
            break
    return out


def questions(build: Path, n: int = 400) -> list[dict[str, object]]:
    """Real triples of the build's store as structured questions, each answered from other predicates' evidence."""
    with sqlite3.connect(build / "evidence.db") as conn:
        rows = conn.execute("SELECT subj, obj, subj_type, obj_type, predicate, window_id FROM triples "
                            "ORDER BY triple_id").fetchall()
    rng = np.random.default_rng(7)
    picked = rng.choice(len(rows), size=min(n, len(rows)), replace=False)
    return [{"subject": s, "predicate": p, "object": o, "subject_type": st, "object_type": ot, "window": w,
             "scorer": "binc", "top_k": 3, "exclude_same_predicate": True}
            for s, o, st, ot, p, w in (rows[int(i)] for i in picked)]


def halved(graphs: Path, out: Path) -> Path:
    """A valid copy of a graph set with every BInc score halved (checksums redone)."""
    shutil.copytree(graphs, out)
    top = orjson.loads((out / "manifest.json").read_bytes())
    for name in top["graphs"]:
        data_file = out / name / "binc" / "data.npy"
        np.save(data_file, np.load(data_file) * 0.5, allow_pickle=False)
        manifest = orjson.loads((out / name / "manifest.json").read_bytes())
        manifest["files"]["binc/data.npy"] = hashlib.sha256(data_file.read_bytes()).hexdigest()
        (out / name / "manifest.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
        top["graphs"][name]["manifest_sha256"] = hashlib.sha256((out / name / "manifest.json").read_bytes()).hexdigest()
    (out / "manifest.json").write_bytes(orjson.dumps(top, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    return out


# -- the service and the load ------------------------------------------------------------------------------

@contextmanager
def serve(graphs: Path, store: Path, log: Path, workers: int) -> Iterator[ServiceProcess]:
    """Run `egqa serve` over `store` in a child process until /ready; stop it afterwards (if still running)."""
    env = {"EGQA_LM": "false", "EGQA_INGEST_WORKERS": str(workers), "EGQA_MAX_BODY_BYTES": "50000000"}
    with service_process(graphs, f"sqlite:///{store}", log, env=env, stop_timeout=60) as served:
        yield served


@dataclass
class Load:
    """Queries sent open-loop at `rate` per second by a few threads until stopped: latencies and failures."""

    url: str
    bodies: list[dict[str, object]]
    rate: float
    threads: int = 8
    latencies: list[float] = field(default_factory=list)
    sent_at: list[float] = field(default_factory=list)  # perf_counter when each answered query was sent
    failures: list[str] = field(default_factory=list)
    late: int = 0  # requests sent more than 50 ms after they were due (the load generator fell behind)
    scores: list[tuple[float, float]] = field(default_factory=list)  # (time answered, score) of body 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _running: list[threading.Thread] = field(default_factory=list)

    def __enter__(self) -> Load:
        if self.rate <= 0:
            return self  # no load
        counter = itertools.count()
        start = time.perf_counter()

        def work() -> None:
            with httpx.Client(base_url=self.url, timeout=30) as client:
                while not self._stop.is_set():
                    i = next(counter)
                    due = start + i / self.rate
                    wait = due - time.perf_counter()
                    if wait > 0:
                        time.sleep(wait)
                    elif wait < -0.05:
                        self.late += 1
                    body = self.bodies[i % len(self.bodies)]
                    sent = time.perf_counter()
                    try:
                        response = client.post("/v1/query", json=body)
                    except httpx.HTTPError as exc:
                        self.failures.append(f"{type(exc).__name__}: {exc}")
                        continue
                    done = time.perf_counter()
                    if response.status_code != 200:
                        self.failures.append(f"{response.status_code}: {response.text[:200]}")
                        continue
                    self.latencies.append((done - sent) * 1000)
                    self.sent_at.append(sent)
                    if i % len(self.bodies) == 0:
                        self.scores.append((done, float(response.json()["score"])))

        self._running = [threading.Thread(target=work, daemon=True) for _ in range(self.threads)]
        for thread in self._running:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._running:
            thread.join(60)

    def p99_between(self, start: float, end: float) -> str:
        """p99 and count of the queries sent between two perf_counter times."""
        lat = np.array([ms for ms, t in zip(self.latencies, self.sent_at) if start <= t < end] or [0.0])
        return f"p99 {np.percentile(lat, 99):.1f} ms over {lat.size:,}"

    def summary(self, seconds: float) -> str:
        lat = np.array(self.latencies or [0.0])
        first = f" (first: {self.failures[0]})" if self.failures else ""
        return (f"{len(self.latencies):,} queries in {seconds:.0f} s ({len(self.latencies) / seconds:.0f}/s, "
                f"asked {self.rate:.0f}/s), errors {len(self.failures)}{first}, p50 {np.percentile(lat, 50):.1f} ms, "
                f"p99 {np.percentile(lat, 99):.1f} ms, max {lat.max():.0f} ms, sent late {self.late}")


def post_all(client: httpx.Client, records: list[dict[str, str]], batch: int = 100) -> int:
    """POST records in batches, waiting out 429s; return how many were accepted."""
    accepted = 0
    for start in range(0, len(records), batch):
        body = {"articles": records[start:start + batch]}
        while True:
            response = client.post("/v1/articles", json=body)
            if response.status_code == 429:
                time.sleep(float(response.headers.get("Retry-After", "1")))
                continue
            response.raise_for_status()
            accepted += sum(r["status"] == "accepted" for r in response.json()["articles"])
            break
    return accepted


def wait_indexed(client: httpx.Client, ids: list[str], timeout: float = 3600) -> dict[str, dict[str, object]]:
    """Poll GET /v1/articles/{id} in order until every article is indexed or rejected; return their states."""
    states: dict[str, dict[str, object]] = {}
    deadline = time.monotonic() + timeout
    for article_id in ids:
        while True:
            response = client.get(f"/v1/articles/{article_id}")
            if response.status_code == 404:
                raise RuntimeError(f"{article_id}: the service never received it")
            state = response.json()
            if state.get("status") in {"indexed", "rejected"}:
                states[article_id] = state
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{article_id} still {state} after {timeout} s")
            time.sleep(0.05)
    return states


def fresh_store(build: Path, work: Path, name: str) -> Path:
    """A copy of the build's store (the queue file starts empty beside it)."""
    path = work / f"{name}.db"
    for old in work.glob(f"{name}.*"):
        old.unlink()
    shutil.copyfile(build / "evidence.db", path)
    return path


# -- the phases --------------------------------------------------------------------------------------------

def main() -> None:
    """Run the four phases and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, default=Path("out/demo"))
    parser.add_argument("--corpus", type=Path, default=DING)
    parser.add_argument("--articles", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--query-rate", type=float, default=100.0)
    parser.add_argument("--latency-articles", type=int, default=60)
    parser.add_argument("--swap-rate", type=float, default=200.0)
    parser.add_argument("--swaps", type=int, default=10)
    parser.add_argument("--work", type=Path, default=Path("/tmp/egqa-bench-ingest"))
    parser.add_argument("--skip", default="", help="phases to skip, comma-separated: throughput,latency,recovery,swap")
    args = parser.parse_args()
    args.build = args.build.resolve()
    skip = set(args.skip.split(","))
    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    log = work / "server.log"
    graphs = args.build / "graphs"
    records = corpus_articles(args.corpus, args.articles + args.latency_articles)
    bulk, singles = records[:args.articles], records[args.articles:]
    bodies = questions(args.build)
    print(f"build {args.build}; {len(bulk):,} articles of {args.corpus.name} ({sum(len(r['text']) for r in bulk) / len(bulk):,.0f} "
          f"characters each on average); {args.workers} extraction worker(s); {os.cpu_count()} cores (shared)")

    corpus = work / "corpus.jsonl"
    corpus.write_bytes(b"\n".join(orjson.dumps(r) for r in bulk) + b"\n")

    def extract_offline(out: Path) -> float:
        """`egqa extract` in its own process (a fresh sentence cache); articles/s from its report's time."""
        subprocess.run([sys.executable, "-m", "service", "extract", str(corpus), "--out", str(out), "--workers",
                        str(args.workers)], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, check=True,
                       capture_output=True)
        return len(bulk) / float(orjson.loads((out / "report.json").read_bytes())["seconds"])

    def ingest_live(name: str, query_rate: float) -> tuple[float, Load, float, float]:
        """All articles through `egqa ingest` (another process, as a real feed is) until indexed, with queries
        sent meanwhile at `query_rate` (0: none); return articles/s, the load, and when the feed started and ended."""
        store = fresh_store(args.build, work, name)
        with serve(graphs, store, log, args.workers) as server, httpx.Client(base_url=server.url, timeout=120) as client:
            post_all(client, singles[:1])  # start the worker (and its pipeline) before the clock starts
            wait_indexed(client, [singles[0]["id"]])
            with Load(server.url, bodies, query_rate) as load:
                t = time.perf_counter()
                feed = subprocess.run([sys.executable, "-m", "service", "ingest", str(corpus), "--url", server.url,
                                       "--batch-size", "100"], cwd=REPO, capture_output=True, text=True,
                                      env={**os.environ, "PYTHONPATH": str(REPO)}, check=True)
                posted = time.perf_counter()
                states = wait_indexed(client, [r["id"] for r in bulk])
                seconds = time.perf_counter() - t
        statuses = Counter(str(s["status"]) for s in states.values())
        rate = len(bulk) / seconds
        print(f"   live, {'no queries' if not query_rate else f'{query_rate:.0f} queries/s'}: egqa ingest "
              f"({feed.stdout.splitlines()[0]}), all {dict(statuses)} with "
              f"{sum(int(s['triples'] or 0) for s in states.values()):,} triples after {seconds:.1f} s = {rate:.1f} "
              f"articles/s")
        return rate, load, t, posted

    offline_rate = extract_offline(work / "offline")
    offline = read_triples(work / "offline", columns=["triple_id", "article_id"])
    print(f"\n1. throughput ({len(bulk):,} articles, {offline.num_rows:,} triples)\n"
          f"   egqa extract, {args.workers} worker(s): {offline_rate:.1f} articles/s")
    if "throughput" not in skip:
        quiet, _, _, _ = ingest_live("throughput", 0.0)
        busy, load, t, posted = ingest_live("throughput-busy", args.query_rate)
        again = extract_offline(work / "offline-again")  # the machine is shared: offline measured before and after
        mean = (offline_rate + again) / 2
        print(f"   egqa extract again: {again:.1f} articles/s\n   live / offline (their mean): {quiet / mean:.0%} "
              f"without queries, {busy / mean:.0%} while answering {args.query_rate:.0f} queries/s  (goal >= 90%)")
        end = t + len(bulk) / busy
        print(f"   queries while ingesting: {load.summary(end - t)}  (goal: 0 errors, p99 < 50 ms)\n"
              f"   of which while egqa ingest ran ({posted - t:.1f} s): {load.p99_between(t, posted)}; "
              f"afterwards, extraction only: {load.p99_between(posted, end)}")

    if "latency" not in skip:
        store = fresh_store(args.build, work, "latency")
        with serve(graphs, store, log, args.workers) as server, httpx.Client(base_url=server.url, timeout=60) as client:
            post_all(client, bulk[:1])
            wait_indexed(client, [bulk[0]["id"]])
            latencies: list[float] = []

            def one(record: dict[str, str]) -> None:
                with httpx.Client(base_url=server.url, timeout=60) as own:
                    start = time.perf_counter()
                    assert own.post("/v1/articles", json={"articles": [record]}).json()["articles"][0]["status"] \
                        == "accepted"
                    while own.get(f"/v1/articles/{record['id']}").json()["status"] == "queued":
                        time.sleep(0.02)
                    latencies.append(time.perf_counter() - start)

            with Load(server.url, bodies, args.query_rate) as load:
                t = time.perf_counter()
                pending = []
                for record in singles:
                    thread = threading.Thread(target=one, args=(record,))
                    thread.start()
                    pending.append(thread)
                    time.sleep(1.0)
                for thread in pending:
                    thread.join()
                seconds = time.perf_counter() - t
            lat = np.array(latencies)
            print(f"\n2. latency, single articles one a second, {len(lat)} articles\n   POST to indexed: "
                  f"p50 {np.percentile(lat, 50):.2f} s, p99 {np.percentile(lat, 99):.2f} s, max {lat.max():.2f} s "
                  f"(goals p50 < 2 s, p99 < 10 s)\n   queries meanwhile: {load.summary(seconds)}")

    if "recovery" not in skip:
        store = fresh_store(args.build, work, "recovery")
        with serve(graphs, store, log, args.workers) as server, httpx.Client(base_url=server.url, timeout=120) as client:
            accepted = post_all(client, bulk)
            # Kill once about a third is indexed: some articles done, some claimed by a worker, most waiting.
            wait_indexed(client, [r["id"] for r in bulk[:len(bulk) // 3]])
            os.kill(server.process.pid, signal.SIGKILL)
            server.process.wait(60)
        with sqlite3.connect(work / "recovery.ingest.db") as conn:
            at_kill = dict(conn.execute("SELECT status, count(*) FROM articles GROUP BY status").fetchall())
        with serve(graphs, store, log, args.workers) as server, httpx.Client(base_url=server.url, timeout=120) as client:
            t = time.perf_counter()
            states = wait_indexed(client, [r["id"] for r in bulk])
            resumed = time.perf_counter() - t
        ids = {r["id"] for r in bulk}
        with sqlite3.connect(store) as conn:
            rows = [(tid, aid) for tid, aid in conn.execute("SELECT triple_id, article_id FROM triples") if aid in ids]
        live_ids = sorted(tid for tid, _ in rows)
        offline_ids = sorted(offline["triple_id"].to_pylist())
        per_article = Counter(offline["article_id"].to_pylist())
        exact = sum(states[a]["status"] == "indexed" and states[a]["triples"] == per_article[a] for a in ids)
        print(f"\n3. recovery: {accepted:,} accepted, then SIGKILL with the queue at {at_kill}; restarted, the rest "
              f"indexed in {resumed:.1f} s\n   articles indexed with the offline triple count: {exact:,} / {len(ids):,}; "
              f"triples in the store {len(live_ids):,} (distinct {len(set(live_ids)):,}) vs offline "
              f"{len(offline_ids):,}; ids identical: {live_ids == offline_ids}")

    if "swap" not in skip:
        store = fresh_store(args.build, work, "swap")
        sets = work / "sets"
        sets.mkdir()
        shutil.copytree(graphs, sets / "a")
        halved(graphs, sets / "b")
        with serve(sets / "a", store, log, args.workers) as server, httpx.Client(base_url=server.url, timeout=60) as client:
            probe = next(b for b in bodies if 0.0 < float(client.post("/v1/query", json=b).json().get("score", 0)) < 1.0)
            full = float(client.post("/v1/query", json=probe).json()["score"])
            switched = 0
            with Load(server.url, [probe, *bodies], args.swap_rate) as load:
                t = time.perf_counter()
                for n in range(args.swaps):
                    time.sleep(2.0)
                    name = "ab"[(n + 1) % 2]
                    response = client.post("/v1/admin/reload", json={"graphs_dir": name})
                    response.raise_for_status()
                    expected = full * (0.5 if name == "b" else 1.0)
                    got = float(client.post("/v1/query", json=probe).json()["score"])
                    switched += abs(got - expected) < 1e-6 * max(1.0, full)
                time.sleep(2.0)
                seconds = time.perf_counter() - t
            print(f"\n4. swaps: {args.swaps} reloads a <-> b (BInc halved) every 2 s\n   queries: {load.summary(seconds)}  "
                  f"(goal: 0 failed)\n   first answer after each swap carried the new set's score: {switched} / {args.swaps}")


if __name__ == "__main__":
    main()
