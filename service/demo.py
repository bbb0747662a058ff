"""The end-to-end demo: corpus -> triples -> graphs -> evidence store -> running service -> benchmark ->
evaluation over HTTP -> table and figure. Every stage calls the same library function as its CLI command.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import orjson

from benchmark.audit import audit_benchmark, format_audit
from benchmark.build import BuildConfig, build_benchmark_files, read_jsonl
from benchmark.stats import BenchmarkStats
from graph_builder.download import resolve_corpus
from graph_builder.errors import EgqaError, StoreError
from graph_builder.graphs.build import BuildParams, build_graphs
from graph_builder.graphs.graphset import GraphSet
from graph_builder.graphs.scorers import EXACT, graph_names
from graph_builder.pipeline import extract_corpus
from graph_builder.triples import read_triples
from retrieval.factory import open_store
from retrieval.ingest import index_dataset
from service.evaluate import EvalConfig, EvalResult, evaluate

log = logging.getLogger(__name__)

DEMO_SCORERS = ("binc", "binc_clean", "global", "weeds", "lin", "cos", "binc+untyped", EXACT)
# Reuters-21578 is ~20k articles: the published thresholds (Li et al. 2022; Hosseini et al. 2018) scaled down
# (see docs/results.md).
DEMO_GRAPH_PARAMS = BuildParams(min_predicates_per_pair=2, min_pairs_per_predicate=2, splits=("TRAIN",))


@dataclass
class DemoResult:
    """Where the demo wrote everything, and the evaluation it printed."""

    out: Path
    benchmark_stats: BenchmarkStats
    evaluation: EvalResult
    audit: dict[str, dict[str, Any]] = field(default_factory=dict)  # hypothesis-only audit of dev and test
    # Questions answered through an edge: true test propositions (`source` benchmark), else edge_examples' (graph).
    examples: list[dict[str, Any]] = field(default_factory=list)
    service_url: str = ""
    page_query: str = ""  # the web page's address query (`?q=...&date=...`) of an example question with evidence
    why_tie: str = ""  # one line: how many test propositions meet a graph edge, so why the measures tie


def example_answers(url: str, entries: list[dict[str, Any]], scores: Path, scorer: str = "binc",
                    n: int = 3) -> list[dict[str, Any]]:
    """Ask the service again `n` true test propositions that it answered through an entailment edge (not by
    the same predicate): each answer with its best evidence, the edge used and the window's dates."""
    by_id = {e["id"]: e for e in entries}
    rows = [orjson.loads(line) for line in scores.read_text(encoding="utf-8").splitlines() if line.strip()]
    chosen = [r for r in rows if r["label"] == 1 and r.get(scorer, 0) > 0 and r.get(EXACT, 0) == 0]
    chosen.sort(key=lambda r: (-float(r[scorer]), r["id"]))
    examples: list[dict[str, Any]] = []
    seen_predicates: set[str] = set()
    for row in chosen:
        entry = by_id[row["id"]]
        if entry["predicate"] in seen_predicates:
            continue  # three different predicates read better than one thrice
        body = {"subject": entry["subj"], "predicate": entry["predicate"], "object": entry["obj"],
                "subject_type": entry["subj_type"], "object_type": entry["obj_type"], "window": entry["window"],
                "exclude_sentence_ids": entry.get("exclude_sentence_ids", []), "scorer": scorer, "top_k": 1}
        answer = httpx.post(f"{url}/v1/query", json=body, timeout=30.0).json()
        if not answer.get("evidence"):
            continue
        seen_predicates.add(entry["predicate"])
        examples.append({"question": f"{entry['subj']} {entry['predicate_text']} {entry['obj']}", "entry": entry,
                         "answer": answer, "source": "benchmark"})
        if len(examples) == n:
            break
    return examples


