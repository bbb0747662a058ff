"""Per unordered type pair, typed-predicate x argument-pair count matrices (REFERENCE §3).

A graph is named by its two types in sorted order (`location#person`). A node is a typed predicate
`pred#type_of_slot1#type_of_slot2`; its features are argument pairs written in the graph's type order,
so `(visit.1,visit.2)#person#location` and `(host.1,host.2)#location#person` share features. When both
types are equal the slots become `t_1`/`t_2` and each extraction is added in both orientations.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp

from graph_builder.errors import InputError

COUNT_COLUMNS = ["subj", "subj_type", "obj", "obj_type", "predicate", "negated"]
COUNT_SCHEMA = pa.schema([("graph", pa.string()), ("node", pa.string()), ("feature", pa.string()),
                          ("count", pa.int64())])
NEGATION_PREFIX = "NEG__"


@dataclass(frozen=True)
class CountParams:
    """Cutoffs, applied in this order: argument pairs need min_predicates_per_pair distinct
    predicates, then predicates need min_pairs_per_predicate surviving argument pairs."""

    min_predicates_per_pair: int = 3
    min_pairs_per_predicate: int = 3


@dataclass
class GraphCounts:
    """The count matrix of one graph after the cutoffs, rows in node-name order."""

    name: str
    types: tuple[str, str]
    nodes: list[str]
    matrix: sp.csr_matrix
    stats: dict[str, int] = field(default_factory=dict)

    @property
    def node_counts(self) -> npt.NDArray[np.int64]:
        """c(p): how often each typed predicate was seen with a surviving argument pair."""
        return np.asarray(self.matrix.sum(axis=1)).ravel().astype(np.int64)


def graph_name(type_a: str, type_b: str) -> str:
    """Return the name of the graph of an unordered type pair, e.g. `location#person`."""
    lo, hi = sorted((type_a, type_b))
    return f"{lo}#{hi}"


def typed_node(predicate: str, subj_type: str, obj_type: str, reversed_: bool = False) -> str:
    """Return the node of a predicate whose first slot has subj_type (same types: `t_1`/`t_2` slots)."""
    if subj_type == obj_type:
        first, second = (f"{subj_type}_2", f"{subj_type}_1") if reversed_ else (f"{subj_type}_1", f"{subj_type}_2")
        return f"{predicate}#{first}#{second}"
    return f"{predicate}#{obj_type}#{subj_type}" if reversed_ else f"{predicate}#{subj_type}#{obj_type}"


def _join(*parts: pa.ChunkedArray | pa.Array | str) -> pa.ChunkedArray:
    return pc.binary_join_element_wise(*parts, "#")


def partial_counts(table: pa.Table) -> pa.Table:
    """Aggregate triples into (graph, node, feature, count) rows, both orientations for same types."""
    missing = [c for c in COUNT_COLUMNS if c not in table.column_names]
    if missing:
        raise InputError(f"triples lack column(s) {missing}")
    if table.num_rows == 0:
        return COUNT_SCHEMA.empty_table()
    pred = table["predicate"]
    add_neg = pc.and_(table["negated"], pc.invert(pc.starts_with(pred, NEGATION_PREFIX)))
    pred = pc.if_else(add_neg, pc.binary_join_element_wise(NEGATION_PREFIX, pred, ""), pred)
    subj, obj = table["subj"], table["obj"]
    st, ot = table["subj_type"], table["obj_type"]
    same = pc.equal(st, ot)

    diff = pc.invert(same)
    d_st, d_ot = st.filter(diff), ot.filter(diff)
    d_s, d_o, d_p = subj.filter(diff), obj.filter(diff), pred.filter(diff)
    ordered = pc.less(d_st, d_ot)
    parts = [pa.table({
        "graph": _join(pc.if_else(ordered, d_st, d_ot), pc.if_else(ordered, d_ot, d_st)),
        "node": _join(d_p, d_st, d_ot),
        "feature": _join(pc.if_else(ordered, d_s, d_o), pc.if_else(ordered, d_o, d_s)),
    })]

    # Same types, a1 == a2 skipped: a pair `a#a` cannot tell the slots apart, and dropping it whole
    # keeps each t_1/t_2 graph exactly mirror-symmetric (scores do not depend on which slot is t_1).
    keep = pc.and_(same, pc.not_equal(subj, obj))
    s_t, s_s, s_o, s_p = st.filter(keep), subj.filter(keep), obj.filter(keep), pred.filter(keep)
    t1 = pc.binary_join_element_wise(s_t, "_1", "")
    t2 = pc.binary_join_element_wise(s_t, "_2", "")
    graph = _join(s_t, s_t)
    parts.append(pa.table({"graph": graph, "node": _join(s_p, t1, t2), "feature": _join(s_s, s_o)}))
    # Reversed orientation: the predicate's slot 1 plays t_2, the feature lists the t_1 argument first.
    parts.append(pa.table({"graph": graph, "node": _join(s_p, t2, t1), "feature": _join(s_o, s_s)}))
    rows = pa.concat_tables(parts)
    agg = rows.group_by(["graph", "node", "feature"]).aggregate([([], "count_all")])
    return agg.rename_columns({"count_all": "count"}).select(COUNT_SCHEMA.names).cast(COUNT_SCHEMA)


def merge_counts(parts: Iterable[pa.Table]) -> pa.Table:
    """Sum partial count tables (e.g. one per shard) into one."""
    tables = [p for p in parts if p.num_rows]
    if not tables:
        return COUNT_SCHEMA.empty_table()
    if len(tables) == 1:
        return tables[0]
    agg = pa.concat_tables(tables).group_by(["graph", "node", "feature"]).aggregate([("count", "sum")])
    return agg.rename_columns({"count_sum": "count"}).select(COUNT_SCHEMA.names).cast(COUNT_SCHEMA)


def _dense_rank(column: pa.ChunkedArray) -> npt.NDArray[np.int64]:
    # Codes in string order, so node ids and feature order never depend on row order.
    return pc.rank(column, sort_keys="ascending", tiebreaker="dense").to_numpy().astype(np.int64) - 1


def count_matrices(counts: pa.Table, params: CountParams = CountParams()) -> list[GraphCounts]:
    """Apply the cutoffs to aggregated counts and return one count matrix per surviving graph."""
    if counts.num_rows == 0:
        return []
    g = _dense_rank(counts["graph"])
    nd = _dense_rank(counts["node"])
    ft = _dense_rank(counts["feature"])
    cnt = counts["count"].to_numpy()
    n_feat = int(ft.max()) + 1
    graph_names = _names(counts["graph"], g)
    node_names = _names(counts["node"], nd)

    before_nodes = np.bincount(g[_first_of(nd)], minlength=len(graph_names))
    fkey = g * n_feat + ft
    _, inverse, per_feature = np.unique(fkey, return_inverse=True, return_counts=True)
    before_features = np.bincount(g[np.unique(fkey, return_index=True)[1]], minlength=len(graph_names))
    # Rows are unique per (node, feature), so rows per feature = its distinct predicates.
    keep = per_feature[inverse] >= params.min_predicates_per_pair
    per_node = np.bincount(nd[keep], minlength=len(node_names))
    keep &= per_node[nd] >= params.min_pairs_per_predicate
    g, nd, ft, cnt = g[keep], nd[keep], ft[keep], cnt[keep]

    out: list[GraphCounts] = []
    order = np.lexsort((ft, nd, g))
    g, nd, ft, cnt = g[order], nd[order], ft[order], cnt[order]
    bounds = np.r_[0, np.flatnonzero(np.diff(g)) + 1, g.size]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if lo == hi:
            continue
        gid = int(g[lo])
        u_nodes, rows = np.unique(nd[lo:hi], return_inverse=True)
        u_feats, cols = np.unique(ft[lo:hi], return_inverse=True)
        matrix = sp.csr_matrix((cnt[lo:hi].astype(np.float64), (rows, cols)),
                               shape=(u_nodes.size, u_feats.size))
        name = graph_names[gid]
        a, b = name.split("#", 1)
        out.append(GraphCounts(
            name=name, types=(a, b), nodes=[node_names[i] for i in u_nodes], matrix=matrix,
            stats={"nodes_before_cutoffs": int(before_nodes[gid]),
                   "features_before_cutoffs": int(before_features[gid]),
                   "nodes": int(u_nodes.size), "features": int(u_feats.size),
                   "nonzeros": int(hi - lo), "total_count": int(cnt[lo:hi].sum())}))
    return out


def _first_of(codes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    return np.unique(codes, return_index=True)[1]


def _names(column: pa.ChunkedArray, codes: npt.NDArray[np.int64]) -> list[str]:
    uniq, first = np.unique(codes, return_index=True)
    names = column.take(pa.array(first)).to_pylist()
    out = [""] * (int(uniq.max()) + 1 if uniq.size else 0)
    for code, name in zip(uniq, names):
        out[int(code)] = name
    return out
