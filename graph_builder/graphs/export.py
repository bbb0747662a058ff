"""Export graphs to GraphML through networkx."""

from __future__ import annotations

from pathlib import Path

import networkx as nx

from graph_builder.graphs.graphset import GraphSet


def to_networkx(graphset: GraphSet, graph: str, measure: str | None = None) -> nx.DiGraph:
    """Return one graph as a networkx DiGraph: node attribute `count`, edge attribute `score`, no self-loops."""
    measure = graphset.check_measure(measure)
    g = graphset.graphs[graph]
    out = nx.DiGraph(name=graph, measure=measure, version=g.manifest["measures"][measure]["version"])
    for node, count in zip(g.nodes, g.counts):
        out.add_node(node, count=int(count))
    coo = g.csr(measure).tocoo()
    for r, c, v in zip(coo.row, coo.col, coo.data):
        if r != c:
            out.add_edge(g.nodes[r], g.nodes[c], score=float(v))
    return out


def export_graphml(graphset: GraphSet, out: Path, measure: str | None = None) -> list[Path]:
    """Write one `<graph>.graphml` per graph into `out` and return the paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in sorted(graphset.graphs):
        path = out / f"{name}.graphml"
        nx.write_graphml(to_networkx(graphset, name, measure), path)
        paths.append(path)
    return paths
