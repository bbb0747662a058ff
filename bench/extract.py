"""Extraction speed on a fixed news slice: bare spaCy `nlp.pipe` vs egqa's whole-document path vs its sentence path.

All three run in this process on the same cleaned texts, one after the other, best of `--repeat` (interleaved), and
are timed in CPU seconds (the host steals CPU, which swings wall time between identical runs):
- bare: `nlp.pipe(texts)` with every pipeline component, nothing else, the pipeline as spaCy loads it (spaCy's own
  speed, the baseline);
- bare with egqa's ops: the same, on the pipeline as egqa loads it (thinc ops with numpy's BLAS, forward-only Maxout
  and LayerNorm layers, hash embeddings from precomputed tables, one BLAS thread:
  graph_builder/extraction/inference_ops.py), to show what the models' inference code alone changes;
- document path (extractor v1): egqa's pipeline on whole texts, then egqa's rules on every sentence;
- sentence path (extractor v2, what `egqa extract` runs): rule sentence splitting, a sentence cache, a capital-letter
  filter, the entity recogniser on the rest, and the tagger/parser/lemmatiser only where an entity can be an argument
  (the attribute ruler from its memo: graph_builder/extraction/attributes.py).
With `--parsers sm md` every path runs once per parser on the same texts, interleaved, and the md/sm CPU ratios of
the same run are printed. Then the sharded pipeline (first parser) with 1 and 2 worker processes, next to a pure-CPU
control of the machine's parallelism.
Usage: python bench/extract.py [--articles 300] [--corpus ../shared/data/reuters_ding2014/reuters_ding2014.jsonl.gz]
       [--skip 40000] [--parsers sm md] [--repeat 2] [--no-workers]
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson
from threadpoolctl import threadpool_limits

from graph_builder import pipeline
from graph_builder.corpus import ReadReport, read_file
from graph_builder.extraction import SentenceParser, doc_triples, load_pipeline, load_spacy, parser_model
from graph_builder.pipeline import extract_corpus

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "reuters_ding2014" / \
    "reuters_ding2014.jsonl.gz"


def _burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def cpu_control(n: int = 15_000_000) -> float:
    """The machine's own speed-up for two pure-CPU tasks on 2 processes vs one after the other."""
    start = time.perf_counter()
    _burn(n)
    _burn(n)
    serial = time.perf_counter() - start
    start = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(_burn, [n, n])
    return serial / (time.perf_counter() - start)


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--articles", type=int, default=300)
    parser.add_argument("--skip", type=int, default=40_000, help="articles to skip first (a mid-corpus slice)")
    parser.add_argument("--repeat", type=int, default=2, help="best of N, interleaved")
    parser.add_argument("--parsers", nargs="+", default=["sm"], metavar="PARSER",
                        help="parsers to time (sm, md), each on the same texts; the first is the baseline")
    parser.add_argument("--no-workers", action="store_true", help="skip the 1 -> 2 worker pipeline comparison")
    args = parser.parse_args()

    report = ReadReport()
    sample = list(itertools.islice(read_file(args.corpus, report), args.skip, args.skip + args.articles))
    texts = [a.text for a in sample]
    specs = [parser_model(name) for name in args.parsers]
    pipelines = {spec.name.value: load_pipeline(spec.name.value) for spec in specs}
    plain = {spec.name.value: load_spacy(spec) for spec in specs}  # as spaCy loads it: thinc's own ops
    for nlp in (*pipelines.values(), *plain.values()):
        list(nlp.pipe(texts[:10]))  # warm-up

    def bare(parser_name: str) -> int:
        return sum(len(doc) for doc in plain[parser_name].pipe(texts, batch_size=32))

    def bare_egqa_ops(parser_name: str) -> int:
        with threadpool_limits(1, user_api="blas"):
            return sum(len(doc) for doc in pipelines[parser_name].pipe(texts, batch_size=32))

    def document_path(parser_name: str) -> int:
        triples = 0
        with threadpool_limits(1, user_api="blas"):
            for doc in pipelines[parser_name].pipe(texts, batch_size=32):
                triples += sum(len(s.relations) for s in doc_triples(doc))
        return triples

    def sentence_path(parser_name: str) -> int:
        sp = SentenceParser(pipelines[parser_name])  # a fresh sentence cache each time: no help from an earlier repeat
        return sum(len(s.relations) for article in sp.parse(texts) for s in article)

    paths: dict[str, Callable[[str], int]] = {"bare": bare, "bare_ops": bare_egqa_ops, "document": document_path,
                                              "sentence": sentence_path}
    best: dict[tuple[str, str], float] = {}
    results: dict[tuple[str, str], int] = {}
    for _ in range(args.repeat):
        for parser_name in pipelines:
            for name, fn in paths.items():
                cpu = time.process_time()
                results[parser_name, name] = fn(parser_name)
                best[parser_name, name] = min(best.get((parser_name, name), float("inf")), time.process_time() - cpu)
    base = specs[0].name.value
    tokens = results[base, "bare"]
    print(f"slice: {len(sample)} articles from {args.corpus.name} (after {args.skip:,}), {tokens:,} spaCy tokens")
    print(f"{'path':<40} {'cpu s':>7} {'ms/article':>10} {'tokens/s':>9} {'vs bare':>8} {'triples':>8}")
    for spec in specs:
        name = spec.name.value
        for path, label in (("bare", "spaCy nlp.pipe, bare"), ("bare_ops", "nlp.pipe, bare, egqa's ops"),
                            ("document", "egqa v1: document path"), ("sentence", "egqa v2: sentence path")):
            cpu = best[name, path]
            triples = "" if path.startswith("bare") else f"{results[name, path]:,}"
            baseline = " (baseline)" if (name, path) == (base, "bare") else ""
            print(f"{name + ': ' + label + baseline:<40} {cpu:7.2f} {1000 * cpu / len(sample):10.1f} "
                  f"{tokens / cpu:9.0f} {best[base, 'bare'] / cpu:7.2f}x {triples:>8}")
    for spec in specs[1:]:
        name = spec.name.value
        print(f"CPU time {name}/{base}, same run: sentence path {best[name, 'sentence'] / best[base, 'sentence']:.2f}x, "
              f"bare {best[name, 'bare'] / best[base, 'bare']:.2f}x")

    if args.no_workers:
        return
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "slice.jsonl"
        corpus.write_bytes(b"\n".join(orjson.dumps({"id": a.id, "date": a.date.isoformat(), "text": a.text})
                                      for a in sample))
        control = cpu_control()
        timings = {}
        for workers in (1, 2):
            # A fresh sentence cache each time: forked workers would otherwise inherit the one the in-process run
            # filled, and answer every sentence from it.
            pipeline._PARSERS.clear()
            start = time.perf_counter()
            extract_corpus([corpus], Path(tmp) / f"w{workers}", workers=workers, shard_size=max(len(sample) // 8, 1),
                           model=base)
            timings[workers] = time.perf_counter() - start
            print(f"pipeline, {workers} worker(s): {timings[workers]:7.2f}s wall  {tokens / timings[workers]:7.0f} tokens/s"
                  " (includes process start and model load)")
        print(f"speed-up 1 -> 2 workers: {timings[1] / timings[2]:.2f}x; machine control (pure CPU, 2 processes): "
              f"{control:.2f}x (2.0x = two free cores)")


if __name__ == "__main__":
    main()
