"""Benchmark `egqa graph build`: time, peak memory, edges and artefact size on Reuters triples and Zipf
synthetic triples, pruned (the build defaults, top 100 neighbours and min score 0.01) against unpruned in
the same run, and the speed-up over a naive pure-Python reference build. Prints figures; not a test.

    python bench/graph_build.py [--sizes 1000000,10000000] [--reuters /work/data-out/reuters/triples]
    python bench/graph_build.py --sizes 250000,500000,1000000 --naive-size 0 --prune default   # scaling ratios
    python bench/graph_build.py --sizes 10000000 --prune default,none --work /tmp/zipf   # keep the triples
    python bench/graph_build.py --sizes 10000000 --prune none --measures binc,weeds,lin,cos,binc_clean
        # unpruned without the global step, whose unpruned input does not fit 23 GB at 10M rows
"""

from __future__ import annotations

import argparse
import json
import logging
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


def parse_pruning(spec: str) -> list[tuple[str, int, float]]:
    """`default,none,50:0.05` -> [(label, top_k (0 = all), min_score)]; `default` is BuildParams' own."""
    from graph_builder.graphs.build import DEFAULT_MIN_SCORE, DEFAULT_TOP_K

    out = []
    for item in (x.strip() for x in spec.split(",") if x.strip()):
        if item == "default":
            out.append((f"top {DEFAULT_TOP_K}, min {DEFAULT_MIN_SCORE:g}", DEFAULT_TOP_K, DEFAULT_MIN_SCORE))
        elif item == "none":
            out.append(("unpruned", 0, 0.0))
        else:
            k, _, m = item.partition(":")
            out.append((f"top {k}, min {float(m or 0):g}", int(k), float(m or 0)))
    return out


def disk_mb(folder: Path) -> float:
    """Bytes of every file under folder, in MB."""
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


