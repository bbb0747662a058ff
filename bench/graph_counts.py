"""Benchmark the counting stage of `egqa graph build` alone: time, peak RSS and a digest of every graph's
count matrices, spilled to on-disk hash partitions (what builds run) against the in-memory merge of all
shards' counts (`count_triples` + `count_matrices`, the reference), each in a fresh process. Prints
figures; not a test. Synthetic triples as bench/graph_build.py writes them (`--work` keeps them).

    python bench/graph_counts.py --rows 10000000 --work /tmp/zipf
    python bench/graph_counts.py --rows 20000000 --work /tmp/zipf --modes spill --partition-rows 250000,1000000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.synthetic import zipf_triples  # noqa: E402
from graph_builder.graphs.counts import GraphCounts  # noqa: E402


def digest(graphs: Iterable[GraphCounts], totals: dict[str, int]) -> str:
    """SHA-256 over every graph's name, nodes, both count matrices and co-extractions; adds up totals."""
    h = hashlib.sha256()
    for g in graphs:
        h.update(g.name.encode())
        h.update("\n".join(g.nodes).encode())
        for m in (g.matrix, g.clean):
            for a in (m.indptr.astype(np.int64), m.indices.astype(np.int64), m.data):
                h.update(np.ascontiguousarray(a).tobytes())
        for a in g.co_extracted or ():
            h.update(a.tobytes())
        h.update(json.dumps(g.stats, sort_keys=True).encode())
        totals["graphs"] += 1
        totals["nodes"] += len(g.nodes)
        totals["nonzeros"] += g.matrix.nnz
    return h.hexdigest()


def run_child(mode: str, triples: Path, partition_rows: int) -> None:
    """Child process: count, read every graph's matrices once, print figures as JSON (its own peak RSS)."""
    t0 = time.perf_counter()
    totals = {"graphs": 0, "nodes": 0, "nonzeros": 0}
    result: dict[str, object] = {"mode": mode}
    if mode == "memory":
        from graph_builder.graphs.build import count_triples
        from graph_builder.graphs.counts import CountParams, count_matrices

        counts, rows = count_triples(triples, progress=False)
        result["digest"] = digest(count_matrices(counts, CountParams()), totals)
    else:
        from graph_builder.graphs.build import BuildParams, spilled_counts  # not in builds before the spill

        params = BuildParams(count_partition_rows=partition_rows)
        with tempfile.TemporaryDirectory(prefix="egqa-bench-counts-") as tmp:
            with spilled_counts(triples, Path(tmp), params, progress=False) as (spill, rows):
                result["partitions"] = spill.partitions
                result["digest"] = digest(spill.graphs(), totals)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result.update(rows=rows, seconds=time.perf_counter() - t0, cpu_seconds=usage.ru_utime + usage.ru_stime,
                  peak_rss_mb=usage.ru_maxrss / 1024, **totals)
    print(json.dumps(result))


def main() -> None:
    """Run the benchmark and print figures."""
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        run_child(sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--modes", default="memory,spill", help="memory (the in-memory reference), spill, or both")
    ap.add_argument("--partition-rows", default="250000,1000000", help="spill: comma-separated count_partition_rows")
    ap.add_argument("--work", type=Path, default=None, help="keep the synthetic triples here (reused when present)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="egqa-bench-") as tmp_name:
        folder = (args.work or Path(tmp_name)) / f"zipf-{args.rows}"
        if not any(folder.glob("part-*.parquet")):
            zipf_triples(args.rows, folder, seed=2)  # the triples of bench/graph_build.py
        runs = [("memory", 0)] if "memory" in args.modes else []
        if "spill" in args.modes:
            runs += [("spill", int(x)) for x in args.partition_rows.split(",") if x]
        digests = set()
        for mode, partition_rows in runs:
            proc = subprocess.run([sys.executable, __file__, "_child", mode, str(folder), str(partition_rows)],
                                  capture_output=True, text=True, check=True)
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            digests.add(r["digest"])
            label = ("in memory" if mode == "memory"
                     else f"spilled, {partition_rows:,} rows/partition ({r['partitions']})")
            print(f"{label:<42} rows {r['rows']:>11,}  {r['seconds']:>7.1f} s (cpu {r['cpu_seconds']:>7.1f} s)  "
                  f"peak {r['peak_rss_mb']:>7.0f} MB  graphs {r['graphs']}  nodes {r['nodes']:,}  "
                  f"nonzeros {r['nonzeros']:,}  digest {r['digest'][:12]}", flush=True)
        print(f"count matrices identical across runs: {len(digests) == 1}")


if __name__ == "__main__":
    main()
