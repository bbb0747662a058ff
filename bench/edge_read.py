"""A blind read of the edges a denser graph set adds: do the nodes it adds carry edges as plausible as the old ones?

Nodes are counted per typed graph (`organization#person` and its slot orders). Compared with a baseline graph set
(the same triples at stricter cutoffs, or fewer triples), a node of the new set is *added* when the baseline has
no node of that name in that graph, else *kept*. `sample` draws `--n` nodes of each group at random among the
nodes with at least one edge under `--measure` (self-edges skipped), takes each one's best edge as premise (ties:
the hypothesis seen in more triples, then by name), shuffles the two groups together and writes:

    sample.tsv   item, graph, premise -> hypothesis, and an empty `plausible` column (y/n): does the premise,
                 with these argument types, plausibly entail the hypothesis? Judge without knowing the group.
    key.jsonl    item -> group, score, reverse score and both nodes' triple counts: read by `judge` only

`judge` scores a filled sample.tsv: plausible share per group with Wilson 95% intervals, and the difference
added - kept with Newcombe's hybrid score interval (Newcombe 1998, method 10). "Without adding noise" reads as
an interval for the difference that covers 0 and a point estimate near it. Since a node's support (its triples)
decides much of how plausible its best edge reads, `judge` also compares the groups at equal support: the shares
per band of the premise's triple count (SUPPORT_BANDS), and the Mantel-Haenszel risk difference over the bands
(weights n_added * n_kept / n per band; Rothman, Modern Epidemiology, ch. 15) with a stratified bootstrap interval.

Usage: python bench/edge_read.py sample NEW_GRAPHS --baseline OLD_GRAPHS [--measure binc] [--n 40] [--seed 7]
           --out DIR
       python bench/edge_read.py judge DIR
The sample holds predicate names only (no corpus text); a judged read is kept under bench/data/edge_reads/.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import numpy as np  # noqa: E402
import orjson  # noqa: E402

from benchmark.reading import wilson  # noqa: E402
from graph_builder.errors import InputError  # noqa: E402
from graph_builder.graphs.artefacts import Graph  # noqa: E402
from graph_builder.graphs.graphset import GraphSet, lookup_scores  # noqa: E402

SAMPLE_FILE = "sample.tsv"
KEY_FILE = "key.jsonl"
GROUPS = ("added", "kept")
SUPPORT_BANDS = (4, 8, 16)  # lower bounds of the premise triple-count bands after the first: 1-3, 4-7, 8-15, 16+
BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class Edge:
    """One node's best edge, as drawn for the read."""

    group: str
    graph: str
    premise: str
    hypothesis: str
    score: float
    reverse: float
    premise_count: int
    hypothesis_count: int


def best_edge(graph: Graph, measure: str, row: int) -> tuple[int, float] | None:
    """The strongest edge out of `row` (self-edge skipped; ties: the more frequent hypothesis, then by name)."""
    data, indices, indptr = (np.asarray(x) for x in graph.matrices[measure])
    cols, vals = indices[indptr[row]:indptr[row + 1]], data[indptr[row]:indptr[row + 1]]
    keep = (cols != row) & (vals > 0)
    cols, vals = cols[keep], vals[keep]
    if cols.size == 0:
        return None
    top = vals.max()
    tied = cols[vals == top].tolist()
    best = min(tied, key=lambda c: (-int(graph.counts[c]), graph.nodes[c]))
    return int(best), float(top)


def draw(new: GraphSet, baseline: GraphSet, measure: str, n: int, seed: int) -> list[Edge]:
    """`n` added and `n` kept nodes' best edges, drawn at random, shuffled together."""
    measure = new.check_measure(measure)
    pools: dict[str, list[tuple[str, int]]] = {g: [] for g in GROUPS}
    for name, graph in sorted(new.graphs.items()):
        old = set(baseline.graphs[name].nodes) if name in baseline.graphs else set()
        indptr = np.asarray(graph.matrices[measure][2])
        for row, node in enumerate(graph.nodes):
            if indptr[row + 1] > indptr[row]:
                pools["kept" if node in old else "added"].append((name, row))
    rng = random.Random(seed)
    edges: list[Edge] = []
    for group in GROUPS:
        pool = pools[group]
        rng.shuffle(pool)
        drawn = 0
        for name, row in pool:
            if drawn == n:
                break
            graph = new.graphs[name]
            found = best_edge(graph, measure, row)
            if found is None:
                continue
            col, score = found
            reverse = lookup_scores(graph.matrices[measure], len(graph.nodes), np.array([col]), np.array([row]))[0]
            edges.append(Edge(group, name, graph.nodes[row], graph.nodes[col], score, float(reverse),
                              int(graph.counts[row]), int(graph.counts[col])))
            drawn += 1
        if drawn < n:
            raise InputError(f"only {drawn} {group} nodes with an edge; {n} asked")
    rng.shuffle(edges)
    return edges


