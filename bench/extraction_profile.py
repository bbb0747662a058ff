"""Where the sentence path's CPU time goes: each stage of `SentenceParser` timed on its own, on a fixed news slice.

The stages run one after the other over the slice's distinct sentences (each component over the whole list, so its
time is its own): rule sentence splitting, tokenizer, capital filter, entity recogniser, entity check, then each
remaining pipeline component (the attribute ruler and the lemmatiser as `SentenceParser` runs them, from their
memos; `--spacy-ruler` for spaCy's own components) and egqa's relation rules. The models run on egqa's InferenceOps
and layer forwards (Maxout, LayerNorm, precomputed hash embeddings) with one BLAS thread, as in `SentenceParser`;
`--thinc-ops` runs them on thinc's own NumpyOps and forwards instead, `--thinc-embeddings` puts back thinc's
hash-embedding chains alone. CPU seconds, every run printed (the first fills the memos).
Usage: python bench/extraction_profile.py [--corpus FILE] [--skip 40000] [--articles 300] [--runs 2]
       [--spacy-ruler] [--thinc-ops] [--thinc-embeddings]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections import defaultdict
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from thinc.api import NumpyOps  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from graph_builder.corpus import ReadReport, read_file  # noqa: E402
from graph_builder.extraction import (  # noqa: E402
    MAX_SENTENCE_CHARS, SentenceParser, _memo_component, doc_triples, load_pipeline, plain,
)
from graph_builder.extraction.arguments import SKIPPED_ENTITY_LABELS  # noqa: E402
from graph_builder.extraction.inference_ops import THINC_FORWARDS, use_forwards, use_ops  # noqa: E402
from graph_builder.extraction.sentences import article_sentences  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "reuters_ding2014" / \
    "reuters_ding2014.jsonl.gz"


def main() -> None:
    """Time each stage and print the breakdown of every run."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--skip", type=int, default=40_000)
    parser.add_argument("--articles", type=int, default=300)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--spacy-ruler", action="store_true",
                        help="time spaCy's attribute ruler and lemmatiser instead of the memos")
    parser.add_argument("--thinc-ops", action="store_true",
                        help="run the models on thinc's NumpyOps and layer forwards, not egqa's inference ones")
    parser.add_argument("--thinc-embeddings", action="store_true",
                        help="run the hash embeddings on thinc's chain, not egqa's precomputed tables")
    args = parser.parse_args()
    with threadpool_limits(1, user_api="blas"):
        run_stages(args)


def run_stages(args: argparse.Namespace) -> None:
    """Time each stage over the slice, `args.runs` times."""
    texts = [a.text for a in itertools.islice(read_file(args.corpus, ReadReport()), args.skip, args.skip + args.articles)]
    nlp = load_pipeline("sm")
    if args.thinc_ops:
        use_ops(nlp, NumpyOps())
        use_forwards(nlp, THINC_FORWARDS)
    if args.thinc_embeddings:
        use_forwards(nlp, {"hash embeddings": THINC_FORWARDS["hash embeddings"]})
    list(nlp.pipe(texts[:10]))  # warm-up
    for run in range(args.runs):
        took: dict[str, float] = defaultdict(float)

        def clock(stage: str, start: float) -> None:
            took[stage] += time.process_time() - start

        begin = time.process_time()
        start = time.process_time()
        articles = [article_sentences(t) for t in texts]
        clock("sentence splitting", start)
        sentences = list(dict.fromkeys(s for a in articles for s in a if len(s) <= MAX_SENTENCE_CHARS))
        start = time.process_time()
        docs = [nlp.make_doc(s) for s in sentences]
        clock("tokenizer", start)
        sentence_parser = SentenceParser(nlp)
        start = time.process_time()
        named = [d for d in docs if sentence_parser._may_name(d)]
        clock("capital filter", start)
        start = time.process_time()
        recognised = list(nlp.get_pipe("ner").pipe(named, batch_size=sentence_parser.batch_size))
        clock("ner", start)
        start = time.process_time()
        stream = [d for d in recognised if any(e.label_ not in SKIPPED_ENTITY_LABELS for e in d.ents)]
        clock("entity check", start)
        for name, proc in nlp.pipeline:
            if name == "ner":
                continue
            component = proc if args.spacy_ruler else _memo_component(proc)
            start = time.process_time()
            stream = list(component.pipe(stream, batch_size=sentence_parser.batch_size))  # type: ignore[attr-defined]
            clock(name, start)
        triples = 0
        start = time.process_time()
        for doc in stream:
            triples += len([plain(r) for s in doc_triples(doc) for r in s.relations])
        clock("relation rules (doc_triples, plain)", start)
        total = time.process_time() - begin
        print(f"run {run + 1}: {total:.2f} s CPU; {len(sentences):,} distinct sentences, {len(named):,} to the "
              f"recogniser, {len(stream):,} parsed, {triples:,} triples")
        for stage, seconds in sorted(took.items(), key=lambda kv: -kv[1]):
            print(f"  {stage:<38} {seconds:6.2f} s {100 * seconds / total:5.1f}%")


if __name__ == "__main__":
    main()
