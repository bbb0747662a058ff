"""BoOQA at scale: generate a synthetic corpus of the published evaluation's size, then run and time
every stage the way a user runs it. The published evaluation of one graph took 40-50 CPU hours and ~120 GB;
the target is the same work over HTTP in 60 s and under 2 GB on 2 cores. Prints figures; not a test.

    python bench/booqa_scale.py                          # full: 5M triples (3M TRAIN), 60k propositions
    python bench/booqa_scale.py --scale small            # 200k triples, 2k propositions: a quick check (~2 min)
    python bench/booqa_scale.py --keep --top-k 100       # reuse the generated corpus; build pruned graphs
    python bench/booqa_scale.py --resume                 # after a crash: skip the stages already measured
    python bench/booqa_scale.py --triples 1000000 --train-triples 600000 --propositions 20000 --work /tmp/bq
    python bench/booqa_scale.py --scale small --es http://127.0.0.1:9200   # also through Elasticsearch
    python bench/booqa_scale.py --before 8da79e7          # also the same stages with older code: speed-ups

Stages, each in a child process (`python -m service ...`, the `egqa` CLI, with this checkout's code):
  generate   the corpus (bench/synthetic.py, deterministic: `--keep` reuses it when its params.json matches)
  index      `egqa index --split TEST` into SQLite (the evidence store holds the evaluation period only)
  graph      `egqa graph build --split TRAIN` (the graphs see the induction period only; --top-k/--min-score);
             measures: those --scorers read (binc,cos,lin,weeds; the CLI's default adds binc_clean and global,
             which --measures or a --scorers naming them brings in)
  serve      `egqa serve` until /ready (EGQA_LM=false, EGQA_STORE_TIMEOUT=30 as scripts/full_run.sh)
  evaluate   `egqa evaluate` over HTTP with binc, then with every scorer of --scorers in one run; the
             service's RSS and CPU are sampled meanwhile; --resamples 0 by default (no bootstrap
             intervals, as the paper; the CLI's default is 1000)
  in-process ScoringEngine.judge on the same propositions in batches of the same size (the baseline of
             "HTTP rate / in-process rate"); every HTTP score is checked to be the in-process score as the API
             writes it (service.schemas.significant: 6 significant digits), and a mismatch fails the run
Wall time, CPU time and peak RSS come from each child's own rusage (os.wait4). Figures go to stdout, a
Markdown table to <work>/results.md and everything to <work>/results.json (both rewritten after every stage);
stage logs to <work>/logs/.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
REPO = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(REPO))

import orjson  # noqa: E402
import psutil  # noqa: E402

from bench.synthetic import (  # noqa: E402
    BENCHMARK_FILE, EVAL_SPLIT, GRAPH_SPLIT, TRIPLES_DIR, CorpusSpec, cached, generate_booqa)
from graph_builder.graphs.scorers import graph_names  # noqa: E402

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
    """Figures of one stage: wall and CPU seconds, peak RSS, a rate, and the stage whose rate is its baseline."""

    key: str
    name: str
    seconds: float | None
    cpu: float | None
    peak_mb: float | None
    rate: float | None = None
    unit: str = ""
    note: str = ""
    baseline: str = ""  # key of the in-process stage this HTTP stage's rate is compared with
    server_cpu: float | None = None  # the service's CPU seconds during this HTTP stage


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
        shown = " ".join(arg if len(arg) < 80 else arg[:60] + "..." for arg in argv[:4])
        raise StageFailed(f"{shown} ... exited with {proc.returncode}; see {log}:\n{tail}")
    return Usage(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def cli(*args: str) -> list[str]:
    """The argv of an egqa command run with this interpreter and this checkout."""
    return [sys.executable, "-m", "service", *args]


class ProcessSampler:
    """Sample a process's RSS and CPU time on a thread; report per measured span."""

    def __init__(self, pid: int, interval: float = 0.2) -> None:
        self.pid = pid
        self.interval = interval
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from bench._support import rss_mb

        while not self._stop.wait(self.interval):
            try:
                self.peak = max(self.peak, rss_mb(self.pid))
            except psutil.Error:
                return  # the process is gone

    def cpu_seconds(self) -> float:
        """User plus system CPU seconds the process has used so far."""
        from bench._support import cpu_seconds

        return cpu_seconds(self.pid)

    def high_water_mb(self) -> float:
        """The kernel's record of the process's peak RSS (VmHWM), in MB."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    @contextmanager
    def span(self) -> Iterator[dict[str, float]]:
        """Measure the process's peak sampled RSS and CPU seconds over the `with` block."""
        from bench._support import rss_mb

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


# Options that change a stage's figures: a resumed run reuses earlier stages only when these match.
RESUME_KEYS = ("scorers", "measures", "top_k", "min_score", "batch_size", "concurrency", "resamples",
               "baseline_limit", "es")


class Bench:
    """Runs the stages in order, keeps their figures and saves them after every stage."""

    def __init__(self, args: argparse.Namespace, spec: CorpusSpec, work: Path | None = None,
                 data: Path | None = None, code: str = "") -> None:
        self.args = args
        self.spec = spec
        self.code = code  # the git ref whose code the stages run ("": this checkout)
        self.work: Path = (work or args.work).resolve()
        self.data = data or self.work / "data"
        self.logs = self.work / "logs"
        self.memory: dict[str, dict[str, float]] = {}
        self.before: list[Stage] = []  # the same stages run by the code of --before
        self.stages: list[Stage] = []
        self.quality: dict[str, dict[str, Any]] = {}
        self.stats: dict[str, Any] = {}
        self.failures: list[str] = []
        self.scorers = [s.strip() for s in args.scorers.split(",") if s.strip()]
        self.previous = self._previous() if args.resume else {}

    def _settings(self) -> dict[str, str]:
        return {**{k: str(getattr(self.args, k)) for k in RESUME_KEYS}, "code": self.code}

    def _previous(self) -> dict[str, Stage]:
        """Stages a previous run with the same corpus and settings finished (for --resume)."""
        try:
            old = orjson.loads((self.work / "results.json").read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return {}
        if old.get("spec") != asdict(self.spec) or old.get("settings") != self._settings():
            print("(--resume: the previous results in this folder used other settings; running every stage)")
            return {}
        self.quality = old.get("quality", {})
        self.memory = old.get("memory", {})
        return {d["key"]: Stage(**d) for d in old.get("stages", [])}

    def finished(self, key: str, *outputs: Path) -> bool:
        """With --resume: did the previous run finish this stage (and do its outputs still exist)?"""
        return key in self.previous and all(path.exists() for path in outputs)

    def reuse(self, key: str, *outputs: Path) -> bool:
        """With --resume, re-record a stage the previous run finished (and whose outputs exist); say if done."""
        if not self.finished(key, *outputs):
            return False
        stage = self.previous[key]
        self.add(replace(stage, note=(stage.note + "; " if stage.note else "") + "from the previous run"))
        return True

    def add(self, stage: Stage) -> Stage:
        """Record a stage, print its line, save the results so far."""
        self.stages = [s for s in self.stages if s.key != stage.key] + [stage]
        print(format_line(stage, self.stages), flush=True)
        self.save()
        return stage

    def tables(self) -> str:
        """The Markdown table of the stages, and the before/after one when --before ran."""
        table = markdown_table(self.stages, self.spec, self.stats)
        if self.before:
            table += "\n\n" + comparison_table(self.before, self.stages, self.args.before)
        return table

    def save(self) -> None:
        """Write results.json and results.md (after every stage: a killed run keeps what it measured)."""
        self.work.mkdir(parents=True, exist_ok=True)
        (self.work / "results.json").write_bytes(orjson.dumps(
            {"spec": asdict(self.spec), "settings": self._settings(), "stats": self.stats,
             "stages": [asdict(s) for s in self.stages], "quality": self.quality, "memory": self.memory,
             "before": [asdict(s) for s in self.before], "failures": self.failures,
             "args": {k: str(v) for k, v in vars(self.args).items()}},
            option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
        if self.stats:
            (self.work / "results.md").write_text(self.tables() + "\n")

    # -- stages ------------------------------------------------------------------------------------
    def generate(self) -> None:
        """Generate the corpus in a child (or reuse it with --keep when its params match)."""
        stats = cached(self.spec, self.data) if self.args.keep else None
        if stats is not None:
            self.stats = stats
            if not self.reuse("generate"):
                self.add(Stage("generate", "generate corpus", None, None, None,
                               note=f"reused {self.data} (params match)"))
            return
        use = run_child([sys.executable, __file__, "_generate", orjson.dumps(asdict(self.spec)).decode(),
                         str(self.data)], self.logs / "generate.log")
        self.stats = orjson.loads((self.data / "stats.json").read_bytes())
        total = self.stats["triples"]["total"]
        self.add(Stage("generate", "generate corpus", use.seconds, use.cpu, use.peak_mb, total / use.seconds,
                       "triples/s"))

    def index(self, store: str, label: str, outputs: tuple[Path, ...] = ()) -> None:
        """`egqa index --split TEST` into a fresh store."""
        if self.reuse(f"index-{label}", *outputs):
            return
        if label == "sqlite":
            for path in outputs:
                for part in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                    part.unlink(missing_ok=True)  # a re-index of a full store adds nothing: time a fresh one
        else:
            drop_es(store)
        use = run_child(cli("index", str(self.data / TRIPLES_DIR), "--store", store, "--split", EVAL_SPLIT),
                        self.logs / f"index-{label}.log")
        n = self.stats["triples"][EVAL_SPLIT]
        self.add(Stage(f"index-{label}", f"index {n:,} TEST triples ({label})", use.seconds, use.cpu, use.peak_mb,
                       n / use.seconds, "triples/s",
                       note="" if label == "sqlite" else "client only: the server is not measured"))

    def graph(self) -> None:
        """`egqa graph build --split TRAIN` with the chosen measures and pruning."""
        graphs = self.work / "graphs"
        if self.reuse("graph", graphs / "manifest.json"):
            return
        argv = cli("graph", "build", str(self.data / TRIPLES_DIR), "--out", str(graphs),
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
        self.add(Stage("graph", f"graph build {n:,} TRAIN triples ({pruning})", use.seconds, use.cpu, use.peak_mb,
                       n / use.seconds, "triples/s", note=last[-1] if last else ""))

    def evaluations(self, label: str) -> list[tuple[str, list[str]]]:
        """The HTTP evaluations of a store: (label, scorers), binc alone first."""
        runs = [(f"{label}-binc", ["binc"])]
        if self.scorers != ["binc"] and label == "sqlite":
            runs.append((f"{label}-{len(self.scorers)}-scorers", self.scorers))
        return runs

    def evaluate(self, url: str, sampler: ProcessSampler, scorers: list[str], label: str) -> None:
        """`egqa evaluate` over HTTP from scratch; also record the service's RSS and CPU meanwhile."""
        out = self.work / f"eval-{label}"
        shutil.rmtree(out, ignore_errors=True)  # else the evaluator resumes and times nothing
        argv = cli("evaluate", str(self.data / BENCHMARK_FILE), "--url", url, "--scorer", ",".join(scorers),
                   "--out", str(out), "--batch-size", str(self.args.batch_size),
                   "--concurrency", str(self.args.concurrency), "--resamples", str(self.args.resamples))
        with sampler.span() as server:
            use = run_child(argv, self.logs / f"evaluate-{label}.log")
        from bench._support import rss_breakdown

        try:
            self.memory[label] = rss_breakdown(sampler.pid, {"graph artefacts": self.work / "graphs",
                                                             "SQLite store file": self.work / "evidence.db"})
        except psutil.Error:
            pass  # the service is gone
        self.quality[label] = read_report(out)
        n = self.stats["propositions"] * len(scorers)
        self.add(Stage(f"evaluate-{label}", f"evaluate over HTTP: {label}", use.seconds, use.cpu, use.peak_mb,
                       n / use.seconds, "props/s", note=f"{self.stats['propositions']:,} propositions x "
                       f"{len(scorers)} scorer(s), client process", baseline=f"inprocess-{label}",
                       server_cpu=server["cpu"]))
        self.add(Stage(f"service-{label}", f"  service during evaluate {label}", None, server["cpu"],
                       server["peak_mb"], note="sampled every 0.2 s"))

    def serve_and_evaluate(self, store: str, label: str) -> None:
        """Start the service on `store`, evaluate binc (then every --scorers scorer), stop it."""
        from bench._support import rss_mb
        from service.demo import service_process

        runs = self.evaluations(label)
        done = {name for name, _ in runs
                if self.finished(f"evaluate-{name}", self.work / f"eval-{name}" / "report.json")
                and self.finished(f"service-{name}")}
        if len(done) == len(runs):
            for key in (f"serve-{label}", *(f"{k}-{name}" for name, _ in runs for k in ("evaluate", "service")),
                        f"lifetime-{label}"):
                self.reuse(key)
            return
        start = time.perf_counter()
        with service_process(self.work / "graphs", store, self.logs / f"serve-{label}.log", timeout=1800,
                             env=SERVICE_ENV) as service:
            sampler = ProcessSampler(service.pid)
            try:
                self.add(Stage(f"serve-{label}", f"serve until ready ({label})", time.perf_counter() - start,
                               sampler.cpu_seconds(), rss_mb(service.pid), note="RSS at ready"))
                for name, scorers in runs:
                    if name in done:  # measured by the run --resume continues: keep its figures, in order
                        self.reuse(f"evaluate-{name}")
                        self.reuse(f"service-{name}")
                    else:
                        self.evaluate(service.url, sampler, scorers, name)
                self.add(Stage(f"lifetime-{label}", f"  service lifetime peak ({label})", None,
                               sampler.cpu_seconds(), sampler.high_water_mb(), note="VmHWM, start-up included"))
            finally:
                sampler.stop()

    def in_process(self, store: str, label: str) -> None:
        """Judge the same propositions in-process (same engine settings, same batches); the HTTP stages' baseline.

        A failure here is reported and the run goes on to its table: the HTTP figures stand on their own.
        """
        todo = [(name, scorers) for name, scorers in self.evaluations(label)
                if not self.reuse(f"inprocess-{name}")]
        if not todo:
            return
        result_path = self.work / f"inprocess-{label}.json"
        result_path.unlink(missing_ok=True)
        config = {"graphs": str(self.work / "graphs"), "store": store, "dataset": str(self.data / BENCHMARK_FILE),
                  "batch_size": self.args.batch_size, "limit": self.args.baseline_limit,
                  "runs": [{"name": name, "scorers": scorers, "http": str(self.work / f"eval-{name}")}
                           for name, scorers in todo],
                  "out": str(result_path)}
        failure = ""
        try:
            use = run_child([sys.executable, __file__, "_inprocess", orjson.dumps(config).decode()],
                            self.logs / f"inprocess-{label}.log")
            peak: float | None = use.peak_mb
        except StageFailed as exc:
            failure, peak = str(exc).splitlines()[0], None
        result = orjson.loads(result_path.read_bytes()) if result_path.exists() else {"runs": [], "load_seconds": 0}
        for run in result["runs"]:  # the child saves after each run: a killed child keeps the runs it finished
            scorers = run["scorers"]
            rate = run["propositions"] * len(scorers) / run["seconds"]
            if run["agree"] != run["compared"]:
                self.failures.append(f"HTTP scores of {run['name']}: {run['compared'] - run['agree']:,} of "
                                     f"{run['compared']:,} are not the in-process ones to 6 significant digits; "
                                     f"first: {run['mismatches'][0]} (more under 'mismatches' in {result_path})")
            self.add(Stage(f"inprocess-{run['name']}", f"in-process judge: {run['name']}", run["seconds"],
                           run["cpu"], peak, rate, "props/s",
                           note=f"{run['propositions']:,} propositions; HTTP scores equal to these to the API's 6 "
                           f"significant digits: {run['agree']:,}/{run['compared']:,}; peak RSS of the whole child "
                           f"(load {result['load_seconds']:.1f} s)"))
        if failure:
            self.failures.append(f"in-process baseline ({label}): {failure}")
            print(f"in-process baseline failed: {failure}", flush=True)
            self.save()

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
            self.index(es, "es")
            self.serve_and_evaluate(es, "es")
            self.in_process(es, "es")
        print(f"load average {os.getloadavg()[0]:.1f} at the end (other jobs share the cores)")

    def run_stages(self, in_process: bool = True) -> None:
        """Index into SQLite, build the graphs, serve and evaluate over HTTP (and the in-process baseline)."""
        self.logs.mkdir(parents=True, exist_ok=True)
        db = self.work / "evidence.db"
        sqlite = f"sqlite:///{db}"
        self.index(sqlite, "sqlite", (db,))  # removes an earlier store first, unless --resume reuses it
        self.graph()
        self.serve_and_evaluate(sqlite, "sqlite")
        if in_process:
            self.in_process(sqlite, "sqlite")

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
        by_key = {s.key: s for s in self.stages}
        binc, service = by_key.get("evaluate-sqlite-binc"), by_key.get("service-sqlite-binc")
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
        print("\n" + self.tables())
        self.save()
        if not self.args.keep:
            for path in (self.data, self.work / "graphs"):
                shutil.rmtree(path, ignore_errors=True)
            for path in self.work.glob("evidence.db*"):
                path.unlink()
            print(f"(generated corpus, graphs and store removed; --keep keeps them. Results: {self.work})")
        for failure in self.failures:
            print(f"FAILED: {failure}")


def drop_es(url: str) -> None:
    """Delete the benchmark's Elasticsearch indices, so the index stage times a fresh ingest."""
    from retrieval.factory import open_store

    store = open_store(url)
    try:
        store.drop()  # type: ignore[attr-defined]
    finally:
        store.close()


def ratio(stage: Stage, stages: list[Stage]) -> str:
    """The stage's rate over its baseline's, and its CPU per proposition over the baseline's (the service's and
    the client's CPU together: on a shared machine the steadier figure), e.g. `0.93x in-process (CPU 0.80x)`."""
    base = next((s for s in stages if s.key == stage.baseline), None) if stage.baseline else None
    if base is None or not base.rate or not stage.rate or not stage.seconds or not base.seconds:
        return ""
    text = f"{stage.rate / base.rate:.2f}x in-process"
    if stage.cpu is not None and stage.server_cpu is not None and base.cpu:
        per_http = (stage.cpu + stage.server_cpu) / (stage.rate * stage.seconds)
        per_base = base.cpu / (base.rate * base.seconds)
        text += f" (CPU {per_base / per_http:.2f}x)"
    return text


def format_line(s: Stage, stages: list[Stage]) -> str:
    """One progress line of figures."""
    parts = [f"{s.name:<48}"]
    parts.append(f"{s.seconds:>9.1f} s" if s.seconds is not None else f"{'-':>11}")
    parts.append(f"cpu {s.cpu:>8.1f} s" if s.cpu is not None else f"{'':>14}")
    parts.append(f"peak {s.peak_mb:>8,.0f} MB" if s.peak_mb is not None else f"{'':>16}")
    if s.rate:
        parts.append(f"{s.rate:>10,.0f} {s.unit}")
    if ratio(s, stages):
        parts.append(ratio(s, stages))
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
                     f"{ratio(s, stages) or '-'} |")
    return "\n".join(lines)


def comparison_table(before: list[Stage], after: list[Stage], ref: str) -> str:
    """Stage by stage: the code at `ref` against this checkout, on the same corpus, with speed-ups."""
    lines = [f"Before (`{ref}`) and after (this checkout), same corpus, same machine, one run:", "",
             "| stage | before | after | speed-up | peak RSS before | peak RSS after |",
             "|---|---:|---:|---:|---:|---:|"]
    done = {s.key: s for s in after}
    for b in before:
        a = done.get(b.key)
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
        old = Bench(bench.args, bench.spec, work=bench.work / "before", data=bench.data, code=ref)
        old.stats = bench.stats
        old.run_stages(in_process=False)
    finally:
        os.environ["PYTHONPATH"] = saved
        os.chdir(cwd)
    return old.stages


# -- children ---------------------------------------------------------------------------------------

MISMATCHES_KEPT = 20  # disagreeing entries saved per run, with both scores, to diff the two paths by hand


def score_mismatches(scorer: str, ids: Sequence[str], scores: Sequence[float],
                     http: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The entries whose score over HTTP is not the in-process score as the API writes it, with both scores.

    The API sends scores to 6 significant digits (service.schemas.significant, applied here, not copied):
    a served score agrees when it is exactly that rounding of the in-process one, so the check allows the
    API's rounding (at most half a unit in the 6th significant digit) and nothing more."""
    from service.schemas import significant

    out = []
    for entry, score in zip(ids, scores, strict=True):
        served = float(http[entry][scorer])
        if significant(score) != served:
            out.append({"id": entry, "scorer": scorer, "in_process": score, "as_served": significant(score),
                        "http": served})
    return out


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
        t, cpu_start = time.perf_counter(), time.process_time()
        by_scorer: dict[str, list[float]] = {}
        for scorer in run["scorers"]:
            scores = []
            for i in range(0, len(inputs), size):
                scores += [a.score for a in engine.judge(inputs[i:i + size], Options(scorer, top_k=0))]
            by_scorer[scorer] = scores
        seconds, cpu = time.perf_counter() - t, time.process_time() - cpu_start  # judging only, not the check
        mismatches = [m for scorer, scores in by_scorer.items() for m in score_mismatches(scorer, ids, scores, http)]
        compared = len(inputs) * len(run["scorers"])
        runs.append({"name": run["name"], "scorers": run["scorers"], "propositions": len(inputs),
                     "seconds": seconds, "cpu": cpu, "agree": compared - len(mismatches), "compared": compared,
                     "mismatches": mismatches[:MISMATCHES_KEPT]})
        # Saved after every run: a child killed later keeps the runs it finished.
        Path(config["out"]).write_bytes(orjson.dumps({"load_seconds": load_seconds, "runs": runs}))
    engine.store.close()


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
    ap.add_argument("--resume", action="store_true", help="with the same corpus and settings, skip the stages an "
                                                          "earlier run in --work finished (implies --keep)")
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
                         "same corpus, and print before/after speed-ups (e.g. 8da79e7, the code before the evaluation was made fast)")
    ap.add_argument("--baseline-limit", type=int, default=0, help="in-process baseline on the first N propositions "
                                                                  "(0: all)")
    args = ap.parse_args(argv)
    sizes = {field: getattr(args, field) for field in ("triples", "train_triples", "propositions", "windows",
                                                       "predicates", "entities", "seed")
             if getattr(args, field) is not None}
    spec = replace(SCALES[args.scale], **sizes)
    args.keep = args.keep or args.resume
    if args.measures is None:
        graph_scorers = graph_names(args.scorers.split(","))
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
    bench = Bench(args, spec)
    try:
        bench.run()
        if args.before:
            bench.before = run_before(bench, args.before)
        bench.finish()
    except StageFailed as exc:
        sys.exit(f"stage failed: {exc}\n(figures so far: {args.work / 'results.md'}; --resume continues)")
    if bench.failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
