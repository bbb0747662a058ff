"""A blind read of what a typing pass changed: for mentions whose type differs between two datasets of the same
triples, which of the two types is right?

`sample` pairs the mentions of OLD and NEW by triple id and side, draws `--n` of those whose type differs (seed
`--seed`; mentions listed in `--exclude` key files are left out), and writes to `--out`:

    sheet.tsv    item, the mention as written, its sentence, the two types in random order (`type A`, `type B`),
                 an empty `verdict` column: A, B or neither. It holds corpus sentences: keep it out of the repo.
    key.jsonl    item -> triple id, side, old and new type and which one is A: read by `judge` only

`judge DIR` scores `DIR/verdicts.tsv` (item, verdict) against `DIR/key.jsonl`: the share of mentions whose new
type is right, whose old type is right, and where neither is, with Wilson 95% intervals, over all mentions and
apart for mentions the recogniser had typed and those it had left `thing`. Judged reads (key and verdicts, no
text) are kept under bench/data/type_reads/.

Usage: python bench/type_read.py sample OLD NEW --out DIR [--n 100] [--seed 91] [--exclude KEY.jsonl ...]
       python bench/type_read.py judge DIR
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from collections import Counter
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson  # noqa: E402

from benchmark.reading import wilson  # noqa: E402
from graph_builder.extraction.arguments import UNKNOWN_TYPE  # noqa: E402
from graph_builder.triples import read_triples  # noqa: E402

VERDICTS = ("A", "B", "neither")


def sample(args: argparse.Namespace) -> None:
    columns = ["triple_id", "subj_text", "subj_type", "obj_text", "obj_type", "sentence"]
    old = read_triples(args.old, columns=columns).to_pylist()
    new = {r["triple_id"]: r for r in read_triples(args.new, columns=["triple_id", "subj_type", "obj_type"]).to_pylist()}
    skip = {(k["triple_id"], k["side"]) for path in args.exclude for k in map(orjson.loads, path.read_bytes().splitlines())}
    changed = [(r, side, new[r["triple_id"]][f"{side}_type"]) for r in old for side in ("subj", "obj")
               if r["triple_id"] in new and new[r["triple_id"]][f"{side}_type"] != r[f"{side}_type"]
               and (r["triple_id"], side) not in skip]
    rng = random.Random(args.seed)
    drawn = rng.sample(changed, min(args.n, len(changed)))
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "sheet.tsv").open("w", encoding="utf-8") as sheet, (args.out / "key.jsonl").open("wb") as key:
        sheet.write("item\tmention\tsentence\ttype A\ttype B\tverdict\n")
        for k, (row, side, new_type) in enumerate(drawn):
            options = [row[f"{side}_type"], new_type]
            rng.shuffle(options)
            sentence = " ".join(str(row["sentence"]).split())
            sheet.write(f"t{k:03d}\t{row[f'{side}_text']}\t{sentence}\t{options[0]}\t{options[1]}\t\n")
            key.write(orjson.dumps({"item": f"t{k:03d}", "triple_id": row["triple_id"], "side": side,
                                    "old": row[f"{side}_type"], "new": new_type, "A": options[0],
                                    "B": options[1]}) + b"\n")
    print(f"{len(drawn)} of {len(changed):,} changed mentions drawn into {args.out / 'sheet.tsv'}")


def read_judged(folder: Path, allowed: tuple[str, ...]) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """A read's key (item -> entry) and verdicts (item -> verdict), checked to name the same items with allowed
    verdicts."""
    key = {k["item"]: k for k in map(orjson.loads, (folder / "key.jsonl").read_bytes().splitlines())}
    with (folder / "verdicts.tsv").open(encoding="utf-8", newline="") as handle:
        verdicts = {r["item"]: r["verdict"].strip() for r in csv.DictReader(handle, delimiter="\t",
                                                                             quoting=csv.QUOTE_NONE)}
    if set(verdicts) != set(key):
        raise SystemExit(f"{folder}: the verdicts and the key name different items")
    for item, verdict in verdicts.items():
        if verdict not in allowed:
            raise SystemExit(f"{folder}: {item}: verdict {verdict!r} is not one of {', '.join(allowed)}")
    return key, verdicts


def judge(folder: Path) -> dict[str, dict[str, int]]:
    """Count, over all mentions and per group (typed, untyped), whose type the verdicts find right."""
    key, verdicts = read_judged(folder, VERDICTS)
    counts: dict[str, Counter[str]] = {"all": Counter(), "typed": Counter(), "untyped": Counter()}
    for item, entry in key.items():
        verdict = verdicts[item]
        outcome = "neither" if verdict == "neither" else ("new" if entry[verdict] == entry["new"] else "old")
        group = "untyped" if entry["old"] == UNKNOWN_TYPE else "typed"
        counts["all"][outcome] += 1
        counts[group][outcome] += 1
    return {g: dict(c) for g, c in counts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    draw = commands.add_parser("sample")
    draw.add_argument("old", type=Path)
    draw.add_argument("new", type=Path)
    draw.add_argument("--out", type=Path, required=True)
    draw.add_argument("--n", type=int, default=100)
    draw.add_argument("--seed", type=int, default=91)
    draw.add_argument("--exclude", type=Path, nargs="*", default=[])
    score = commands.add_parser("judge")
    score.add_argument("folder", type=Path)
    args = parser.parse_args()
    if args.command == "sample":
        sample(args)
        return
    for group, counts in judge(args.folder).items():
        n = sum(counts.values())
        if not n:
            continue
        parts = []
        for outcome in ("new", "old", "neither"):
            low, high = wilson(counts.get(outcome, 0), n)
            parts.append(f"{outcome} type right {counts.get(outcome, 0)}/{n} [{100 * low:.0f}, {100 * high:.0f}]")
        print(f"{group:8s} " + "; ".join(parts))


if __name__ == "__main__":
    main()
