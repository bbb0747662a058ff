"""Two graph sets (or two builds of one) on LevyHolt, paired: each scorer's AP_norm on both, and the difference
with a percentile-bootstrap interval over the same resampled pairs (a pair asked both ways is one unit).

Usage: python bench/levyholt_paired.py GRAPHS_A GRAPHS_B [--data ../shared/data/levyholt] [--scorer S ...]
Scorers that read text (`+lm`, `+smooth`, `lm_cosine`) need the `lm` extra.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from benchmark.levyholt import FORMATS, dataset_dirs, pair_batch, pair_units, read_rels, score_pairs  # noqa: E402
from benchmark.metrics import evaluate_scores, paired_difference  # noqa: E402
from graph_builder.embeddings import load_encoder  # noqa: E402
from graph_builder.graphs.graphset import GraphSet  # noqa: E402
from graph_builder.graphs.scorers import build_scorers  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "levyholt"


def main() -> None:
    """Score both sets and print the paired table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--scorer", action="append", default=None)
    args = parser.parse_args()
    names = args.scorer or ["binc_clean+smooth+act+lm+dir"]
    encoder = load_encoder()
    registries = [build_scorers(GraphSet.load(path), encoder=encoder) for path in (args.a, args.b)]
    for name in names:
        missing = [str(p) for p, r in zip((args.a, args.b), registries) if name not in r]
        if missing:
            parser.error(f"scorer {name!r} not offered by {', '.join(missing)}")
    print(f"A = {args.a}, B = {args.b}; AP_norm with 95% intervals, A - B paired over the same resampled pairs")
    for folder in dataset_dirs(args.data):
        named = folder / f"{folder.name}{FORMATS['rels']}"
        pairs = read_rels(named if named.is_file() else sorted(folder.glob(f"*{FORMATS['rels']}"))[0])
        labels = [p.label for p in pairs]
        units = pair_units(pairs)
        usable = [p for p in pairs if p.premise is not None and p.hypothesis is not None]
        for name in names:
            a, b = (score_pairs(r[name], pairs, pair_batch(usable))[0] for r in registries)
            ma, mb = (evaluate_scores(labels, s, groups=units, unit_name="pair") for s in (a, b))
            diff = paired_difference(labels, a, b, groups=units, unit_name="pair").as_dict()

            def cell(m: dict) -> str:
                return f"{100 * m['ap_norm']:.1f} [{100 * m['ap_norm_ci'][0]:.1f}, {100 * m['ap_norm_ci'][1]:.1f}]"
            lo, hi = diff["ap_norm_ci"]
            print(f"{folder.name:8s} {name:32s} A {cell(ma)}  B {cell(mb)}  A - B {100 * diff['ap_norm']:+.1f} "
                  f"[{100 * lo:+.1f}, {100 * hi:+.1f}]")


if __name__ == "__main__":
    main()