def write_sample(edges: list[Edge], out: Path, source: dict[str, object]) -> None:
    """Write sample.tsv (blind) and key.jsonl."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / SAMPLE_FILE).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(["item", "graph", "premise", "hypothesis", "plausible"])
        for i, e in enumerate(edges):
            writer.writerow([f"e{i:03d}", e.graph, e.premise, e.hypothesis, ""])
    with (out / KEY_FILE).open("wb") as handle:
        for i, e in enumerate(edges):
            handle.write(orjson.dumps({"item": f"e{i:03d}", **e.__dict__, **source}) + b"\n")


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """Newcombe's hybrid score interval for p1 - p2 (method 10), from the two Wilson intervals."""
    p1, p2 = k1 / n1, k2 / n2
    (l1, u1), (l2, u2) = wilson(k1, n1), wilson(k2, n2)
    return (p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            p1 - p2 + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def support_band(count: int) -> str:
    """The band of a premise's triple count: '1-3', '4-7', '8-15' or '16+'."""
    lows = (1, *SUPPORT_BANDS)
    for low, high in zip(lows, (*SUPPORT_BANDS, None), strict=True):
        if high is None or count < high:
            return f"{low}+" if high is None else f"{low}-{high - 1}"
    raise AssertionError("unreachable")


Cells = dict[str, dict[str, tuple[int, int]]]  # band -> group -> (plausible, judged)


def mantel_haenszel_difference(cells: Cells) -> float:
    """Mantel-Haenszel risk difference added - kept over the bands: sum w (p_added - p_kept) / sum w, with
    w = n_added * n_kept / (n_added + n_kept); a band missing either group weighs 0."""
    num = den = 0.0
    for by_group in cells.values():
        (ka, na), (kk, nk) = by_group.get("added", (0, 0)), by_group.get("kept", (0, 0))
        if na and nk:
            w = na * nk / (na + nk)
            num += w * (ka / na - kk / nk)
            den += w
    if den == 0:
        raise InputError("no support band holds verdicts of both groups")
    return num / den


def stratified_interval(cells: Cells, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
                        level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the Mantel-Haenszel difference, each (band, group) cell's verdicts resampled with
    replacement at its own size (a binomial draw at the cell's share)."""
    rng = np.random.default_rng(seed)
    keys = [(band, group) for band, by_group in sorted(cells.items()) for group in sorted(by_group)]
    n = np.array([cells[b][g][1] for b, g in keys])
    p = np.array([cells[b][g][0] / cells[b][g][1] if cells[b][g][1] else 0.0 for b, g in keys])
    draws = rng.binomial(n, p, size=(resamples, len(keys)))
    estimates = []
    for row in draws:
        resampled: Cells = {}
        for (band, group), k, size in zip(keys, row, n, strict=True):
            resampled.setdefault(band, {})[group] = (int(k), int(size))
        estimates.append(mantel_haenszel_difference(resampled))
    tail = (1 - level) / 2
    low, high = np.quantile(estimates, [tail, 1 - tail])
    return float(low), float(high)


def judge(folder: Path) -> dict[str, object]:
    """Plausible share per group and the added - kept difference, from a filled sample.tsv; the same per band of
    premise support, and the difference at equal support."""
    keyed: dict[str, tuple[str, str]] = {}  # item -> (group, support band)
    with (folder / KEY_FILE).open("rb") as handle:
        for line in handle:
            if line.strip():
                record = orjson.loads(line)
                keyed[record["item"]] = (record["group"], support_band(int(record["premise_count"])))
    counts = {g: [0, 0] for g in GROUPS}
    cells: dict[str, dict[str, list[int]]] = {}
    with (folder / SAMPLE_FILE).open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle, delimiter="\t"), 2):
            value = (row.get("plausible") or "").strip().lower()
            if not value:
                continue
            if value not in ("y", "n"):
                raise InputError(f"{folder / SAMPLE_FILE}:{number}: plausible must be y or n, got {value!r}")
            if row["item"] not in keyed:
                raise InputError(f"{folder / SAMPLE_FILE}:{number}: item {row['item']!r} not in {KEY_FILE}")
            group, band = keyed[row["item"]]
            for tally in (counts[group], cells.setdefault(band, {}).setdefault(group, [0, 0])):
                tally[0] += value == "y"
                tally[1] += 1
    if any(n == 0 for _, n in counts.values()):
        raise InputError(f"{folder / SAMPLE_FILE}: every group needs at least one verdict, got {counts}")
    result: dict[str, object] = {g: {"plausible": k, "judged": n, "share": k / n, "ci": wilson(k, n)}
                                 for g, (k, n) in counts.items()}
    (ka, na), (kk, nk) = counts["added"], counts["kept"]
    result["added_minus_kept"] = {"difference": ka / na - kk / nk, "ci": newcombe(ka, na, kk, nk)}
    frozen: Cells = {band: {g: (k, n) for g, (k, n) in by_group.items()} for band, by_group in cells.items()}
    bands = [support_band(low) for low in (1, *SUPPORT_BANDS)]  # in order of support
    result["by_support"] = {band: {g: {"plausible": k, "judged": n} for g, (k, n) in sorted(frozen[band].items())}
                            for band in bands if band in frozen}
    try:
        result["added_minus_kept_equal_support"] = {
            "difference": mantel_haenszel_difference(frozen), "ci": stratified_interval(frozen),
            "method": f"Mantel-Haenszel over premise-support bands, stratified bootstrap "
                      f"({BOOTSTRAP_RESAMPLES}, seed 0)"}
    except InputError:
        result["added_minus_kept_equal_support"] = None  # no band holds both groups
    return result


def main() -> None:
    """Write a blind sample, or judge a filled one."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sample", help="write a blind sample of added and kept nodes' best edges")
    s.add_argument("graphs", type=Path)
    s.add_argument("--baseline", type=Path, required=True)
    s.add_argument("--measure", default="binc")
    s.add_argument("--n", type=int, default=40)
    s.add_argument("--seed", type=int, default=7)
    s.add_argument("--out", type=Path, required=True)
    j = sub.add_parser("judge", help="score a filled sample.tsv")
    j.add_argument("folder", type=Path)
    args = parser.parse_args()
    try:
        if args.command == "sample":
            edges = draw(GraphSet.load(args.graphs), GraphSet.load(args.baseline), args.measure, args.n, args.seed)
            write_sample(edges, args.out, {"graphs": str(args.graphs), "baseline": str(args.baseline),
                                           "measure": args.measure, "seed": args.seed})
            print(f"wrote {len(edges)} edges to {args.out / SAMPLE_FILE}")
        else:
            result = judge(args.folder)
            for g in GROUPS:
                r = result[g]
                assert isinstance(r, dict)
                lo, hi = r["ci"]
                print(f"{g:<6} plausible {r['plausible']}/{r['judged']} = {100 * r['share']:.0f}% "
                      f"[{100 * lo:.0f}, {100 * hi:.0f}]")
            d = result["added_minus_kept"]
            assert isinstance(d, dict)
            print(f"added - kept {100 * d['difference']:+.0f} points [{100 * d['ci'][0]:+.0f}, {100 * d['ci'][1]:+.0f}]")
            by_support = result["by_support"]
            assert isinstance(by_support, dict)
            for band, by_group in by_support.items():
                shares = "  ".join(f"{g} {c['plausible']}/{c['judged']}" for g, c in by_group.items())
                print(f"  premise support {band:>5}: {shares}")
            equal = result["added_minus_kept_equal_support"]
            if isinstance(equal, dict):
                print(f"added - kept at equal support {100 * equal['difference']:+.0f} points "
                      f"[{100 * equal['ci'][0]:+.0f}, {100 * equal['ci'][1]:+.0f}] ({equal['method']})")
    except InputError as exc:
        sys.exit(f"error: {exc}")


if __name__ == "__main__":
    main()