class StageLog(logging.Handler):
    """Records each build log line with the seconds since the start and the peak RSS so far (this process)."""

    def __init__(self, t0: float) -> None:
        super().__init__(logging.INFO)
        self.t0 = t0
        self.stages: list[tuple[float, float, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Keep one line."""
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        self.stages.append((round(time.perf_counter() - self.t0, 1), round(rss), record.getMessage()[:120]))


def run_child(argv: list[str]) -> None:
    """Child process: run one build and print its figures as JSON (its own peak RSS)."""
    mode, triples, out = argv[0], Path(argv[1]), Path(argv[2])
    top_k, min_score = int(argv[3]), float(argv[4])
    measures = {"measures": tuple(argv[5].split(","))} if len(argv) > 5 and argv[5] else {}
    t0 = time.perf_counter()
    stages = StageLog(t0)
    logging.getLogger("graph_builder").addHandler(stages)
    logging.getLogger("graph_builder").setLevel(logging.INFO)
    if mode == "fast":
        from graph_builder.graphs.build import BuildParams, build_graphs
        s = build_graphs(triples, out, BuildParams(top_k=top_k or None, min_score=min_score, **measures),
                         overwrite=True, progress=False)
        result: dict[str, object] = {"graphs": s.graphs, "nodes": s.nodes, "edges": s.edges}
    else:
        edges = naive_build(triples)
        result = {"graphs": len(edges), "edges": {"binc": sum(1 for e in edges.values() for p, q in e if p != q)}}
    result["seconds"] = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the build's worker processes, once ended
    result["cpu_seconds"] = usage.ru_utime + usage.ru_stime  # steadier than wall time on a shared machine
    result["cpu_children_seconds"] = children.ru_utime + children.ru_stime
    result["peak_rss_mb"] = usage.ru_maxrss / 1024
    result["peak_rss_children_mb"] = children.ru_maxrss / 1024  # the largest one worker's peak
    result["stages"] = stages.stages
    result["disk_mb"] = disk_mb(out) if out.exists() else 0.0
    print(json.dumps(result))


def measure(mode: str, triples: Path, out: Path, top_k: int = 0, min_score: float = 0.0,
            measures: str = "") -> dict[str, object]:
    """Run a build in a fresh process and return its figures."""
    proc = subprocess.run([sys.executable, __file__, "_child", mode, str(triples), str(out), str(top_k),
                           str(min_score), measures], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def report(label: str, rows: int, r: dict[str, object]) -> None:
    """Print one line of figures."""
    edges = r["edges"]
    shown = "  ".join(f"{k} {v:,}" for k, v in edges.items()) if isinstance(edges, dict) else edges
    print(f"{label:<34} rows {rows:>11,}  {r['seconds']:>8.1f} s (cpu {r.get('cpu_seconds', 0):>7.1f} s"
          f" + workers {r.get('cpu_children_seconds', 0):>6.1f} s)  "
          f"peak {r['peak_rss_mb']:>8.0f} MB (a worker {r.get('peak_rss_children_mb', 0):>6.0f} MB)  "
          f"disk {r.get('disk_mb', 0):>8.1f} MB  graphs {r['graphs']}  nodes {r.get('nodes', '-')}  edges {shown}",
          flush=True)
    for seconds, rss, message in r.get("stages", []):
        print(f"    {seconds:>8.1f} s  peak so far {rss:>6} MB  {message}", flush=True)


def main() -> None:
    """Run the benchmark and print figures."""
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        run_child(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000000,10000000")
    ap.add_argument("--naive-size", type=int, default=50_000, help="0 skips the naive comparison")
    ap.add_argument("--prune", default="default,none",
                    help="builds per input, comma-separated: default (the build defaults), none (unpruned), "
                         "or K:MIN (top K neighbours, 0 = all, and a min score)")
    ap.add_argument("--measures", default="", help="comma-separated measures (default: the build's)")
    ap.add_argument("--reuters", type=Path, default=Path("/work/data-out/reuters/triples"))
    ap.add_argument("--work", type=Path, default=None,
                    help="keep synthetic triples and graphs here (reused when present) instead of a temp folder")
    args = ap.parse_args()
    configs = parse_pruning(args.prune)
    print(f"measures: {args.measures or 'the build defaults'}", flush=True)
    with tempfile.TemporaryDirectory(prefix="egqa-bench-") as tmp_name:
        tmp = args.work or Path(tmp_name)

        def builds(name: str, triples: Path, rows: int) -> list[dict[str, object]]:
            results = []
            for label, top_k, min_score in configs:
                r = measure("fast", triples, tmp / f"graphs-{triples.name}-k{top_k}-m{min_score:g}", top_k, min_score,
                            args.measures)
                report(f"{name} ({label})", rows, r)
                results.append(r)
            if len(results) > 1:
                first, *rest = results
                for (label, _, _), r in zip(configs[1:], rest):
                    print(f"  {configs[0][0]} vs {label}: time x{first['seconds'] / r['seconds']:.2f}  "
                          f"peak RSS x{first['peak_rss_mb'] / r['peak_rss_mb']:.2f}  "
                          f"disk x{first['disk_mb'] / max(r['disk_mb'], 1e-9):.3f}", flush=True)
            return results

        if args.reuters.is_dir() and any(args.reuters.glob("part-*.parquet")):
            rows = sum(pq.ParquetFile(f).metadata.num_rows for f in args.reuters.glob("part-*.parquet"))
            builds("reuters", args.reuters, rows)
        else:
            print(f"reuters: no triples at {args.reuters}, skipped")
        if args.naive_size:
            small = synthetic(args.naive_size, tmp / "naive-triples", seed=1)
            fast = measure("fast", small, tmp / "naive-fast")
            naive = measure("naive", small, tmp / "naive-out")
            report("zipf (egqa build, unpruned)", args.naive_size, fast)
            report("zipf (naive reference)", args.naive_size, naive)
            print(f"speed-up over naive: {naive['seconds'] / fast['seconds']:.1f}x  "
                  f"(binc edges egqa {fast['edges']['binc']:,} vs naive {naive['edges']['binc']:,})", flush=True)
        base: tuple[int, list[dict[str, object]]] | None = None
        for n in (int(x) for x in args.sizes.split(",") if x):
            folder = tmp / f"zipf-{n}"
            if not any(folder.glob("part-*.parquet")):
                synthetic(n, folder, seed=2)
            results = builds(f"zipf {n:,}", folder, n)
            if base is None:
                base = (n, results)
                continue
            for (label, _, _), r, b in zip(configs, results, base[1]):
                print(f"  {label}, vs {base[0]:,}: rows x{n / base[0]:.1f}  time x{r['seconds'] / b['seconds']:.2f}  "
                      f"peak RSS x{r['peak_rss_mb'] / b['peak_rss_mb']:.2f}", flush=True)


if __name__ == "__main__":
    main()
