"""A blind read of the triples an article's title gives (extractor v13), beside its body's, judged alike.

`sample` draws `--n` triples whose sentence is a title (sentence id `...:t000`) and `--n` from the bodies of the
same dataset (seed `--seed`), shuffles them together and writes to `--out`:

    sheet.tsv    item, the sentence, the triple as subject | predicate | object with the words as written, and an
                 empty `verdict` column: Y (the sentence states it, lenient: a generic argument is allowed; a
                 split or merged name, a wrong subject or object, an amount or a date as argument is not) or N.
                 It holds corpus sentences: keep it out of the repo.
    key.jsonl    item -> triple id and source (title or body): read by `judge` only

`judge DIR` scores `DIR/verdicts.tsv` (item, verdict) against `DIR/key.jsonl`: the share stated for title and for body
triples (or for a read's own groups, such as the `added` and `kept` triples of a title rule) with Wilson 95% intervals,
and their difference with Newcombe's interval. Judged reads (key and verdicts, no
text) are kept under bench/data/title_reads/.

Usage: python bench/title_read.py sample TRIPLES --out DIR [--n 100] [--seed 71]
       python bench/title_read.py judge DIR
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson  # noqa: E402

from bench.edge_read import newcombe  # noqa: E402
from bench.type_read import read_judged  # noqa: E402
from benchmark.reading import wilson  # noqa: E402
from graph_builder.triples import read_triples  # noqa: E402

VERDICTS = ("Y", "N")
SOURCES = ("title", "body")


def source_of(sentence_id: str) -> str:
    """Whether a triple comes from its article's title (`id:t000`) or its body (`id:0000`)."""
    return "title" if sentence_id.rsplit(":", 1)[-1].startswith("t") else "body"


def sample(triples: Path, out: Path, n: int, seed: int) -> None:
    """Draw n title and n body triples, shuffled together, into a sheet and its key."""
    columns = ["triple_id", "sentence_id", "subj_text", "predicate_text", "obj_text", "sentence"]
    rows = read_triples(triples, columns=columns).to_pylist()
    rng = random.Random(seed)
    drawn = []
    for source in SOURCES:
        pool = [r for r in rows if source_of(str(r["sentence_id"])) == source]
        drawn += [(source, r) for r in rng.sample(pool, min(n, len(pool)))]
    rng.shuffle(drawn)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "sheet.tsv").open("w", encoding="utf-8") as sheet, (out / "key.jsonl").open("wb") as key:
        sheet.write("item\tsentence\ttriple\tverdict\n")
        for k, (source, row) in enumerate(drawn):
            sentence = " ".join(str(row["sentence"]).split())
            triple = f"{row['subj_text']} | {row['predicate_text']} | {row['obj_text']}"
            sheet.write(f"r{k:03d}\t{sentence}\t{triple}\t\n")
            key.write(orjson.dumps({"item": f"r{k:03d}", "triple_id": row["triple_id"], "source": source}) + b"\n")
    print(f"{len(drawn)} triples drawn into {out / 'sheet.tsv'}")


def judge(folder: Path) -> dict[str, tuple[int, int]]:
    """(stated, read) per source."""
    key, verdicts = read_judged(folder, VERDICTS)
    counts = {source: [0, 0] for source in SOURCES if any(e["source"] == source for e in key.values())}
    for entry in key.values():
        counts.setdefault(entry["source"], [0, 0])  # another read's groups: "added" and "kept" (a title rule's)
    for item, entry in key.items():
        counts[entry["source"]][0] += verdicts[item] == "Y"
        counts[entry["source"]][1] += 1
    return {source: (stated, read) for source, (stated, read) in counts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    draw = commands.add_parser("sample")
    draw.add_argument("triples", type=Path)
    draw.add_argument("--out", type=Path, required=True)
    draw.add_argument("--n", type=int, default=100)
    draw.add_argument("--seed", type=int, default=71)
    score = commands.add_parser("judge")
    score.add_argument("folder", type=Path)
    args = parser.parse_args()
    if args.command == "sample":
        sample(args.triples, args.out, args.n, args.seed)
        return
    result = judge(args.folder)
    for source, (stated, read) in result.items():
        low, high = wilson(stated, read)
        print(f"{source:5s} stated {stated}/{read} = {100 * stated / max(read, 1):.0f}% [{100 * low:.0f}, {100 * high:.0f}]")
    if len(result) == 2:
        (first, (k1, n1)), (second, (k2, n2)) = result.items()
        if n1 and n2:
            low, high = newcombe(k1, n1, k2, n2)
            print(f"{first} - {second} {100 * (k1 / n1 - k2 / n2):+.0f} points [{100 * low:+.0f}, {100 * high:+.0f}]")


if __name__ == "__main__":
    main()
