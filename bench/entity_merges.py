"""Draw a random sample of the canonical-entities pass' merges to judge by hand (reproducible: fixed seed).

Reads a canonicalised triples dataset: its alias table (`entity_aliases.parquet`) and, for each drawn alias, one
triple where the pass renamed it (the names as extracted are in `names-*.parquet`), so the judge sees the sentence
and the article's surface form. Draws `--n` aliases uniformly from the merging rules (surname, leading words,
acronym, corpus) and `--n-legal` from the legal-form rule. Prints one JSON object per merge (with the sentence:
research data, keep the output outside the repository); `--verdicts FILE` (lines `alias<TAB>type<TAB>ok|wrong`)
prints the precision per rule with a Wilson 95% interval instead.
`--retyped` draws among the merges of a one-word name typed otherwise into a person (canonical-entities.v2) instead.
Usage: python bench/entity_merges.py out/ding2014/triples [--n 60] [--n-legal 20] [--seed 21] [--retyped]
       [--verdicts verdicts.tsv]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import pyarrow.compute as pc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from graph_builder.entities import ALIASES_FILE  # noqa: E402
from graph_builder.triples import shard_files  # noqa: E402

MERGING_RULES = ("surname", "leading words", "acronym", "corpus")
RETYPED_RULES = ("surname, retyped", "corpus, retyped")  # canonical-entities.v2: a surname typed otherwise


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of k successes in n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def example(triples: Path, alias: str, type_: str, canonical: str) -> dict[str, str] | None:
    """One triple where `alias` (as extracted) became `canonical`: its sentence and the surface form."""
    for shard in shard_files(triples):
        names = pq.read_table(shard.with_name(f"names-{shard.stem.removeprefix('part-')}.parquet"))
        for side in ("subj", "obj"):
            hits = pc.indices_nonzero(pc.equal(names[side], alias)).to_pylist()
            if not hits:
                continue
            rows = pq.read_table(shard, columns=[side, f"{side}_text", f"{side}_type", "sentence", "article_id"])
            for i in hits:
                row = rows.slice(i, 1).to_pylist()[0]
                if row[side] == canonical:
                    return {"surface": row[f"{side}_text"], "article_id": row["article_id"], "sentence": row["sentence"]}
    return None


def main() -> None:
    """Print the sample, or the precision of judged verdicts."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("triples", type=Path)
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--n-legal", type=int, default=20)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--verdicts", type=Path)
    parser.add_argument("--retyped", action="store_true",
                        help="draw --n merges among the v2 rules that retype a surname (no legal forms)")
    args = parser.parse_args()
    aliases = pq.read_table(args.triples / ALIASES_FILE).to_pylist()
    if args.verdicts:
        rule_of = {(a["alias"], a["type"]): a["rule"] for a in aliases}
        tally: dict[str, list[int]] = {}
        for line in args.verdicts.read_text(encoding="utf-8").splitlines():
            if line.startswith("#"):
                continue
            alias, type_, verdict = line.split("\t")[:3]
            rule = rule_of[(alias, type_)]
            rule = rule if rule in ("legal form", *RETYPED_RULES) else "merging rules"
            tally.setdefault(rule, [0, 0])
            tally[rule][0] += verdict == "ok"
            tally[rule][1] += 1
        for rule, (ok, n) in sorted(tally.items()):
            low, high = wilson(ok, n)
            print(f"{rule:<14} {ok}/{n} right = {100 * ok / n:.0f}% [{100 * low:.0f}, {100 * high:.0f}]")
        return
    rng = random.Random(args.seed)
    rules = RETYPED_RULES if args.retyped else MERGING_RULES
    merging = sorted((a for a in aliases if a["rule"] in rules), key=lambda a: (a["alias"], a["type"]))
    legal = [] if args.retyped else sorted((a for a in aliases if a["rule"] == "legal form"),
                                           key=lambda a: (a["alias"], a["type"]))
    for row in rng.sample(merging, min(args.n, len(merging))) + rng.sample(legal, min(args.n_legal, len(legal))):
        print(json.dumps({**row, "example": example(args.triples, row["alias"], row["type"], row["canonical"])},
                         ensure_ascii=False))


if __name__ == "__main__":
    main()