def edge_examples(url: str, graphs: GraphSet, triples: Path, split: str, scorer: str = "binc", n: int = 3,
                  skip: Collection[str] = (), tries: int = 60) -> list[dict[str, Any]]:
    """Ask the service `n` questions that only an entailment edge can answer: for a triple of the `split`
    period (`premise(subj, obj)`), a hypothesis an edge of the graphs leads to (`hypothesis(subj, obj)`), asked
    with evidence of the hypothesis' own predicate left out. Edges are taken by their score times the rarer
    side's count outside `split` (a strong edge between predicates the graphs saw often reads best), each
    premise and hypothesis predicate once; predicates in `skip` are not asked; at most `tries` are sent."""
    rows = read_triples(triples, ["split", "subj", "obj", "subj_type", "obj_type", "predicate", "predicate_text",
                                  "window"]).to_pylist()
    said = Counter((row["predicate"], row["predicate_text"]) for row in rows)
    words: dict[str, str] = {}
    for (predicate, text), _ in sorted(said.items(), key=lambda kv: (-kv[1], kv[0])):
        # How the news says a predicate most often; a passive wording (`led by`) reads subject and object the
        # other way round in `subject words object`.
        if not text.endswith(" by"):
            words.setdefault(predicate, text)
    seen = Counter(row["predicate"] for row in rows if row["split"] != split)
    candidates: list[tuple[float, str, str, str, dict[str, Any]]] = []
    for row in rows:
        if row["split"] != split or row["subj"] == row["obj"]:
            continue
        try:
            edges = graphs.neighbours(row["predicate"], f"{row['subj_type']}#{row['obj_type']}", scorer, limit=10)
        except EgqaError:
            continue  # the premise is not a node of its typed graph
        for node, score in edges:
            hypothesis, _, node_types = node.partition("#")
            # Same argument order only (`x_2#y_1` would swap subject and object), a predicate with words.
            if hypothesis == row["predicate"] or hypothesis in skip or "_2#" in node_types or hypothesis not in words:
                continue
            weight = score * min(seen[row["predicate"]], seen[hypothesis])
            candidates.append((-weight, hypothesis, row["subj"], row["obj"], row))
    candidates.sort(key=lambda c: c[:4])
    examples: list[dict[str, Any]] = []
    used: set[str] = set(skip)
    failed: Counter[tuple[str, str]] = Counter()
    sent = 0
    for _, hypothesis, _, _, row in candidates:
        if hypothesis in used or row["predicate"] in used or failed[row["predicate"], hypothesis] == 3:
            continue  # three different edges read better than one thrice; an edge that failed thrice is dropped
        if sent == tries:
            break
        sent += 1
        body = {"subject": row["subj"], "predicate": hypothesis, "object": row["obj"],
                "subject_type": row["subj_type"], "object_type": row["obj_type"], "window": row["window"],
                "exclude_same_predicate": True, "scorer": scorer, "top_k": 1}
        answer = httpx.post(f"{url}/v1/query", json=body, timeout=30.0).json()
        if not answer.get("answer") or not answer.get("evidence") or answer["evidence"][0]["match"] != "typed":
            failed[row["predicate"], hypothesis] += 1  # a backoff edge (another graph's) reads worse than a typed one
            continue
        used |= {hypothesis, row["predicate"]}
        entry = {"subj": row["subj"], "obj": row["obj"], "predicate": hypothesis, "predicate_text": words[hypothesis]}
        examples.append({"question": f"{row['subj']} {entry['predicate_text']} {row['obj']}", "entry": entry,
                         "answer": answer, "source": "graph"})
        if len(examples) == n:
            break
    return examples


def why_measures_tie(report: Mapping[str, Mapping[str, Any]], scores: Path, scorers: Sequence[str]) -> str:
    """One line saying how many test propositions the graph scorers score above 0 and how many of those through
    an edge (not by evidence with the proposition's own predicate), from an evaluation's report and scores."""
    rows = [orjson.loads(line) for line in scores.read_text(encoding="utf-8").splitlines() if line.strip()]
    graph_scorers = [s for s in scorers if graph_names([s])]  # those that read a graph
    scored = [r for r in rows if any(r.get(s, 0) > 0 for s in graph_scorers)]
    through_edge = sum(1 for r in scored if r.get(EXACT, 0) == 0)
    aps = {round(float(report[s]["ap_norm"]), 4) for s in graph_scorers if s in report}
    verdict = "the measures tie" if len(aps) <= 1 else "the measures barely differ"
    return (f"Why {verdict}: the graphs score {len(scored)} of the {len(rows)} test propositions above 0, "
            f"{through_edge} of them through an entailment edge (the rest by their own predicate); "
            f"on the 2006-2013 Reuters corpus they separate (docs/results.md).")


