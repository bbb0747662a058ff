"""A blind read of the relations extractor v14 marks as a condition's (`if__`, `unless__`), beside the unmarked
relations of the same sentences.

`sample STORE` takes the distinct sentences of a SQLite evidence store that hold "if" or "unless", shuffles them
(seed `--seed`), skips the first `--skip` and extracts the rest again with the current extractor until `--n`
relations under a condition's controller and `--n` without one are found; it draws `--n` of each (seed 5), writes
the marked ones without their controller, shuffles both together and writes to `--out`:

    sample.tsv   n, sentence, subject, predicate, object, and an empty `stated` column: A (the sentence asserts the
                 relation, in its main clause or a report, a modal or controlling verb included), C (only supposed:
                 inside an if, unless or whether clause), X (the relation is not in the sentence). It holds corpus
                 sentences: keep it out of the repo.
    key.tsv      n -> group: m (marked by the extractor) or p (not marked): read by `judge` only

`judge DIR` scores `DIR/verdicts.tsv` (n, stated) against `DIR/key.tsv`: per group the share of each verdict with
Wilson 95% intervals. Judged reads (key and verdicts, no text) are kept under bench/data/condition_reads/.

Usage: python bench/condition_read.py sample STORE.db --out DIR [--n 100] [--seed 2029] [--skip 400]
       python bench/condition_read.py judge DIR
"""

from __future__ import annotations

import argparse
import random
import re
import sqlite3
import sys
from collections import Counter
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmark.reading import wilson  # noqa: E402

VERDICTS = ("A", "C", "X")
GROUPS = {"m": "marked", "p": "not marked"}
CONDITION = re.compile(r"^(NEG__)?(if|unless)__(.*)$")
SENTENCES = ("SELECT DISTINCT sentence FROM triples WHERE lower(sentence) LIKE '% if %' OR lower(sentence) LIKE 'if %' "
             "OR lower(sentence) LIKE '% unless %' OR lower(sentence) LIKE 'unless %'")


def sample(store: Path, out: Path, n: int, seed: int, skip: int) -> None:
    """Draw n marked and n unmarked relations of conditional sentences, shuffled together, into a sheet and a key."""
    from graph_builder.extraction import extract_text

    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        sentences = [str(r[0]) for r in conn.execute(SENTENCES)]
    random.Random(seed).shuffle(sentences)
    marked: list[tuple[str, str, str, str]] = []
    plain: list[tuple[str, str, str, str]] = []
    for sentence in sentences[skip:]:
        for t in extract_text(sentence):
            predicate = str(t["predicate"])
            condition = CONDITION.match(predicate)
            if condition:
                marked.append((sentence, str(t["subject"]), (condition[1] or "") + condition[3], str(t["object"])))
            else:
                plain.append((sentence, str(t["subject"]), predicate, str(t["object"])))
        if len(marked) >= n and len(plain) >= n:
            break
    draw = random.Random(5)
    items = [("m", *x) for x in draw.sample(marked, min(n, len(marked)))]
    items += [("p", *x) for x in draw.sample(plain, min(n, len(plain)))]
    draw.shuffle(items)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "sample.tsv").open("w", encoding="utf-8") as sheet, (out / "key.tsv").open("w") as key:
        sheet.write("n\tsentence\tsubject\tpredicate\tobject\tstated\n")
        for k, (group, sentence, subj, predicate, obj) in enumerate(items, start=1):
            sheet.write(f"{k}\t{' '.join(sentence.split())}\t{subj}\t{predicate}\t{obj}\t\n")
            key.write(f"{k}\t{group}\n")
    print(f"{len(items)} relations drawn into {out / 'sample.tsv'} ({len(marked)} marked, {len(plain)} not, found)")


def judge(folder: Path) -> dict[str, Counter[str]]:
    """Verdict counts per group."""
    key = dict(line.rstrip("\n").split("\t") for line in (folder / "key.tsv").open())
    verdicts = dict(line.rstrip("\n").split("\t")[:2] for line in (folder / "verdicts.tsv").open() if line.strip())
    verdicts.pop("n", None)
    if set(verdicts) != set(key) or not set(verdicts.values()) <= set(VERDICTS):
        raise SystemExit(f"{folder}: verdicts.tsv must give one of {', '.join(VERDICTS)} for every item of key.tsv")
    counts: dict[str, Counter[str]] = {group: Counter() for group in GROUPS}
    for item, group in key.items():
        counts[group][verdicts[item]] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    draw = commands.add_parser("sample")
    draw.add_argument("store", type=Path)
    draw.add_argument("--out", type=Path, required=True)
    draw.add_argument("--n", type=int, default=100)
    draw.add_argument("--seed", type=int, default=2029)
    draw.add_argument("--skip", type=int, default=400)
    score = commands.add_parser("judge")
    score.add_argument("folder", type=Path)
    args = parser.parse_args()
    if args.command == "sample":
        sample(args.store, args.out, args.n, args.seed, args.skip)
        return
    for group, counts in judge(args.folder).items():
        read = sum(counts.values())
        shares = []
        for verdict in VERDICTS:
            low, high = wilson(counts[verdict], read)
            shares.append(f"{verdict} {counts[verdict]}/{read} = {100 * counts[verdict] / max(read, 1):.0f}% "
                          f"[{100 * low:.0f}, {100 * high:.0f}]")
        print(f"{GROUPS[group]:10s} " + "; ".join(shares))


if __name__ == "__main__":
    main()
