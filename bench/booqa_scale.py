"""BoOQA at scale (issue 14): generate a synthetic corpus of the published evaluation's size, then run and time
every stage the way a user runs it. The published evaluation of one graph took 40-50 CPU hours and ~120 GB;
the target is the same work over HTTP in 60 s and under 2 GB on 2 cores. Prints figures; not a test.

    python bench/booqa_scale.py                          # full: 5M triples (3M TRAIN), 60k propositions
    python bench/booqa_scale.py --scale small            # 200k triples, 2k propositions: a quick check (~2 min)
    python bench/booqa_scale.py --keep --top-k 100       # reuse the generated corpus; build pruned graphs
    python bench/booqa_scale.py --triples 1000000 --train-triples 600000 --propositions 20000 --work /tmp/bq
    python bench/booqa_scale.py --scale small --es http://127.0.0.1:9200   # also through Elasticsearch
    python bench/booqa_scale.py --before 8da79e7          # also the same stages with older code: speed-ups

Stages, each in a child process (`python -m service ...`, the `egqa` CLI, with this checkout's code):
  generate   the corpus (bench/synthetic.py, deterministic: `--keep` reuses it when its params.json matches)
  index      `egqa index --split TEST` into SQLite (the evidence store holds the evaluation period only)
  graph      `egqa graph build --split TRAIN` (the graphs see the induction period only; --top-k/--min-score)
  serve      `egqa serve` until /ready (EGQA_LM=false, EGQA_STORE_TIMEOUT=30 as scripts/full_run.sh)
  evaluate   `egqa evaluate` over HTTP with binc, then with every scorer of --scorers in one run; the
             service's RSS and CPU are sampled from /proc meanwhile
  in-process ScoringEngine.judge on the same propositions in batches of the same size (the baseline of
             "HTTP rate / in-process rate"), scores checked equal to the HTTP ones
Wall time, CPU time and peak RSS come from each child's own rusage (os.wait4). Figures go to stdout, a
Markdown table to <work>/results.md and everything to <work>/results.json; stage logs to <work>/logs/.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
REPO = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(REPO))

import orjson  # noqa: E402

from bench.synthetic import (  # noqa: E402
    BENCHMARK_FILE, EVAL_SPLIT, GRAPH_SPLIT, TRIPLES_DIR, CorpusSpec, cached, generate_booqa)

SCALES: dict[str, CorpusSpec] = {
    "small": CorpusSpec(triples=200_000, train_triples=120_000, propositions=2_000, windows=300, predicates=8_000),
    "medium": CorpusSpec(triples=1_000_000, train_triples=600_000, propositions=20_000, windows=1343,
                         predicates=24_000),
    "full": CorpusSpec(),
}
FIVE_SCORERS = "exact,cos,lin,weeds,binc"
SERVICE_ENV = {"EGQA_LM": "false", "EGQA_STORE_TIMEOUT": "30"}
ES_PREFIX = "egqa-booqa-scale"
PUBLISHED = "published BoOQA evaluation of one graph: 40-50 CPU hours, ~120 GB RAM"
TARGET_SECONDS, TARGET_MB = 60.0, 2048.0


class StageFailed(RuntimeError):
    """A child process exited with an error."""


@dataclass
class Stage:
    """Figures of one stage: wall and CPU seconds, peak RSS, a rate, and a ratio against a baseline."""

    name: str
    seconds: float | None
    cpu: float | None
    peak_mb: float | None
    rate: float | None = None
    unit: str = ""
    ratio: str = ""
    note: str = ""


@dataclass(frozen=True)
class Usage:
    """What a finished child used."""

    seconds: float
    cpu: float
    peak_mb: float


def run_child(argv: list[str], log: Path) -> Usage:
    """Run a child to completion with output to `log`; return its wall time, CPU time and peak RSS."""
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with log.open("wb") as sink:
        proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, not the running max of all children
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise StageFailed(f"{' '.join(argv[:4])} ... exited with {proc.returncode}; see {log}:\n{tail}")
    return Usage(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def cli(*args: str) -> list[str]:
    """The argv of an egqa command run with this interpreter and this checkout."""
    return [sys.executable, "-m", "service", *args]


class ProcessSampler:
    """Sample a process's RSS and CPU time from /proc on a thread; report per measured span."""

    def __init__(self, pid: int, interval: float = 0.2) -> None:
        self.pid = pid
        self.interval = interval
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from service.demo import rss_mb

        while not self._stop.wait(self.interval):
            try:
                self.peak = max(self.peak, rss_mb(self.pid))
            except (OSError, RuntimeError):
                return  # the process is gone

    def cpu_seconds(self) -> float:
        """User plus system CPU seconds the process has used so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def high_water_mb(self) -> float:
        """The kernel's record of the process's peak RSS (VmHWM), in MB."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    @contextmanager
    def span(self) -> Iterator[dict[str, float]]:
        """Measure the process's peak sampled RSS and CPU seconds over the `with` block."""
        from service.demo import rss_mb

        self.peak = rss_mb(self.pid)
        cpu = self.cpu_seconds()
        out: dict[str, float] = {}
        yield out
        out["peak_mb"] = max(self.peak, rss_mb(self.pid))
        out["cpu"] = self.cpu_seconds() - cpu

    def stop(self) -> None:
        """Stop sampling."""
        self._stop.set()
        self._thread.join()