def page_query(url: str, examples: list[dict[str, Any]]) -> str:
    """The web page's query string for the first example that, asked as a sentence on its window's first day,
    still has evidence (`?q=...&date=...`); else the first example asked as a triple (`?s=&p=&o=&date=`)."""
    for example in examples:
        entry, date = example["entry"], example["answer"]["window"]["start"]
        text = f"{entry['subj']} {entry['predicate_text']} {entry['obj']}."
        answer = httpx.post(f"{url}/v1/query", json={"text": text, "date": date, "top_k": 1}, timeout=30.0)
        if answer.status_code == 200 and answer.json().get("evidence"):
            return "?" + urlencode({"q": text, "date": date})
    if not examples:
        return ""
    entry = examples[0]["entry"]
    return "?" + urlencode({"s": entry["subj"], "p": entry["predicate"], "o": entry["obj"],
                            "date": examples[0]["answer"]["window"]["start"]})


def format_example(example: dict[str, Any]) -> str:
    """An answered question in four lines: the question, the answer, the evidence, the edge."""
    answer, entry = example["answer"], example["entry"]
    evidence = answer["evidence"][0]
    window = answer["window"]
    return (f"  Q  {example['question']!r}  (news of {window['start']} .. {window['end']})\n"
            f"  A  {answer['answer']}, score {answer['score']:.3f} >= threshold {answer['threshold']} ({answer['scorer']})\n"
            f"     evidence {evidence['article_id']} ({evidence['date']}): {evidence['sentence']!r}\n"
            f"     edge {evidence['predicate']} -> {entry['predicate']}  ({evidence['match']}, {evidence['score']:.3f})")


