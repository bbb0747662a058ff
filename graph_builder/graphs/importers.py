"""Import published entailment graphs (Hosseini et al. 2018; Berant et al. 2011) into egqa artefacts, and write Hosseini text back.

Hosseini-style text: one `<types>_sim.txt` (or `_gsim.txt`) per type pair, a block per predicate with
sections of `neighbour score` lines. Berant et al. (2011): `<pred::t1::t2> TAB -> TAB <pred::t1::t2>`
rules, `-R>` swapping the arguments (only meaningful when both types are equal).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from graph_builder.errors import InputError
from graph_builder.graphs.artefacts import StagingDir, sha256_file, write_graph, write_graphset
from graph_builder.graphs.counts import graph_name, typed_node
from graph_builder.graphs.graphset import GraphSet

HOSSEINI_VERSION = "import.hosseini.v1"
BERANT_VERSION = "import.berant.v1"
SECTION_TITLES = {"binc": "BInc sims", "weeds": "Weed's sims", "lin": "Lin sims", "cos": "cos sims"}
_BERANT_PRED = re.compile(r"^<(?P<pred>[^<>]+?)::(?P<t1>[^:<>]+)::(?P<t2>[^:<>]+)>$")

# graph -> measure -> (premise node, hypothesis node) -> score
EdgeSets = dict[str, dict[str, dict[tuple[str, str], float]]]


def section_measure(title: str) -> str:
    """Return the measure name of a section title: `BInc sims` -> binc, `Weed's sims` -> weeds."""
    words = title.strip().lower().split()
    if words and words[-1] in ("sims", "sim"):
        words = words[:-1]
    name = re.sub(r"[^a-z0-9]+", "", "".join(words).replace("'s", "s"))
    if not name:
        raise InputError(f"section title {title!r} names no measure")
    return name


def _types_of_node(node: str) -> tuple[str, str]:
    parts = node.rsplit("#", 2)
    if len(parts) != 3:
        raise InputError(f"{node!r} is not a typed predicate pred#type1#type2")
    return parts[1].removesuffix("_1").removesuffix("_2"), parts[2].removesuffix("_1").removesuffix("_2")


def parse_hosseini(path: Path, edges: EdgeSets | None = None) -> EdgeSets:
    """Read one Hosseini-style graph file into graph -> measure -> edge -> score."""
    edges = edges if edges is not None else defaultdict(lambda: defaultdict(dict))
    graph: str | None = None
    premise: str | None = None
    measure: str | None = None
    with path.open(encoding="utf-8") as handle:
        for lineno, raw in enumerate(handle, 1):
            line = raw.strip()
            if not line or line.startswith("num neighbors"):
                continue
            if line.startswith("types:"):
                types = line[len("types:"):].split(",", 1)[0].strip()
                a, b = types.split("#", 1)
                graph = graph_name(a, b)
                continue
            if line.startswith("predicate:"):
                premise = line[len("predicate:"):].strip()
                measure = None
                if graph is None:
                    graph = graph_name(*_types_of_node(premise))
                edges[graph].setdefault("__nodes__", {})[(premise, premise)] = 0.0
                continue
            head, _, tail = line.rpartition(" ")
            try:
                score = float(tail)
            except ValueError:
                score = None
            if score is None or not head:
                if line.lower().endswith(("sims", "sim")):
                    measure = section_measure(line)
                    continue
                raise InputError(f"{path}:{lineno}: cannot read {line!r}")
            if premise is None or measure is None or graph is None:
                raise InputError(f"{path}:{lineno}: edge before any predicate/section header")
            edges[graph][measure][(premise, head.strip())] = score
    return edges


def _write_edge_sets(edges: EdgeSets, out: Path, version: str, kind: str, source: dict[str, Any],
                     overwrite: bool) -> dict[str, Any]:
    manifests = []
    with StagingDir(out, overwrite) as tmp:
        for name in sorted(edges):
            per_measure = {m: e for m, e in edges[name].items() if m != "__nodes__"}
            nodes_set = {p for p, _ in edges[name].get("__nodes__", {})}
            for e in per_measure.values():
                for p, q in e:
                    nodes_set.update((p, q))
            nodes = sorted(nodes_set)
            index = {n: i for i, n in enumerate(nodes)}
            degree = np.zeros(len(nodes), dtype=np.int64)
            matrices = {}
            for measure, e in sorted(per_measure.items()):
                rows = np.array([index[p] for p, _ in e], dtype=np.int64)
                cols = np.array([index[q] for _, q in e], dtype=np.int64)
                vals = np.array(list(e.values()), dtype=np.float64)
                matrices[measure] = sp.csr_matrix((vals, (rows, cols)), shape=(len(nodes), len(nodes)))
                off = rows != cols
                degree += np.bincount(rows[off], minlength=len(nodes)) + np.bincount(cols[off], minlength=len(nodes))
            if not matrices:
                continue
            # Imported scores keep the file's decimals (float64): float32 would change them in the 8th digit.
            manifests.append(write_graph(tmp / name, name, nodes, degree, matrices,
                                         {m: version for m in matrices}, {}, {"node_counts": "edges"}, source,
                                         score_dtype=np.float64))
        manifest = write_graphset(tmp, manifests, kind, source, {}, "edges")
    return manifest


def import_hosseini(src: Path, out: Path, overwrite: bool = False) -> dict[str, Any]:
    """Import a folder of Hosseini-style `*_sim.txt`/`*_gsim.txt` files (or one file) into `out`."""
    files = sorted(src.glob("*sim.txt")) if src.is_dir() else [src]
    if not files or not all(f.is_file() for f in files):
        raise InputError(f"{src}: no Hosseini graph files (*_sim.txt, *_gsim.txt)")
    edges: EdgeSets = defaultdict(lambda: defaultdict(dict))
    for f in files:
        parse_hosseini(f, edges)
    source = {"path": str(src), "format": "hosseini", "files": {f.name: sha256_file(f) for f in files},
              "rules": sum(len(e) for g in edges.values() for m, e in g.items() if m != "__nodes__")}
    return _write_edge_sets(edges, out, HOSSEINI_VERSION, "import.hosseini", source, overwrite)


def parse_berant(path: Path) -> tuple[EdgeSets, int, int]:
    """Read Berant et al.'s typed rules: return edge sets (same-type rules in both orientations),
    the rule count and the count of distinct typed predicates."""
    edges: EdgeSets = defaultdict(lambda: defaultdict(dict))
    rules = 0
    predicates: set[str] = set()
    with path.open(encoding="utf-8") as handle:
        for lineno, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            parts = raw.rstrip("\n").split("\t")
            if len(parts) != 3 or parts[1] not in ("->", "-R>"):
                raise InputError(f"{path}:{lineno}: expected '<pred::t1::t2> TAB ->|-R> TAB <pred::t1::t2>'")
            lhs, rhs = _BERANT_PRED.match(parts[0].strip()), _BERANT_PRED.match(parts[2].strip())
            if lhs is None or rhs is None:
                raise InputError(f"{path}:{lineno}: cannot read predicates in {raw.strip()!r}")
            rules += 1
            predicates.update((parts[0].strip(), parts[2].strip()))
            a1, a2, b1, b2 = lhs["t1"], lhs["t2"], rhs["t1"], rhs["t2"]
            name = graph_name(a1, a2)
            if {a1, a2} != {b1, b2}:
                raise InputError(f"{path}:{lineno}: rule crosses type pairs ({a1},{a2}) -> ({b1},{b2})")
            if a1 != a2:
                # Distinct types: the declared types already align the arguments.
                edges[name]["berant"][(typed_node(lhs["pred"], a1, a2), typed_node(rhs["pred"], b1, b2))] = 1.0
                continue
            swap = parts[1] == "-R>"
            for rev in (False, True):  # the rule holds with the t_1/t_2 roles named either way
                edges[name]["berant"][(typed_node(lhs["pred"], a1, a2, rev),
                                       typed_node(rhs["pred"], b1, b2, rev != swap))] = 1.0
    return edges, rules, len(predicates)


def import_berant(src: Path, out: Path, overwrite: bool = False) -> dict[str, Any]:
    """Import Berant et al. (2011) typed rules into `out`, one graph per type pair, score 1 per rule."""
    if not src.is_file():
        raise InputError(f"{src}: no Berant rule file")
    edges, rules, predicates = parse_berant(src)
    source = {"path": str(src), "format": "berant", "checksum": sha256_file(src), "rules": rules,
              "predicates": predicates}
    return _write_edge_sets(edges, out, BERANT_VERSION, "import.berant", source, overwrite)


IMPORTERS: dict[str, Callable[..., dict[str, Any]]] = {"hosseini": import_hosseini, "berant": import_berant}


def export_hosseini(graphset: GraphSet, out: Path) -> list[Path]:
    """Write every graph as a Hosseini-style `<graph>_sim.txt` holding all its measures."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, graph in sorted(graphset.graphs.items()):
        lines = [f"types: {name}, num preds: {len(graph.nodes)}"]
        csrs = {m: graph.csr(m) for m in sorted(graph.matrices)}
        for i, node in enumerate(graph.nodes):
            lines.append(f"predicate: {node}")
            first = next(iter(csrs.values()))
            lines.append(f"num neighbors: {first.indptr[i + 1] - first.indptr[i]}")
            lines.append("")
            for measure, m in csrs.items():
                lines.append(SECTION_TITLES.get(measure, f"{measure} sims"))
                lo, hi = m.indptr[i], m.indptr[i + 1]
                edges = sorted(zip(m.indices[lo:hi], m.data[lo:hi]), key=lambda e: (-e[1], graph.nodes[e[0]]))
                lines += [f"{graph.nodes[j]} {repr(float(v))}" for j, v in edges]
                lines.append("")
        path = out / f"{name}_sim.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths
