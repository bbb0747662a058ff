"""Draw a random sample of the canonical-entities pass' merges to judge by hand (reproducible: fixed seed).

Reads a canonicalised triples dataset: its alias table (`entity_aliases.parquet`) and, for each drawn alias, one
triple where the pass renamed it (the names as extracted are in `names-*.parquet`), so the judge sees the sentence
and the article's surface form. Draws `--n` aliases uniformly from the merging rules (surname, leading words,
acronym, corpus) and `--n-legal` from the legal-form rule. Prints one JSON object per merge (with the sentence:
research data, keep the output outside the repository); `--verdicts FILE` (lines `alias<TAB>type<TAB>ok|wrong`)
prints the precision per rule with a Wilson 95% interval instead.
`--retyped` draws among the merges of a one-word name typed otherwise into a person (canonical-entities.v2) instead.
`--baseline OTHER` draws `--n` argument mentions uniformly among those whose canonical name differs between the two
runs of the pass over the same triples (a new version against the one before: every mention it renames anew), each
with its sentence, its surface, and both names; `--verdicts` then takes lines `triple_id<TAB>side<TAB>ok|wrong`
(ok: the new name is the entity the sentence means).
Usage: python bench/entity_merges.py out/ding2014/triples [--n 60] [--n-legal 20] [--seed 21] [--retyped]
       [--baseline out/before/triples] [--verdicts verdicts.tsv]
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


def changed_mentions(triples: Path, baseline: Path) -> list[dict[str, str]]:
    """Every argument mention whose canonical name differs between two runs of the pass over the same triples (the
    shards pair by name and hold the same rows in the same order), with both names, its surface and its sentence."""
    out: list[dict[str, str]] = []
    columns = ["triple_id", "article_id", "sentence", "subj", "subj_text", "subj_type", "obj", "obj_text", "obj_type"]
    for shard in shard_files(triples):
        new = pq.read_table(shard, columns=columns)
        old = pq.read_table(baseline / shard.name, columns=["triple_id", "subj", "obj"])
        if new["triple_id"] != old["triple_id"]:
            raise SystemExit(f"{shard.name}: the two datasets do not hold the same triples")
        for side in ("subj", "obj"):
            for i in pc.indices_nonzero(pc.not_equal(new[side], old[side])).to_pylist():
                row = new.slice(i, 1).to_pylist()[0]
                out.append({"triple_id": row["triple_id"], "side": side, "surface": row[f"{side}_text"],
                            "type": row[f"{side}_type"], "before": old[side][i].as_py(), "after": row[side],
                            "article_id": row["article_id"], "sentence": row["sentence"]})
    return out


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
    parser.add_argument("--baseline", type=Path,
                        help="the same triples canonicalised by another version: draw among the mentions renamed anew")
    args = parser.parse_args()
    if args.baseline:
        if args.verdicts:
            verdicts = [line.split("\t")[2].strip() for line in args.verdicts.read_text(encoding="utf-8").splitlines()
                        if line.strip() and not line.startswith("#")]
            ok = verdicts.count("ok")
            low, high = wilson(ok, len(verdicts))
            print(f"renamed anew   {ok}/{len(verdicts)} right = {100 * ok / len(verdicts):.0f}% "
                  f"[{100 * low:.0f}, {100 * high:.0f}]")
            return
        changed = changed_mentions(args.triples, args.baseline)
        print(json.dumps({"changed_mentions": len(changed)}), file=sys.stderr)
        for row in random.Random(args.seed).sample(changed, min(args.n, len(changed))):
            print(json.dumps(row, ensure_ascii=False))
        return
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
