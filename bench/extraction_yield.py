"""Triples per sentence on a fixed slice of real news, and the triples themselves to compare two extractors.

Reads the first `--articles` articles (after `--skip`) of a corpus file with egqa's own reader, runs the corpus
extraction path (`SentenceParser`: rule sentence splitting, filters, parse) and prints sentences, triples and
triples per sentence. `--dump FILE` writes one JSON line per sentence with triples (article id, sentence index,
sentence, triples), sorted, so two extractors' dumps can be compared with `diff`. The dump holds corpus text:
write it outside the repository. `--titles` reads the articles' titles instead, as the extraction does (a headline as
a sentence, and one that gives nothing read as the prose it stands for); `--titles-as-written` without that rereading.
Usage: python bench/extraction_yield.py [--corpus ../shared/data/reuters21578/reut2-000.sgm] [--articles 300]
       [--skip 0] [--parser sm|md] [--dump /tmp/triples.jsonl] [--titles | --titles-as-written]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from graph_builder.corpus import ReadReport, read_file  # noqa: E402
from graph_builder.extraction import SentenceParser, load_pipeline, parser_model  # noqa: E402
from graph_builder.headlines import headline_sentence  # noqa: E402
from graph_builder.pipeline import titles_as_prose  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "reuters21578" / "reut2-000.sgm"


def triple_text(rel: object) -> str:
    """One triple as `subject | predicate | object` (the form the dump and a diff read)."""
    return f"{rel.subj.norm} | {rel.predicate} | {rel.obj.norm}"  # type: ignore[attr-defined]


def main() -> None:
    """Extract the slice and print its counts (and dump its triples)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="a corpus file egqa reads")
    parser.add_argument("--articles", type=int, default=300)
    parser.add_argument("--skip", type=int, default=0, help="articles to skip first")
    parser.add_argument("--parser", default="sm", help="the extractor's spaCy pipeline (sm, md)")
    parser.add_argument("--dump", type=Path, default=None, help="write the sentences' triples here (JSON lines)")
    titles = parser.add_mutually_exclusive_group()
    titles.add_argument("--titles", action="store_true", help="read the titles, as the extraction does")
    titles.add_argument("--titles-as-written", action="store_true", help="read the titles without their prose")
    args = parser.parse_args()

    articles = list(itertools.islice(read_file(args.corpus, ReadReport()), args.skip, args.skip + args.articles))
    spec = parser_model(args.parser)
    sentence_parser = SentenceParser(load_pipeline(spec.name.value), cache_size=0)
    if args.titles or args.titles_as_written:
        heads = [headline_sentence(a.title or "") for a in articles]
        parsed = sentence_parser.parse(heads)
        if args.titles:
            parsed = titles_as_prose(sentence_parser, heads, parsed)
    else:
        parsed = sentence_parser.parse([a.text for a in articles])
    sentences = sum(len(rows) for rows in parsed)
    triples = sum(len(s.relations) for rows in parsed for s in rows)
    print(f"{spec.extractor}: {len(articles)} articles of {args.corpus.name} (after {args.skip}), "
          f"{sentences} sentences, {sentence_parser.stats.tokens} tokens, {triples} triples, "
          f"{triples / max(sentences, 1):.3f} triples per sentence")
    if args.dump is not None:
        with args.dump.open("w", encoding="utf-8") as handle:
            for article, rows in zip(articles, parsed):
                for s in rows:
                    if s.relations:
                        handle.write(json.dumps({"article": article.id, "sentence": s.index, "text": s.text,
                                                 "triples": sorted(triple_text(r) for r in s.relations)}) + "\n")


if __name__ == "__main__":
    main()
