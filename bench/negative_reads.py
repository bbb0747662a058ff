"""Which candidate negatives a corpus needs read, a reading sheet for them, and adding the filled sheets.

    python bench/negative_reads.py sheet TRIPLES OUT.tsv [--recipe read] [--parts N] [--seed S]
    python bench/negative_reads.py add SHEET.tsv [SHEET.tsv ...] [--reads benchmark/data/negative_reads.tsv]

`sheet` runs the benchmark builder's candidate stages with a recipe's filters (default `read`, the filters the
`checked` recipe applies before `negative_read`) and writes every candidate negative the reads do not cover, in
random order, as the readers see it: the date, the positive and the negative with their arguments, the argument
types, and an empty `verdict` column (F, T or O, see benchmark/negative_reads.py). With `--parts N` it writes N
sheets OUT-1.tsv ... OUT-N.tsv. The sheets hold argument names: keep them out of the repository.

`add` reads filled sheets (each candidate should be read by two readers, in two sheets) and appends one line per
candidate to the reads file: its digest and its readers' verdicts. A candidate already in the file is refused.
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmark import build as builder  # noqa: E402
from benchmark.negative_reads import READS_PATH, VERDICTS, load_negative_reads, negative_key  # noqa: E402
from benchmark.wordnet import open_wordnet  # noqa: E402
from graph_builder.errors import ArtefactError  # noqa: E402
from graph_builder.triples import read_articles, read_triples  # noqa: E402

SHEET_COLUMNS = ("id", "date", "positive", "negative", "types", "verdict")


def sheet(args: argparse.Namespace) -> None:
    if not args.triples.is_dir():
        sys.exit(f"{args.triples}: no triples dataset")
    reads = load_negative_reads(args.reads)
    config = builder.recipe_config(args.recipe, max_positives=args.max_positives)
    try:
        articles = read_articles(args.triples)
    except ArtefactError:
        articles = None
    pool = builder.candidate_negatives(read_triples(args.triples), open_wordnet(), config, articles)
    rows: list[tuple[str, ...]] = []
    for window in sorted(pool.bundles_by_window):
        for b in pool.bundles_by_window[window]:
            for c in b.candidates:
                key = negative_key(b.window, b.subj, b.obj, b.predicate, c.predicate)
                if reads.keeps(key) is None:
                    rows.append((key, b.date, f"{b.subj} | {b.predicate_text} | {b.obj}",
                                 f"{b.subj} | {pool.surface[c.predicate]} | {b.obj}", f"{b.subj_type}, {b.obj_type}"))
    random.Random(args.seed).shuffle(rows)
    outs = [args.out] if args.parts == 1 else [args.out.with_name(f"{args.out.stem}-{k + 1}{args.out.suffix}")
                                               for k in range(args.parts)]
    for k, out in enumerate(outs):
        with out.open("w", encoding="utf-8") as handle:
            handle.write("\t".join(SHEET_COLUMNS) + "\n")
            for row in rows[k * len(rows) // len(outs):(k + 1) * len(rows) // len(outs)]:
                handle.write("\t".join(row) + "\t\n")
    print(f"{len(rows):,} unread candidate negatives written to {', '.join(map(str, outs))}")


def add(args: argparse.Namespace) -> None:
    reads = load_negative_reads(args.reads)
    verdicts: dict[str, list[str]] = defaultdict(list)
    for path in args.sheets:
        with path.open(encoding="utf-8", newline="") as handle:
            for n, row in enumerate(csv.DictReader(handle, delimiter="\t"), 2):
                verdict = (row.get("verdict") or "").strip()
                if verdict not in VERDICTS:
                    sys.exit(f"{path}:{n}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
                verdicts[row["id"]].append(verdict)
    again = sorted(k for k in verdicts if reads.keeps(k) is not None)
    if again:
        sys.exit(f"{len(again)} candidate(s) already in {args.reads}, e.g. {again[0]}")
    with args.reads.open("a", encoding="utf-8") as handle:
        for key in sorted(verdicts):
            handle.write(f"{key}\t{','.join(verdicts[key])}\n")
    counts = defaultdict(int)
    for vs in verdicts.values():
        counts[len(vs)] += 1
    print(f"{len(verdicts):,} candidates added to {args.reads} (" +
          ", ".join(f"{n:,} read {k} time(s)" for k, n in sorted(counts.items())) + ")")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("sheet", help="write the unread candidate negatives of a corpus")
    make.add_argument("triples", type=Path)
    make.add_argument("out", type=Path)
    make.add_argument("--recipe", default="read", choices=sorted(builder.RECIPES))
    make.add_argument("--max-positives", type=int, default=5000)
    make.add_argument("--parts", type=int, default=1)
    make.add_argument("--seed", type=int, default=71)
    make.add_argument("--reads", type=Path, default=READS_PATH)
    make.set_defaults(run=sheet)
    merge = commands.add_parser("add", help="add filled sheets to the reads file")
    merge.add_argument("sheets", type=Path, nargs="+")
    merge.add_argument("--reads", type=Path, default=READS_PATH)
    merge.set_defaults(run=add)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
