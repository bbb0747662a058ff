"""Whether this tree's corpus extraction gives exactly the triples of another tree's (a speed change must not alter them).

Runs the corpus extraction path (`SentenceParser` over a fixed slice of a corpus) once with this tree's
`graph_builder` and once with the `--base` tree's (a git worktree of the commit to compare with, e.g.
`git worktree add /tmp/egqa-base 41d293b`), each in its own process, and compares every triple of every sentence
field by field (predicate, its surface words, negation, both arguments' normal form, text, type and entity flag),
in order. Prints `identical: N triples on M sentences`, or the sentences that differ and exits 1. The dumps hold
corpus text and are written to a temporary folder, never into the repository.
Usage: python bench/extraction_identical.py --base /tmp/egqa-base [--corpus FILE] [--skip 40000] [--articles 300]
       [--parser sm] [--show 20]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "reuters_ding2014" / "reuters_ding2014.jsonl.gz"


def dump(corpus: Path, skip: int, articles: int, parser: str, out: Path) -> None:
    """Extract the slice with whichever `graph_builder` is first on the path and write each sentence's triples."""
    import graph_builder
    from graph_builder.corpus import ReadReport, read_file
    from graph_builder.extraction import SentenceParser, load_pipeline

    sample = list(itertools.islice(read_file(corpus, ReadReport()), skip, skip + articles))
    parsed = SentenceParser(load_pipeline(parser), cache_size=0).parse([a.text for a in sample])
    rows = []
    for article, sentences in zip(sample, parsed):
        for s in sentences:
            triples = [[r.predicate, r.predicate_text, r.negated,
                        [r.subj.norm, r.subj.text, r.subj.type, r.subj.is_entity],
                        [r.obj.norm, r.obj.text, r.obj.type, r.obj.is_entity]] for r in s.relations]
            rows.append({"article": article.id, "sentence": s.index, "text": s.text, "triples": triples})
    out.write_text(json.dumps({"graph_builder": str(Path(graph_builder.__file__).parent), "rows": rows}))


def _run(tree: Path, args: argparse.Namespace, out: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, __file__, "--dump", str(out), "--corpus", str(args.corpus), "--skip",
                    str(args.skip), "--articles", str(args.articles), "--parser", args.parser], env=env, check=True)
    result = json.loads(out.read_text())
    used = Path(str(result["graph_builder"])).resolve()
    if used != (tree / "graph_builder").resolve():
        raise SystemExit(f"{tree} was asked for but {used} was imported")
    return result


def compare(ours: list[dict[str, object]], base: list[dict[str, object]], show: int) -> int:
    """Print whether two dumps agree; return the number of sentences that differ."""
    if [(r["article"], r["sentence"], r["text"]) for r in ours] != [(r["article"], r["sentence"], r["text"]) for r in base]:
        print("different sentences: the two trees split the slice differently")
        return max(len(ours), len(base))
    differ = [(a, b) for a, b in zip(ours, base) if a["triples"] != b["triples"]]
    triples = sum(len(r["triples"]) for r in ours)  # type: ignore[arg-type]
    if not differ:
        print(f"identical: {triples:,} triples on {len(ours):,} sentences")
        return 0
    print(f"DIFFERENT: {len(differ)} of {len(ours):,} sentences ({triples:,} triples here, "
          f"{sum(len(r['triples']) for r in base):,} in the base)")  # type: ignore[arg-type]
    for a, b in differ[:show]:
        print(f"- article {a['article']} sentence {a['sentence']}: {a['text']}")
        for t in b["triples"]:  # type: ignore[attr-defined]
            if t not in a["triples"]:  # type: ignore[operator]
                print(f"    base only: {t}")
        for t in a["triples"]:  # type: ignore[attr-defined]
            if t not in b["triples"]:  # type: ignore[operator]
                print(f"    here only: {t}")
    return len(differ)


def main() -> None:
    """Extract the slice with both trees and compare."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", type=Path, help="the other tree (a git worktree of the commit to compare with)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--skip", type=int, default=40_000, help="articles to skip first")
    parser.add_argument("--articles", type=int, default=300)
    parser.add_argument("--parser", default="sm", help="the extractor's spaCy pipeline (sm, md)")
    parser.add_argument("--show", type=int, default=20, help="differing sentences to print")
    parser.add_argument("--dump", type=Path, help=argparse.SUPPRESS)  # the child process's job
    args = parser.parse_args()
    if args.dump is not None:
        dump(args.corpus, args.skip, args.articles, args.parser, args.dump)
        return
    if args.base is None:
        parser.error("--base is required")
    with tempfile.TemporaryDirectory() as tmp:
        ours = _run(ROOT, args, Path(tmp) / "ours.json")
        base = _run(args.base.resolve(), args, Path(tmp) / "base.json")
    sys.exit(1 if compare(ours["rows"], base["rows"], args.show) else 0)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
