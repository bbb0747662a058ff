"""Benchmark `egqa graph build`: time and peak memory on Reuters triples and Zipf synthetic triples,
and the speed-up over a naive pure-Python reference build. Prints figures; not a test.

    python bench/graph_build.py [--sizes 1000000,10000000] [--reuters /work/data-out/reuters/triples]
    python bench/graph_build.py --sizes 250000,500000,1000000 --naive-size 0 --top-k 100   # scaling ratios
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.synthetic import zipf_triples as synthetic  # noqa: E402

def naive_build(triples: Path, min_preds: int = 3, min_pairs: int = 3) -> dict[str, dict[tuple[str, str], float]]:
    """Reference build with dicts and a double loop over predicate pairs (BInc only)."""
    rows = []
    for f in sorted(triples.glob("part-*.parquet")):
        rows += pq.read_table(f, columns=["subj", "subj_type", "obj", "obj_type", "predicate"]).to_pylist()
    counts: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))
    for r in rows:
        s, st, o, ot, p = r["subj"], r["subj_type"], r["obj"], r["obj_type"], r["predicate"]
        if st == ot:
            if s == o:
                continue
            g = f"{st}#{st}"
            counts[g][f"{p}#{st}_1#{st}_2"][f"{s}#{o}"] += 1
            counts[g][f"{p}#{st}_2#{st}_1"][f"{o}#{s}"] += 1
        else:
            lo, hi = sorted((st, ot))
            counts[f"{lo}#{hi}"][f"{p}#{st}#{ot}"][f"{s}#{o}" if st == lo else f"{o}#{s}"] += 1
    out: dict[str, dict[tuple[str, str], float]] = {}
    for g, preds in counts.items():
        per_feat: dict[str, int] = defaultdict(int)
        for feats in preds.values():
            for f in feats:
                per_feat[f] += 1
        kept = {p: {f: c for f, c in feats.items() if per_feat[f] >= min_preds} for p, feats in preds.items()}
        kept = {p: feats for p, feats in kept.items() if len(feats) >= min_pairs}
        if not kept:
            continue
        total = sum(sum(f.values()) for f in kept.values())
        cf: dict[str, int] = defaultdict(int)
        for feats in kept.values():
            for f, c in feats.items():
                cf[f] += c
        w = {p: {f: max(math.log(c * total / (sum(feats.values()) * cf[f])), 0.0) for f, c in feats.items()}
             for p, feats in kept.items()}
        wsum = {p: sum(v.values()) for p, v in w.items()}
        edges = {}
        for p in kept:
            for q in kept:
                shared = kept[p].keys() & kept[q].keys()
                if not shared:
                    continue
                if p == q:
                    edges[(p, q)] = 1.0
                    continue
                sp_, sq = sum(w[p][f] for f in shared), sum(w[q][f] for f in shared)
                if sp_ > 0 and sq > 0:
                    lin = (sp_ + sq) / (wsum[p] + wsum[q])
                    edges[(p, q)] = math.sqrt(lin * sp_ / wsum[p])
        out[g] = edges
    return out


def run_child(argv: list[str]) -> None:
    """Child process: run one build and print its figures as JSON (its own peak RSS)."""
    mode, triples, out = argv[0], Path(argv[1]), Path(argv[2])
    top_k = int(argv[3]) if len(argv) > 3 and argv[3] != "none" else None
    t0 = time.perf_counter()
    if mode == "fast":
        from graph_builder.graphs.build import BuildParams, build_graphs
        s = build_graphs(triples, out, BuildParams(top_k=top_k), overwrite=True, progress=False)
        result = {"graphs": s.graphs, "nodes": s.nodes, "edges": s.edges}
    else:
        edges = naive_build(triples)
        result = {"graphs": len(edges), "edges": {"binc": sum(1 for e in edges.values() for p, q in e if p != q)}}
    result["seconds"] = time.perf_counter() - t0
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def measure(mode: str, triples: Path, out: Path, top_k: int | None = None) -> dict[str, object]:
    """Run a build in a fresh process and return its figures."""
    proc = subprocess.run([sys.executable, __file__, "_child", mode, str(triples), str(out), str(top_k or "none")],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def report(label: str, rows: int, r: dict[str, object]) -> None:
    """Print one line of figures."""
    print(f"{label:<28} rows {rows:>11,}  {r['seconds']:>8.1f} s  peak {r['peak_rss_mb']:>8.0f} MB  "
          f"graphs {r['graphs']}  nodes {r.get('nodes', '-')}  edges {r['edges']}", flush=True)


def main() -> None:
    """Run the benchmark and print figures."""
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        run_child(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1000000,10000000")
    ap.add_argument("--naive-size", type=int, default=50_000, help="0 skips the naive comparison")
    ap.add_argument("--top-k", type=int, default=None, help="neighbours kept per node in the sized builds")
    ap.add_argument("--reuters", type=Path, default=Path("/work/data-out/reuters/triples"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="egqa-bench-") as tmp_name:
        tmp = Path(tmp_name)
        if args.reuters.is_dir() and any(args.reuters.glob("part-*.parquet")):
            rows = sum(pq.ParquetFile(f).metadata.num_rows for f in args.reuters.glob("part-*.parquet"))
            report("reuters", rows, measure("fast", args.reuters, tmp / "reuters-graphs"))
        else:
            print(f"reuters: no triples at {args.reuters}, skipped")
        if args.naive_size:
            small = synthetic(args.naive_size, tmp / "naive-triples", seed=1)
            fast = measure("fast", small, tmp / "naive-fast")
            naive = measure("naive", small, tmp / "naive-out")
            report("zipf (egqa build)", args.naive_size, fast)
            report("zipf (naive reference)", args.naive_size, naive)
            print(f"speed-up over naive: {naive['seconds'] / fast['seconds']:.1f}x  "
                  f"(binc edges egqa {fast['edges']['binc']:,} vs naive {naive['edges']['binc']:,})", flush=True)
        base: tuple[int, dict[str, object]] | None = None
        for n in (int(x) for x in args.sizes.split(",") if x):
            folder = synthetic(n, tmp / f"zipf-{n}", seed=2)
            r = measure("fast", folder, tmp / f"graphs-{n}", args.top_k)
            report(f"zipf {n:,}", n, r)
            if base is None:
                base = (n, r)
            else:
                print(f"  vs {base[0]:,}: rows x{n / base[0]:.1f}  time x{r['seconds'] / base[1]['seconds']:.2f}  "
                      f"peak RSS x{r['peak_rss_mb'] / base[1]['peak_rss_mb']:.2f}", flush=True)


if __name__ == "__main__":
    main()
