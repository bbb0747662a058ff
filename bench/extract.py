"""Extraction speed on a fixed Reuters slice: egqa vs bare spaCy `nlp.pipe`, and 1 -> 2 workers.

Prints articles/s and tokens/s, egqa's overhead over spaCy's own parsing of the same texts in the same
run (target <= 15%), and the speed-up of the sharded pipeline from 1 to 2 worker processes
(target >= 1.7x). Usage: python bench/extract.py [--articles 400] [--corpus ../shared/data/reuters21578]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import orjson

from graph_builder.corpus import read_corpus
from graph_builder.extraction import load_pipeline
from graph_builder.pipeline import ShardTask, extract_corpus, extract_shard

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "reuters21578"


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--articles", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=2, help="best of N for the in-process comparison")
    args = parser.parse_args()

    articles, _ = read_corpus([args.corpus / "reut2-003.sgm"] if args.corpus.is_dir() else [args.corpus])
    sample = tuple(articles[: args.articles])
    texts = [a.text for a in sample]
    nlp = load_pipeline()
    list(nlp.pipe(texts[:20]))  # warm-up

    with tempfile.TemporaryDirectory() as tmp:
        bare, ours = [], []
        tokens = 0
        for _ in range(args.repeat):
            start = time.perf_counter()
            tokens = sum(len(doc) for doc in nlp.pipe(texts, batch_size=32))
            bare.append(time.perf_counter() - start)
            start = time.perf_counter()
            result = extract_shard(ShardTask("bench", sample), tmp)
            ours.append(time.perf_counter() - start)
        t_bare, t_ours = min(bare), min(ours)
        print(f"slice: {len(sample)} articles, {tokens:,} tokens (reut2-003.sgm), {result.triples:,} triples")
        print(f"spaCy nlp.pipe      : {t_bare:7.2f}s  {len(sample) / t_bare:7.1f} articles/s  {tokens / t_bare:8.0f} tokens/s")
        print(f"egqa extract (1 proc): {t_ours:7.2f}s  {len(sample) / t_ours:7.1f} articles/s  {tokens / t_ours:8.0f} tokens/s")
        print(f"egqa overhead over bare spaCy: {t_ours / t_bare - 1:+.1%}  (target <= +15%)")

        corpus = Path(tmp) / "slice.jsonl"
        corpus.write_bytes(b"\n".join(orjson.dumps({"id": a.id, "date": a.date.isoformat(), "text": a.text})
                                      for a in sample))
        timings = {}
        for workers in (1, 2):
            start = time.perf_counter()
            extract_corpus([corpus], Path(tmp) / f"w{workers}", workers=workers, shard_size=max(len(sample) // 8, 1))
            timings[workers] = time.perf_counter() - start
            print(f"pipeline, {workers} worker(s): {timings[workers]:7.2f}s  "
                  f"{len(sample) / timings[workers]:7.1f} articles/s (includes process start and model load)")
        print(f"speed-up 1 -> 2 workers: {timings[1] / timings[2]:.2f}x  (target >= 1.7x)")


if __name__ == "__main__":
    main()
