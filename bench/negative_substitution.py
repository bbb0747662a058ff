"""Does a negative's word, put in the positive's sentence, change the sentence's meaning as its kind predicts?

    python bench/negative_substitution.py [--store out/ding2014/evidence.db]
        [--read booqa-v4-test-seed5=../shared/data/booqa_ding2014_v4/test.jsonl ...]

A candidate filter for the benchmark builder, measured on the blind reads recorded under bench/data/reads
before it is built: for each negative read there, the words of the positive's predicate that the negative
replaced are replaced in the positive's sentence (from the evidence store: sentences are not stored in the
repository), and the sentence encoder's cosine of the two sentences is taken. Were the negatives of another
sense further from the original than those of the positive's sense, and the probably-true ones closer, the
cosine would be a word sense filter. Prints each kind's quartiles and the two AUCs (0.5: no separation).
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import sys
from pathlib import Path

import numpy as np
import orjson
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graph_builder.embeddings import SentenceEncoder  # noqa: E402

READS = Path(__file__).parent / "data" / "reads"
DEFAULT_READS = ("booqa-v4-test-seed5=../shared/data/booqa_ding2014_v4/test.jsonl",
                 "booqa-v2builder-test-seed11=out/ding2014/benchmark_v2/test.jsonl")
KINDS = ("same_sense", "other_sense", "probably_true")


def substitute(sentence: str, positive: str, negative: str) -> str | None:
    """The sentence with the positive predicate's replaced words swapped for the negative's (None: not found)."""
    pw, nw = positive.split(), negative.split()
    pairs = [(a, b) for a, b in zip(pw, nw, strict=True) if a != b] if len(pw) == len(nw) else [(positive, negative)]
    out = sentence
    for a, b in pairs:
        out = re.sub(rf"\b{re.escape(a)}\b", b, out, count=1)
    return out if out != sentence else None


def read_kinds(read: str) -> dict[str, str]:
    """Entry id -> the reader's kind, for the negatives of one recorded read."""
    key = {k["item"]: k for k in map(orjson.loads, (READS / read / "key.jsonl").read_bytes().splitlines())}
    kinds = {}
    for line in (READS / read / "sample.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith(("#", "item")) or not line.strip():
            continue
        item, _, kind = line.split("\t")
        if key[item]["label"] == 0 and kind in KINDS:
            kinds[key[item]["id"]] = kind
    return kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, default=Path("out/ding2014/evidence.db"))
    parser.add_argument("--read", action="append", default=None, metavar="READ=BENCHMARK_JSONL")
    args = parser.parse_args()
    if not args.store.is_file():
        sys.exit(f"no evidence store at {args.store}: run scripts/full_run.sh first")
    encoder = SentenceEncoder()
    db = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    for spec in args.read or DEFAULT_READS:
        read, _, bench = spec.partition("=")
        if not Path(bench).is_file():
            print(f"{read}: benchmark {bench} not found, skipped")
            continue
        entries = {e["id"]: e for e in map(orjson.loads, Path(bench).read_bytes().splitlines())}
        scored: dict[str, list[float]] = {k: [] for k in KINDS}
        missing = 0
        for entry_id, kind in read_kinds(read).items():
            negative = entries[entry_id]
            positive = entries[f"{negative['bundle_id']}-0"]
            row = db.execute("SELECT sentence FROM triples WHERE sentence_id = ? LIMIT 1",
                             (negative["exclude_sentence_ids"][0],)).fetchone() if negative["exclude_sentence_ids"] else None
            changed = substitute(row[0], positive["predicate_text"], negative["predicate_text"]) if row else None
            if changed is None:
                missing += 1
                continue
            v = encoder.encode([row[0], changed])
            scored[kind].append(float(v[0] @ v[1]))
        print(f"{read}: {sum(map(len, scored.values()))} negatives scored, {missing} without a substitution")
        for kind, xs in scored.items():
            q = np.percentile(xs, [25, 50, 75])
            print(f"  {kind:14s} n={len(xs):3d}  cosine quartiles {q[0]:.3f} {q[1]:.3f} {q[2]:.3f}")
        for a, b in (("same_sense", "other_sense"), ("probably_true", "same_sense")):
            auc = roc_auc_score([1] * len(scored[a]) + [0] * len(scored[b]), scored[a] + scored[b])
            print(f"  AUC, {a} above {b}: {auc:.3f}")


if __name__ == "__main__":
    main()