def read_report(out: Path) -> dict[str, dict[str, Any]]:
    """Return the evaluator's report.json, refusing one with failed propositions."""
    report: dict[str, dict[str, Any]] = orjson.loads((out / "report.json").read_bytes())
    failed = {s: m.get("failed", 0) for s, m in report.items() if m.get("failed", 0)}
    if failed:
        raise StageFailed(f"{out}: propositions failed over HTTP: {failed} (see scores.partial.jsonl)")
    return report


class Bench:
    """Runs the stages in order and keeps their figures."""

    def __init__(self, args: argparse.Namespace, spec: CorpusSpec, work: Path | None = None,
                 data: Path | None = None) -> None:
        self.args = args
        self.spec = spec
        self.work: Path = (work or args.work).resolve()
        self.data = data or self.work / "data"
        self.logs = self.work / "logs"
        self.memory: dict[str, dict[str, float]] = {}
        self.before: list[Stage] = []  # the same stages run by the code of --before
        self.stages: list[Stage] = []
        self.quality: dict[str, dict[str, Any]] = {}
        self.stats: dict[str, Any] = {}
        self.scorers = [s.strip() for s in args.scorers.split(",") if s.strip()]

    def add(self, stage: Stage) -> Stage:
        """Record a stage and print its line."""
        self.stages.append(stage)
        print(format_line(stage), flush=True)
        return stage

    # -- stages ------------------------------------------------------------------------------------
    def generate(self) -> None:
        """Generate the corpus in a child (or reuse it with --keep when its params match)."""
        stats = cached(self.spec, self.data) if self.args.keep else None
        if stats is not None:
            self.stats = stats
            self.add(Stage("generate corpus", None, None, None, note=f"reused {self.data} (params match)"))
            return
        use = run_child([sys.executable, __file__, "_generate", orjson.dumps(asdict(self.spec)).decode(),
                         str(self.data)], self.logs / "generate.log")
        self.stats = orjson.loads((self.data / "stats.json").read_bytes())
        total = self.stats["triples"]["total"]
        self.add(Stage("generate corpus", use.seconds, use.cpu, use.peak_mb, total / use.seconds, "triples/s"))

    def index(self, store: str, label: str) -> None:
        """`egqa index --split TEST` into a fresh store."""
        use = run_child(cli("index", str(self.data / TRIPLES_DIR), "--store", store, "--split", EVAL_SPLIT),
                        self.logs / f"index-{label}.log")
        n = self.stats["triples"][EVAL_SPLIT]
        self.add(Stage(f"index {n:,} TEST triples ({label})", use.seconds, use.cpu, use.peak_mb, n / use.seconds,
                       "triples/s", note="" if store.startswith("sqlite") else "client only: the server is not measured"))

    def graph(self) -> None:
        """`egqa graph build --split TRAIN` with the chosen measures and pruning."""
        argv = cli("graph", "build", str(self.data / TRIPLES_DIR), "--out", str(self.work / "graphs"),
                   "--split", GRAPH_SPLIT, "--measures", self.args.measures, "--overwrite")
        if self.args.top_k is not None:
            argv += ["--top-k", str(self.args.top_k)]
        if self.args.min_score:
            argv += ["--min-score", str(self.args.min_score)]
        use = run_child(argv, self.logs / "graph-build.log")
        n = self.stats["triples"][GRAPH_SPLIT]
        last = [line for line in (self.logs / "graph-build.log").read_text().splitlines() if line.startswith("triples ")]
        pruning = f"top-k {self.args.top_k}" if self.args.top_k is not None else "the build's default pruning"
        pruning += f", min-score {self.args.min_score}" if self.args.min_score else ""
        self.add(Stage(f"graph build {n:,} TRAIN triples ({pruning})", use.seconds, use.cpu, use.peak_mb,
                       n / use.seconds, "triples/s", note=last[-1] if last else ""))

    def evaluate(self, url: str, sampler: ProcessSampler, scorers: list[str], label: str) -> tuple[Stage, Path]:
        """`egqa evaluate` over HTTP from scratch; also record the service's RSS and CPU meanwhile."""
        out = self.work / f"eval-{label}"
        shutil.rmtree(out, ignore_errors=True)  # else the evaluator resumes and times nothing
        argv = cli("evaluate", str(self.data / BENCHMARK_FILE), "--url", url, "--scorer", ",".join(scorers),
                   "--out", str(out), "--batch-size", str(self.args.batch_size),
                   "--concurrency", str(self.args.concurrency), "--resamples", str(self.args.resamples))
        with sampler.span() as server:
            use = run_child(argv, self.logs / f"evaluate-{label}.log")
        from service.demo import rss_breakdown

        try:
            self.memory[label] = rss_breakdown(sampler.pid, {"graph artefacts": self.work / "graphs",
                                                             "SQLite store file": self.work / "evidence.db"})
        except OSError:
            pass
        report = read_report(out)
        self.quality[label] = report
        n = self.stats["propositions"] * len(scorers)
        stage = self.add(Stage(f"evaluate over HTTP: {label}", use.seconds, use.cpu, use.peak_mb, n / use.seconds,
                               "props/s", note=f"{self.stats['propositions']:,} propositions x {len(scorers)} "
                               f"scorer(s), client process"))
        self.add(Stage(f"  service during evaluate {label}", None, server["cpu"], server["peak_mb"],
                       note="sampled every 0.2 s"))
        return stage, out

    def serve_and_evaluate(self, store: str, label: str) -> list[tuple[Stage, Path, list[str]]]:
        """Start the service on `store`, evaluate binc (then every --scorers scorer), stop it."""
        from service.demo import rss_mb, service_process

        runs: list[tuple[Stage, Path, list[str]]] = []
        start = time.perf_counter()
        with service_process(self.work / "graphs", store, self.logs / f"serve-{label}.log", timeout=1800,
                             env=SERVICE_ENV) as service:
            sampler = ProcessSampler(service.pid)
            try:
                self.add(Stage(f"serve until ready ({label})", time.perf_counter() - start, sampler.cpu_seconds(),
                               rss_mb(service.pid), note="RSS at ready"))
                stage, out = self.evaluate(service.url, sampler, ["binc"], f"{label}-binc")
                runs.append((stage, out, ["binc"]))
                if self.scorers != ["binc"] and not label.startswith("es"):
                    stage, out = self.evaluate(service.url, sampler, self.scorers, f"{label}-{len(self.scorers)}-scorers")
                    runs.append((stage, out, self.scorers))
                self.add(Stage(f"  service lifetime peak ({label})", None, sampler.cpu_seconds(),
                               sampler.high_water_mb(), note="VmHWM, start-up included"))
            finally:
                sampler.stop()
        return runs

    def in_process(self, store: str, runs: list[tuple[Stage, Path, list[str]]], label: str) -> None:
        """Judge the same propositions in-process (same engine settings, same batches); set the HTTP ratios."""
        result_path = self.work / f"inprocess-{label}.json"
        config = {"graphs": str(self.work / "graphs"), "store": store, "dataset": str(self.data / BENCHMARK_FILE),
                  "batch_size": self.args.batch_size, "limit": self.args.baseline_limit,
                  "runs": [{"scorers": scorers, "http": str(out)} for _, out, scorers in runs],
                  "out": str(result_path)}
        use = run_child([sys.executable, __file__, "_inprocess", orjson.dumps(config).decode()],
                        self.logs / f"inprocess-{label}.log")
        result = orjson.loads(result_path.read_bytes())
        for (http, _, scorers), run in zip(runs, result["runs"], strict=True):
            rate = run["propositions"] * len(scorers) / run["seconds"]
            name = "binc" if scorers == ["binc"] else f"{len(scorers)} scorers"
            self.add(Stage(f"in-process judge: {label} {name}", run["seconds"], run["cpu"], use.peak_mb, rate,
                           "props/s", note=f"{run['propositions']:,} propositions; scores equal to HTTP: "
                           f"{run['agree']:,}/{run['compared']:,}; peak RSS of the whole child "
                           f"(load {result['load_seconds']:.1f} s)"))
            if http.rate:
                http.ratio = f"{http.rate / rate:.2f}x in-process"
        print(f"  (ratios set: {', '.join(f'{s.name}: {s.ratio}' for s, _, _ in runs)})", flush=True)

    # -- the whole run -----------------------------------------------------------------------------
    def run(self) -> None:
        """Run every stage, then print and write the results."""
        self.work.mkdir(parents=True, exist_ok=True)
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start; work {self.work}")
        print(f"corpus: {self.spec}")
        self.generate()
        s = self.stats
        print(f"  {s['triples']['total']:,} triples ({s['triples'][GRAPH_SPLIT]:,} TRAIN / "
              f"{s['triples'][EVAL_SPLIT]:,} TEST from {s['eval_from']}), {s['windows']['total']:,} windows, "
              f"{s['predicates']:,} predicates, {s['entities']:,} entities; {s['propositions']:,} propositions in "
              f"{s['bundles']:,} bundles; evidence per proposition (actual) median {s['evidence_actual']['median']:.0f} "
              f"mean {s['evidence_actual']['mean']:.1f} max {s['evidence_actual']['max']:.0f}", flush=True)
        self.run_stages()
        if self.args.es:
            es = f"{self.args.es.rstrip('/')}/{ES_PREFIX}"
            drop_es(es)
            self.index(es, "elasticsearch")
            es_runs = self.serve_and_evaluate(es, "es")
            self.in_process(es, es_runs, "es")
        print(f"load average {os.getloadavg()[0]:.1f} at the end (other jobs share the cores)")

    def run_stages(self, in_process: bool = True) -> None:
        """Index into SQLite, build the graphs, serve and evaluate over HTTP (and the in-process baseline)."""
        self.logs.mkdir(parents=True, exist_ok=True)
        db = self.work / "evidence.db"
        for path in (db, db.with_name("evidence.db-wal"), db.with_name("evidence.db-shm")):
            path.unlink(missing_ok=True)  # a re-index of a full store adds nothing: time a fresh one
        sqlite = f"sqlite:///{db}"
        self.index(sqlite, "sqlite")
        self.graph()
        runs = self.serve_and_evaluate(sqlite, "sqlite")
        if in_process:
            self.in_process(sqlite, runs, "sqlite")

    def finish(self) -> None:
        """Print the quality check, the comparison with the issue's figures and the Markdown table; clean up."""
        print("\nAUC_norm by scorer (a sanity check that the synthetic labels carry signal):")
        for label, report in self.quality.items():
            cells = "  ".join(f"{s} {100 * float(m['auc_norm']):.1f}" for s, m in report.items())
            print(f"  {label}: {cells}  (coverage {100 * float(next(iter(report.values()))['coverage']):.0f}%)")
        if self.memory:
            print("\nService resident memory at the end of each evaluation, by what it holds (/proc/PID/smaps):")
            for label, parts in self.memory.items():
                cells = ", ".join(f"{name} {mb:,.0f} MB" for name, mb in parts.items())
                print(f"  {label}: {sum(parts.values()):,.0f} MB = {cells}")
        binc = next((s for s in self.stages if s.name == "evaluate over HTTP: sqlite-binc"), None)
        service = next((s for s in self.stages if s.name == "  service during evaluate sqlite-binc"), None)
        full = asdict(self.spec) == asdict(replace(SCALES["full"], seed=self.spec.seed))
        if binc and service and binc.seconds and service.peak_mb and not full:
            print("\n(the comparison with the published figures and the 60 s / 2 GB target is printed at --scale full)")
        elif binc and service and binc.seconds and service.peak_mb:
            cpu_hours = ((binc.cpu or 0) + (service.cpu or 0)) / 3600
            print(f"\n{PUBLISHED}.")
            print(f"binc over HTTP here: {binc.seconds:.0f} s wall ({binc.seconds / TARGET_SECONDS:.1f}x the 60 s "
                  f"target), {cpu_hours:.3f} CPU hours (service + client; {45 / cpu_hours:,.0f}x fewer than 45), "
                  f"service peak RSS {service.peak_mb / 1024:.2f} GB ({service.peak_mb / TARGET_MB:.2f}x the 2 GB "
                  f"target; {120 * 1024 / service.peak_mb:,.0f}x less than 120 GB)")
        table = markdown_table(self.stages, self.spec, self.stats)
        if self.before:
            table += "\n\n" + comparison_table(self.before, self.stages, self.args.before)
        print("\n" + table)
        (self.work / "results.md").write_text(table + "\n")
        (self.work / "results.json").write_bytes(orjson.dumps(
            {"spec": asdict(self.spec), "stats": self.stats, "stages": [asdict(s) for s in self.stages],
             "quality": self.quality, "memory": self.memory, "before": [asdict(s) for s in self.before], "args": {k: str(v) for k, v in vars(self.args).items()}},
            option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
        if not self.args.keep:
            for path in (self.data, self.work / "graphs"):
                shutil.rmtree(path, ignore_errors=True)
            for path in self.work.glob("evidence.db*"):
                path.unlink()
            print(f"(generated corpus, graphs and store removed; --keep keeps them. Results: {self.work})")


def drop_es(url: str) -> None:
    """Delete the benchmark's Elasticsearch indices, so the index stage times a fresh ingest."""
    from retrieval.factory import open_store

    store = open_store(url)
    try:
        store.drop()  # type: ignore[attr-defined]
    finally:
        store.close()


def format_line(s: Stage) -> str:
    """One progress line of figures."""
    parts = [f"{s.name:<48}"]
    parts.append(f"{s.seconds:>9.1f} s" if s.seconds is not None else f"{'-':>11}")
    parts.append(f"cpu {s.cpu:>8.1f} s" if s.cpu is not None else f"{'':>14}")
    parts.append(f"peak {s.peak_mb:>8,.0f} MB" if s.peak_mb is not None else f"{'':>16}")
    if s.rate:
        parts.append(f"{s.rate:>10,.0f} {s.unit}")
    if s.ratio:
        parts.append(s.ratio)
    if s.note:
        parts.append(f"[{s.note}]")
    return "  ".join(parts)


def _fmt_seconds(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.1f} s" if x < 600 else f"{int(x) // 60}m{int(x) % 60:02d}s"


def markdown_table(stages: list[Stage], spec: CorpusSpec, stats: dict[str, Any]) -> str:
    """The figures as a Markdown table for the README."""
    lines = [f"BoOQA-scale synthetic run: {stats['triples']['total']:,} triples ({spec.train_triples:,} TRAIN for "
             f"the graphs), {spec.windows:,} windows, {spec.predicates:,} predicates, {stats['propositions']:,} "
             f"propositions (evidence per proposition median {stats['evidence_actual']['median']:.0f}, mean "
             f"{stats['evidence_actual']['mean']:.0f}, max {stats['evidence_actual']['max']:.0f}); "
             f"{os.cpu_count()} cores.", "",
             "| stage | time | CPU | peak RSS | rate | ratio |", "|---|---:|---:|---:|---:|---|"]
    for s in stages:
        rss = f"{s.peak_mb / 1024:.2f} GB" if s.peak_mb and s.peak_mb >= 1024 else (
            f"{s.peak_mb:.0f} MB" if s.peak_mb else "-")
        rate = f"{s.rate:,.0f} {s.unit}" if s.rate else "-"
        lines.append(f"| {s.name.strip()} | {_fmt_seconds(s.seconds)} | {_fmt_seconds(s.cpu)} | {rss} | {rate} | "
                     f"{s.ratio or '-'} |")
    return "\n".join(lines)


def comparison_table(before: list[Stage], after: list[Stage], ref: str) -> str:
    """Stage by stage: the code at `ref` against this checkout, on the same corpus, with speed-ups."""
    lines = [f"Before (`{ref}`) and after (this checkout), same corpus, same machine, one run:", "",
             "| stage | before | after | speed-up | peak RSS before | peak RSS after |",
             "|---|---:|---:|---:|---:|---:|"]
    def key(s: Stage) -> str:
        return s.name.split(" (")[0].strip()
    done = {key(s): s for s in after}
    for b in before:
        a = done.get(key(b))
        if a is None:
            continue
        speed = f"{b.seconds / a.seconds:.1f}x" if b.seconds and a.seconds else (
            f"{b.cpu / a.cpu:.1f}x CPU" if b.cpu and a.cpu else "-")
        def mb(x: float | None) -> str:
            return "-" if not x else (f"{x / 1024:.2f} GB" if x >= 1024 else f"{x:.0f} MB")
        lines.append(f"| {b.name.strip()} | {_fmt_seconds(b.seconds if b.seconds else b.cpu)} | "
                     f"{_fmt_seconds(a.seconds if a.seconds else a.cpu)} | {speed} | {mb(b.peak_mb)} | {mb(a.peak_mb)} |")
    return "\n".join(lines)


def run_before(bench: Bench, ref: str) -> list[Stage]:
    """Run index, graph build, serve and evaluate with the code of git `ref` on the same corpus."""
    src = bench.work / "before" / "src"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", ref], capture_output=True, check=False)
    if archive.returncode != 0:
        raise StageFailed(f"git archive {ref}: {archive.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
    print(f"\n== before: the same stages with the code of {ref} ({src})", flush=True)
    saved, cwd = os.environ["PYTHONPATH"], Path.cwd()
    # Children import the old packages: first on their path, and their working folder (`python -m` puts it
    # before everything else). This process keeps its own code.
    os.environ["PYTHONPATH"] = str(src)
    os.chdir(src)
    try:
        old = Bench(bench.args, bench.spec, work=bench.work / "before", data=bench.data)
        old.stats = bench.stats
        old.run_stages(in_process=False)
    finally:
        os.environ["PYTHONPATH"] = saved
        os.chdir(cwd)
    return old.stages


# -- children ---------------------------------------------------------------------------------------

def child_generate(spec_json: str, out: str) -> None:
    """Child: generate the corpus."""
    generate_booqa(CorpusSpec(**orjson.loads(spec_json)), Path(out))


def child_inprocess(config_json: str) -> None:
    """Child: judge the benchmark in-process with the service's engine settings; compare with the HTTP scores."""
    from benchmark.build import read_jsonl
    from service.app import open_engine
    from service.engine import HypothesisInput, Options
    from service.settings import Settings

    config = orjson.loads(config_json)
    entries = read_jsonl(Path(config["dataset"]))
    if config["limit"]:
        entries = entries[:config["limit"]]
    started = time.perf_counter()
    env = {k.removeprefix("EGQA_").lower(): v for k, v in SERVICE_ENV.items()}
    engine = open_engine(Settings(graphs_dir=Path(config["graphs"]), store_url=config["store"], **env))
    load_seconds = time.perf_counter() - started
    inputs = [HypothesisInput(subject=str(e["subj"]), predicate=str(e["predicate"]), object=str(e["obj"]),
                              subject_type=str(e["subj_type"]), object_type=str(e["obj_type"]),
                              window=int(e["window"]),  # type: ignore[call-overload]
                              exclude_sentence_ids=tuple(e.get("exclude_sentence_ids") or ()))  # type: ignore[arg-type]
              for e in entries]
    ids = [str(e["id"]) for e in entries]
    size = int(config["batch_size"])
    runs = []
    for run in config["runs"]:
        http = {}
        for line in (Path(run["http"]) / "scores.jsonl").read_bytes().splitlines():
            item = orjson.loads(line)
            http[item["id"]] = item
        t, cpu = time.perf_counter(), time.process_time()
        agree = 0
        for scorer in run["scorers"]:
            scores = []
            for i in range(0, len(inputs), size):
                scores += [a.score for a in engine.judge(inputs[i:i + size], Options(scorer, top_k=0))]
            # The service rounds scores to 6 decimals (service.schemas.answer_out).
            agree += sum(round(s, 6) == float(http[i][scorer]) for i, s in zip(ids, scores, strict=True))
        runs.append({"scorers": run["scorers"], "propositions": len(inputs), "seconds": time.perf_counter() - t,
                     "cpu": time.process_time() - cpu, "agree": agree, "compared": len(inputs) * len(run["scorers"])})
    engine.store.close()
    Path(config["out"]).write_bytes(orjson.dumps({"load_seconds": load_seconds, "runs": runs}))


# -- command line ------------------------------------------------------------------------------------

def parse_args(argv: list[str]) -> tuple[argparse.Namespace, CorpusSpec]:
    """Read the options and build the corpus spec from the preset and explicit sizes."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", choices=sorted(SCALES), default="full", help="size preset (default full)")
    for name, help_ in (("triples", "all triples"), ("train-triples", "TRAIN triples (graph induction)"),
                        ("propositions", "benchmark propositions"), ("windows", "3-day windows"),
                        ("predicates", "predicate strings"), ("entities", "arguments (0: triples // 25)"),
                        ("seed", "generator seed")):
        ap.add_argument(f"--{name}", type=int, default=None, help=f"{help_} (overrides the preset)")
    ap.add_argument("--work", type=Path, default=REPO / "out" / "booqa-scale", help="work folder")
    ap.add_argument("--keep", action="store_true", help="keep corpus, graphs and store; reuse a matching corpus")
    ap.add_argument("--es", default=None, help="also index and evaluate through Elasticsearch at this URL")
    ap.add_argument("--scorers", default=FIVE_SCORERS, help="scorers of the second evaluation (after binc alone)")
    ap.add_argument("--measures", default=None, help="graph measures to build (default: those --scorers need)")
    ap.add_argument("--top-k", type=int, default=None, help="graph build: neighbours kept per node (default all)")
    ap.add_argument("--min-score", type=float, default=0.0, help="graph build: drop edges scoring below this")
    ap.add_argument("--batch-size", type=int, default=200, help="propositions per HTTP request (and in-process batch)")
    ap.add_argument("--concurrency", type=int, default=4, help="HTTP requests in flight")
    ap.add_argument("--resamples", type=int, default=0, help="evaluator's bootstrap resamples (0: none, as the paper)")
    ap.add_argument("--before", default=None, metavar="GIT_REF",
                    help="also run index, graph build, serve and evaluate with the code of this git commit on the "
                         "same corpus, and print before/after speed-ups (e.g. 8da79e7, the code before issue 14)")
    ap.add_argument("--baseline-limit", type=int, default=0, help="in-process baseline on the first N propositions "
                                                                  "(0: all)")
    args = ap.parse_args(argv)
    sizes = {field: getattr(args, field) for field in ("triples", "train_triples", "propositions", "windows",
                                                       "predicates", "entities", "seed")
             if getattr(args, field) is not None}
    spec = replace(SCALES[args.scale], **sizes)
    if args.measures is None:
        graph_scorers = [s for s in args.scorers.split(",") if s.strip() and s.strip() != "exact"]
        needed = sorted({"binc", *graph_scorers} | ({"binc_clean"} if "global" in graph_scorers else set()))
        args.measures = ",".join(needed)
    return args, spec


def main() -> None:
    """Run the benchmark (or one of its child stages)."""
    if len(sys.argv) > 1 and sys.argv[1] == "_generate":
        child_generate(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "_inprocess":
        child_inprocess(sys.argv[2])
        return
    args, spec = parse_args(sys.argv[1:])
    # Children (the CLI, the service) run this checkout's code, whatever `egqa` on PATH points at.
    os.environ["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    args.work = args.work.resolve()
    os.chdir(REPO)  # `python -m` children look in their working folder first
    try:
        bench = Bench(args, spec)
        bench.run()
        if args.before:
            bench.before = run_before(bench, args.before)
        bench.finish()
    except StageFailed as exc:
        sys.exit(f"stage failed: {exc}")


if __name__ == "__main__":
    main()