def free_port() -> int:
    """Return a TCP port on loopback that is free right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class ServiceProcess:
    """A running `egqa serve` child process: its URL and the process."""

    url: str
    process: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        """The process id."""
        return self.process.pid


@contextmanager
def service_process(graphs: Path, store_url: str, log_path: Path, timeout: float = 180.0,
                    env: Mapping[str, str] | None = None, stop_timeout: float = 30.0) -> Iterator[ServiceProcess]:
    """Start `egqa serve` in a child process (extra EGQA_* settings in `env`), wait until /ready, stop it after.

    The child imports the same egqa as this process, and appends its output to `log_path`."""
    port = free_port()
    here = str(Path(__file__).resolve().parents[1])  # the folder holding this `service` package
    path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH", "")) if p)
    child_env = {**os.environ, "PYTHONPATH": path, "EGQA_GRAPHS_DIR": str(graphs), "EGQA_STORE_URL": store_url,
                 "EGQA_PORT": str(port), "EGQA_HOST": "127.0.0.1", "EGQA_LOG_LEVEL": "warning", **(env or {})}
    url = f"http://127.0.0.1:{port}"
    with log_path.open("ab") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "service", "serve"], env=child_env, stdout=sink,
                                stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise StoreError(f"the service exited with code {proc.returncode}; see {log_path}")
            try:
                if httpx.get(f"{url}/ready", timeout=2.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise StoreError(f"the service was not ready after {timeout:.0f}s; see {log_path}")
            time.sleep(0.2)
        yield ServiceProcess(url, proc)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=stop_timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


# Reuters-21578 is small: the `agree` chooser's abstentions and the typed-felicity filter leave 29 test entries,
# so the demo takes the first sense and the two WordNet filters (docs/benchmark-builder.md).
DEMO_BENCHMARK_CONFIG = BuildConfig(senses="first", negative_filters=("positive_synonym", "window_synonym"))


@contextmanager
def running_service(graphs: Path, store_url: str, log_path: Path, timeout: float = 180.0) -> Iterator[str]:
    """Start `egqa serve` in a child process, wait until /ready, yield its URL, stop it afterwards."""
    with service_process(graphs, store_url, log_path, timeout) as service:
        yield service.url


def run_demo(corpus: Path | None, out: Path, *, say: Callable[[str], None] = print,
             progress_factory: Callable[[str, int | None], Callable[[int], None]] | None = None,
             scorers: tuple[str, ...] = DEMO_SCORERS, graph_params: BuildParams = DEMO_GRAPH_PARAMS,
             benchmark_config: BuildConfig = DEMO_BENCHMARK_CONFIG) -> DemoResult:
    """Run the whole loop on a corpus (downloading Reuters-21578 when none is given) into `out`."""
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)

    def bar(name: str, total: int | None = None) -> Callable[[int], None] | None:
        return progress_factory(name, total) if progress_factory else None

    def step(n: int, text: str) -> None:
        say(f"== {n}/6 {text}  [{time.perf_counter() - started:.0f}s]")

    step(1, "corpus")
    source = resolve_corpus(corpus, out / "corpus")
    say(f"   using {source}")
    step(2, f"extracting typed triples (all cores) into {out / 'triples'}")
    # A bar for reading the corpus (its records counted first), then one for extraction, which starts once
    # the corpus is read and the number of articles known.
    reads: list[Callable[[int], None]] = []
    updates: list[Callable[[int], None]] = []

    def starter(name: str, into: list[Callable[[int], None]]) -> Callable[[int], None]:
        def start(total: int) -> None:
            update = bar(name, total)
            if update is not None:
                into.append(update)
        return start

    # The demo's folder is its own: an extraction there by an earlier extractor (after an upgrade) or of another
    # corpus is replaced, where `egqa extract` refuses without --overwrite. Matching settings resume.
    ext = extract_corpus([source], out / "triples", progress=lambda k: updates[-1](k) if updates else None,
                         total=starter("extract", updates), overwrite=True,
                         reading=lambda k: reads[-1](k) if reads else None, reading_total=starter("read", reads))
    if ext.replaced:
        say(f"   {out / 'triples'} held an extraction by another extractor or of another corpus: extracted again")
    skipped = ", ".join(f"{why.replace('_', ' ')} {n:,}" for why, n in ext.read["skipped"].items()) or "none"  # type: ignore[union-attr]
    say(f"   {ext.articles:,} articles, {ext.triples:,} triples; records skipped: {skipped}")
    step(3, f"building entailment graphs from the {', '.join(graph_params.splits or ('all',))} period")
    built = build_graphs(out / "triples", out / "graphs", graph_params, overwrite=True, with_untyped=True)
    say(f"   {built.graphs} graphs, {built.nodes:,} nodes; edges: "
        + ", ".join(f"{measure} {n:,}" for measure, n in built.edges.items()))
    if built.untyped is not None:
        say(f"   the untyped set (every argument of one type, for the +untyped scorers): {built.untyped.nodes:,} nodes, "
            f"binc edges {built.untyped.edges.get('binc', 0):,}")
    step(4, f"indexing the evidence store ({benchmark_config.eval_split} period only)")
    store_url = f"sqlite:///{(out / 'evidence.db').resolve()}"
    store = open_store(store_url)
    try:
        indexed = index_dataset(out / "triples", store, splits=(benchmark_config.eval_split,), replace=True)
    finally:
        store.close()
    say(f"   {indexed.triples_read:,} triples read, {indexed.triples_added:,} new")
    step(5, "building the BoOQA-style benchmark (WordNet-hyponym negatives)")
    stats = build_benchmark_files(out / "triples", out / "benchmark", benchmark_config)
    entries = read_jsonl(out / "benchmark" / "test.jsonl")
    say(f"   test split: {len(entries):,} propositions ({sum(int(e['label']) for e in entries):,} true)")
    audit = audit_benchmark(out / "benchmark")
    say("   " + format_audit(audit).replace("\n", "\n   "))
    step(6, "starting the service and evaluating the test split over HTTP")
    with running_service(out / "graphs", store_url, out / "service.log") as url:
        say(f"   service ready at {url}")
        result = evaluate(entries, url, out / "eval", EvalConfig(scorers), title="egqa demo: test split",
                          progress=bar("evaluate", len(entries) * len(scorers)))
        examples = example_answers(url, entries, out / "eval" / "scores.jsonl")
        if len(examples) < 3:  # the test split meets too few edges: ask what the graphs can answer
            examples += edge_examples(url, GraphSet.load(out / "graphs"), out / "triples", benchmark_config.eval_split,
                                      n=3 - len(examples), skip={e["entry"]["predicate"] for e in examples})
        query = page_query(url, examples)
    say(f"   evaluated in {result.seconds:.1f}s; whole demo {time.perf_counter() - started:.0f}s")
    return DemoResult(out, stats, result, audit, examples, page_query=query,
                      why_tie=why_measures_tie(result.report, out / "eval" / "scores.jsonl", scorers))
