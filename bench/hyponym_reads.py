"""Which hyponym replacements a corpus needs read, and a reading sheet for them.

    python bench/hyponym_reads.py TRIPLES [--reads benchmark/data/hyponym_reads.tsv] [--sheet F] [--top N]

Runs the benchmark builder's candidate stages over a triples dataset (every sense, the default filters, not
`hyponym_read`), counts the candidates each replacement (replaced word, part of speech, hyponym synset, lemma)
makes, and prints how many of them, and of the candidates, the reads cover. `--sheet` writes the unread ones,
commonest first, in the form they were read in: the replaced word with its two commonest predicate texts and
argument types, the WordNet sense it comes from, the hyponym synset with its lemmas and gloss, and the lemma.
Fill a verdict (S, Y, O or X, see benchmark/hyponym_reads.py) per sheet line and append the rows to the reads
file; `egqa benchmark build --negative-filter ... --negative-filter hyponym_read` then uses them.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmark import build as builder  # noqa: E402
from benchmark.hyponym_reads import READS_PATH, load_reads  # noqa: E402
from benchmark.wordnet import open_wordnet  # noqa: E402
from graph_builder.triples import read_triples  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("triples", type=Path)
    parser.add_argument("--reads", type=Path, default=READS_PATH)
    parser.add_argument("--sheet", type=Path, help="write the unread replacements here (TSV)")
    parser.add_argument("--top", type=int, default=0, help="at most this many sheet lines (0 = all)")
    args = parser.parse_args()
    if not args.triples.is_dir():
        sys.exit(f"{args.triples}: no triples dataset")
    reads = load_reads(args.reads)
    wordnet = open_wordnet()
    config = builder.BuildConfig(senses="all")
    pool = builder.candidate_negatives(read_triples(args.triples), wordnet, config)
    bundles, counts = pool.bundles_by_window, pool.counts
    made: Counter[tuple[str, str, str, str]] = Counter()
    frames: dict[tuple[str, str, str, str], Counter[str]] = {}
    for window_bundles in bundles.values():
        for bundle in window_bundles:
            for c in bundle.candidates:
                key = (c.replaced, c.pos, c.synset, c.lemma)
                made[key] += 1
                frames.setdefault(key, Counter())[
                    f"{pool.surface[bundle.predicate]} ({bundle.subj_type}, {bundle.obj_type})"] += 1
    read = {k for k in made if reads.verdict(*k) is not None}
    specific = {k for k in read if reads.verdict(*k) == "S"}
    total = sum(made.values())
    print(f"{len(made):,} replacements make {total:,} candidates in {counts['bundles_before_senses']:,} bundles; "
          f"read: {len(read):,} ({sum(made[k] for k in read) / max(total, 1):.1%} of the candidates); "
          f"read S: {len(specific):,} ({sum(made[k] for k in specific):,} candidates)")
    if args.sheet:
        unread = [k for k, _ in made.most_common() if k not in read]
        if args.top:
            unread = unread[:args.top]
        with args.sheet.open("w", encoding="utf-8") as handle:
            handle.write("replaced\tpos\tsynset\tlemma\tcandidates\ttypical use\tfrom sense\thyponym gloss\tverdict\n")
            for key in unread:
                replaced, pos, synset, lemma = key
                hyponym = wordnet.reader.synset(synset)
                parents = [s for s in hyponym.hypernyms() if replaced.replace(" ", "_") in
                           [n.lower() for n in s.lemma_names()]]
                parent = f"{parents[0].name()} = {parents[0].definition()}" if parents else ""
                use = "; ".join(t for t, _ in frames[key].most_common(2))
                handle.write(f"{replaced}\t{pos}\t{synset}\t{lemma}\t{made[key]}\t{use}\t{parent}\t"
                             f"[{', '.join(hyponym.lemma_names())}] {hyponym.definition()}\t\n")
        print(f"{len(unread):,} unread replacements written to {args.sheet}")


if __name__ == "__main__":
    main()
