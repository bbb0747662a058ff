"""Accuracy of the benchmark builder's sense choosers on spans whose sense was read by hand.

    python bench/wsd.py [--triples out/ding2014/triples] [--verdicts bench/data/wsd_verdicts.tsv]

Each verdict names the WordNet senses that read right for the replaced span in its sentence (several when
WordNet's senses are too fine to tell apart; none when no sense fits, left out here). The sentences come
from the triples dataset the sample was drawn from (they are not stored in the repository). For each
chooser: how many spans it gave a sense (coverage) and how many of those were right (accuracy), with Wilson
95% intervals; `all` gives every sense, so its "accuracy" is the share of a span's senses that are right.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmark.reading import wilson  # noqa: E402
from benchmark.senses import SENSE_CHOOSERS, SpanInContext, sense_chooser  # noqa: E402
from benchmark.wordnet import open_wordnet  # noqa: E402
from graph_builder.triples import read_triples  # noqa: E402


def read_verdicts(path: Path) -> list[dict[str, str]]:
    """The hand-read spans: sentence_id, predicate, phrase, pos, senses (comma-separated)."""
    lines = [line.rstrip("\n") for line in path.open(encoding="utf-8") if not line.startswith("#") and line.strip()]
    head = lines[0].split("\t")
    return [dict(zip(head, line.split("\t"), strict=True)) for line in lines[1:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triples", type=Path, default=Path("out/ding2014/triples"))
    parser.add_argument("--verdicts", type=Path, default=Path(__file__).parent / "data" / "wsd_verdicts.tsv")
    args = parser.parse_args()
    if not args.triples.is_dir():
        sys.exit(f"{args.triples}: no triples dataset (run scripts/full_run.sh, or pass --triples)")
    verdicts = [v for v in read_verdicts(args.verdicts) if v["senses"]]
    table = read_triples(args.triples, columns=["sentence_id", "predicate", "subj_text", "predicate_text",
                                                "obj_text", "sentence"])
    wanted = pa.array(sorted({v["sentence_id"] for v in verdicts}))
    table = table.filter(pc.is_in(table["sentence_id"], value_set=wanted))
    context = {(r["sentence_id"], r["predicate"]): f"{r['subj_text']} {r['predicate_text']} {r['obj_text']}. "
               f"{r['sentence']}" for r in table.to_pylist()}
    missing = [v for v in verdicts if (v["sentence_id"], v["predicate"]) not in context]
    if missing:
        sys.exit(f"{len(missing)} read spans are not in {args.triples} (another extraction?)")
    wordnet = open_wordnet()
    spans = [SpanInContext(v["phrase"], v["pos"], context[(v["sentence_id"], v["predicate"])]) for v in verdicts]
    gold = [set(v["senses"].split(",")) for v in verdicts]
    print(f"{len(verdicts)} spans read by hand ({args.verdicts}); first-sense share of SemCor counts as "
          "the `agree` chooser's default threshold")
    print(f"{'chooser':<8} {'coverage':<24} accuracy")
    for name in SENSE_CHOOSERS:
        choices = sense_chooser(name).choose(spans, wordnet)
        if name == "all":
            right = sum(len(g & {s.name for s in wordnet.senses(sp.phrase, sp.pos)}) for sp, g in zip(spans, gold))
            given = sum(len(wordnet.senses(sp.phrase, sp.pos)) for sp in spans)
            lo, hi = wilson(right, given)
            print(f"{name:<8} {'every sense':<24} {right}/{given} senses right {100 * right / given:.1f}% "
                  f"[{100 * lo:.0f}, {100 * hi:.0f}]")
            continue
        answered = [(c, g) for c, g in zip(choices, gold, strict=True) if c]
        right = sum(1 for c, g in answered if c and set(c) & g)
        lo, hi = wilson(right, len(answered))
        clo, chi = wilson(len(answered), len(spans))
        coverage = f"{len(answered)}/{len(spans)} ({100 * len(answered) / len(spans):.0f}% [{100 * clo:.0f}, {100 * chi:.0f}])"
        print(f"{name:<8} {coverage:<24} {right}/{len(answered)} {100 * right / max(len(answered), 1):.1f}% "
              f"[{100 * lo:.0f}, {100 * hi:.0f}]")

if __name__ == "__main__":
    main()
