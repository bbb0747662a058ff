"""Per unordered type pair, typed-predicate x argument-pair count matrices (Hosseini et al. 2018).

A graph is named by its two types in sorted order (`location#person`). A node is a typed predicate
`pred#type_of_slot1#type_of_slot2`; its features are argument pairs written in the graph's type order,
so `(visit.1,visit.2)#person#location` and `(host.1,host.2)#location#person` share features. When both
types are equal the slots become `t_1`/`t_2` and each extraction is added in both orientations.

Every row is kept per sentence text (a 64-bit hash of it), so one pass gives two count matrices over
the same nodes and features: the published counts (one per extracted triple) and the clean counts
(one per distinct sentence, compared by `sentence_key`: a story update repeating a sentence adds nothing),
plus the co-extracted (p, q, f) triples of `co_extracted` (see there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import hashlib
import re

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp

from graph_builder.errors import InputError

COUNT_COLUMNS = ["subj", "subj_type", "obj", "obj_type", "predicate", "negated", "sentence"]
# The one type of an untyped build (`BuildParams.untyped`): every argument, whatever its type, so the set has one graph,
# `any#any`, holding the predicates whose type pairs are each too sparse for a typed graph. No typing pass gives it.
UNTYPED = "any"
COUNT_SCHEMA = pa.schema([("graph", pa.string()), ("node", pa.string()), ("feature", pa.string()),
                          ("cell", pa.int64()), ("count", pa.int64())])
CELL_KEYS = ["graph", "node", "feature", "cell"]
SENTENCE_SCHEMA = pa.schema([("cell", pa.int64()), ("sentence", pa.int64())])
NEGATION_PREFIX = "NEG__"
# A (sentence, argument pair) read into more predicates than this is not one statement (e.g. a corpus
# without sentence texts, where every triple has the same empty text); it excludes nothing.
MAX_BUNDLE = 32


@dataclass(frozen=True)
class CountParams:
    """Cutoffs, applied in this order: argument pairs need min_predicates_per_pair distinct
    predicates, then predicates need min_pairs_per_predicate surviving argument pairs."""

    min_predicates_per_pair: int = 3
    min_pairs_per_predicate: int = 3


IntArray = npt.NDArray[np.int64]


@dataclass
class Counts:
    """Aggregated counts: one row per (graph, node, feature) cell with its triples and a 64-bit cell
    hash, and the distinct (cell hash, sentence hash) pairs. Strings are kept once per cell, so
    memory grows with distinct cells plus 16 bytes per distinct (cell, sentence)."""

    cells: pa.Table
    sentences: pa.Table

    @property
    def num_rows(self) -> int:
        """Number of cells."""
        return self.cells.num_rows

    @classmethod
    def empty(cls) -> Counts:
        """No counts."""
        return cls(COUNT_SCHEMA.empty_table(), SENTENCE_SCHEMA.empty_table())


@dataclass
class GraphCounts:
    """The count matrices of one graph after the cutoffs, rows in node-name order.

    `matrix` counts extracted triples (the published counts), `clean` distinct sentence texts over
    the same non-zeros; `co_extracted` holds (p, q, f) index arrays, both orders, of features that
    p and q share only through sentences that state both (see `co_extracted`)."""

    name: str
    types: tuple[str, str]
    nodes: list[str]
    matrix: sp.csr_matrix
    stats: dict[str, int] = field(default_factory=dict)
    clean: sp.csr_matrix | None = None
    co_extracted: tuple[IntArray, IntArray, IntArray] | None = None

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


def negation_partners(nodes: list[str]) -> IntArray:
    """Return, per node, the row of its `NEG__` twin (or of its positive form), -1 when absent."""
    index = {node: i for i, node in enumerate(nodes)}
    out = np.full(len(nodes), -1, dtype=np.int64)
    for i, node in enumerate(nodes):
        twin = node[len(NEGATION_PREFIX):] if node.startswith(NEGATION_PREFIX) else NEGATION_PREFIX + node
        out[i] = index.get(twin, -1)
    return out


_TOKEN = re.compile(r"[a-z0-9]+")
SENTENCE_KEY_PREFIX = 4


def sentence_key(text: str) -> str:
    """Return the text a sentence is deduplicated by: its lowercase alphanumeric tokens cut to 4
    characters, as a sorted set. Reprints of one story that differ in punctuation, spelling
    (penalise/penalize, labour/labor) or word order collapse; different statements keep
    different token sets."""
    return " ".join(sorted({tok[:SENTENCE_KEY_PREFIX] for tok in _TOKEN.findall(text.lower())}))


def text_hashes(texts: pa.ChunkedArray | pa.Array, key: Callable[[str], str] | None = None) -> pa.Array:
    """Return a stable signed 64-bit hash (BLAKE2b) of each text (or of key(text)), each distinct text once."""
    encoded = pc.dictionary_encode(texts)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    prep = key or (lambda t: t)
    values = np.fromiter((int.from_bytes(hashlib.blake2b(prep(t).encode("utf-8"), digest_size=8).digest(), "little",
                                         signed=True) for t in encoded.dictionary.to_pylist()),
                         dtype=np.int64, count=len(encoded.dictionary))
    return pa.array(values[encoded.indices.to_numpy(zero_copy_only=False)], type=pa.int64())


def _join(*parts: pa.ChunkedArray | pa.Array | str) -> pa.ChunkedArray:
    return pc.binary_join_element_wise(*parts, "#")


def partial_counts(table: pa.Table) -> Counts:
    """Aggregate triples into count cells and (cell, sentence) pairs, both orientations for same types."""
    missing = [c for c in COUNT_COLUMNS if c not in table.column_names]
    if missing:
        raise InputError(f"triples lack column(s) {missing}")
    if table.num_rows == 0:
        return Counts.empty()
    pred = table["predicate"]
    add_neg = pc.and_(table["negated"], pc.invert(pc.starts_with(pred, NEGATION_PREFIX)))
    pred = pc.if_else(add_neg, pc.binary_join_element_wise(NEGATION_PREFIX, pred, ""), pred)
    subj, obj = table["subj"], table["obj"]
    st, ot = table["subj_type"], table["obj_type"]
    sent = text_hashes(table["sentence"], sentence_key)
    same = pc.equal(st, ot)

    diff = pc.invert(same)
    d_st, d_ot = st.filter(diff), ot.filter(diff)
    d_s, d_o, d_p = subj.filter(diff), obj.filter(diff), pred.filter(diff)
    ordered = pc.less(d_st, d_ot)
    parts = [pa.table({
        "graph": _join(pc.if_else(ordered, d_st, d_ot), pc.if_else(ordered, d_ot, d_st)),
        "node": _join(d_p, d_st, d_ot),
        "feature": _join(pc.if_else(ordered, d_s, d_o), pc.if_else(ordered, d_o, d_s)),
        "sentence": sent.filter(diff),
    })]

    # Same types, a1 == a2 skipped: a pair `a#a` cannot tell the slots apart, and dropping it whole
    # keeps each t_1/t_2 graph exactly mirror-symmetric (scores do not depend on which slot is t_1).
    keep = pc.and_(same, pc.not_equal(subj, obj))
    s_t, s_s, s_o, s_p = st.filter(keep), subj.filter(keep), obj.filter(keep), pred.filter(keep)
    s_h = sent.filter(keep)
    t1 = pc.binary_join_element_wise(s_t, "_1", "")
    t2 = pc.binary_join_element_wise(s_t, "_2", "")
    graph = _join(s_t, s_t)
    parts.append(pa.table({"graph": graph, "node": _join(s_p, t1, t2), "feature": _join(s_s, s_o), "sentence": s_h}))
    # Reversed orientation: the predicate's slot 1 plays t_2, the feature lists the t_1 argument first.
    parts.append(pa.table({"graph": graph, "node": _join(s_p, t2, t1), "feature": _join(s_o, s_s), "sentence": s_h}))
    rows = pa.concat_tables(parts)
    # A node names its graph, so node and feature identify a cell.
    rows = rows.append_column("cell", text_hashes(pc.binary_join_element_wise(rows["node"], rows["feature"], "\x1f")))
    cells = rows.group_by(CELL_KEYS).aggregate([([], "count_all")])
    cells = cells.rename_columns({"count_all": "count"}).select(COUNT_SCHEMA.names).cast(COUNT_SCHEMA)
    sentences = rows.select(["cell", "sentence"]).group_by(["cell", "sentence"]).aggregate([])
    return Counts(cells, sentences.select(SENTENCE_SCHEMA.names).cast(SENTENCE_SCHEMA))


def merge_counts(parts: Iterable[Counts]) -> Counts:
    """Sum partial counts (e.g. one per shard); a sentence repeated across shards stays one pair."""
    items = [p for p in parts if p.num_rows]
    if not items:
        return Counts.empty()
    if len(items) == 1:
        return items[0]
    cells = pa.concat_tables([p.cells for p in items]).group_by(CELL_KEYS).aggregate([("count", "sum")])
    cells = cells.rename_columns({"count_sum": "count"}).select(COUNT_SCHEMA.names).cast(COUNT_SCHEMA)
    for p in items:
        p.cells = COUNT_SCHEMA.empty_table()  # free each part's strings before the sentence merge
    sentences = pa.concat_tables([p.sentences for p in items]).group_by(["cell", "sentence"]).aggregate([])
    return Counts(cells, sentences.select(SENTENCE_SCHEMA.names).cast(SENTENCE_SCHEMA))


def dense_rank(column: pa.ChunkedArray | pa.Array) -> IntArray:
    """Return 0-based codes of a column's values in ascending (byte-wise string) order, equal values one code."""
    # Codes in string order, so node ids and feature order never depend on row order.
    return pc.rank(column, sort_keys="ascending", tiebreaker="dense").to_numpy().astype(np.int64) - 1


def count_matrices(counts: Counts, params: CountParams = CountParams()) -> list[GraphCounts]:
    """Apply the cutoffs to aggregated counts and return the count matrices of every surviving graph.

    Holds every cell in memory; `graph_builder.graphs.spill` gives the same graphs from spilled partitions."""
    if counts.num_rows == 0:
        return []
    cells = counts.cells
    g = dense_rank(cells["graph"])
    nd = dense_rank(cells["node"])
    ft = dense_rank(cells["feature"])
    raw = cells["count"].to_numpy()
    n_feat = int(ft.max()) + 1
    graph_names = names_of(cells["graph"], g)
    node_names = names_of(cells["node"], nd)
    # Each (cell, sentence) pair -> its cell's row; clean count = distinct sentences of the cell.
    by_hash = np.argsort(cells["cell"].to_numpy(), kind="stable")
    sorted_hash = cells["cell"].to_numpy()[by_hash]
    if sorted_hash.size > 1 and bool(np.any(sorted_hash[1:] == sorted_hash[:-1])):
        raise InputError("two count cells share a 64-bit hash; this build cannot tell them apart")
    pair_cell = by_hash[np.searchsorted(sorted_hash, counts.sentences["cell"].to_numpy())]
    pair_sent = counts.sentences["sentence"].to_numpy()
    clean = np.bincount(pair_cell, minlength=g.size)

    before_nodes = np.bincount(g[_first_of(nd)], minlength=len(graph_names))
    fkey = g * n_feat + ft
    _, inverse, per_feature = np.unique(fkey, return_inverse=True, return_counts=True)
    before_features = np.bincount(g[np.unique(fkey, return_index=True)[1]], minlength=len(graph_names))
    # Cells are unique per (node, feature), so cells per feature = its distinct predicates.
    keep = per_feature[inverse] >= params.min_predicates_per_pair
    per_node = np.bincount(nd[keep], minlength=len(node_names))
    keep &= per_node[nd] >= params.min_pairs_per_predicate
    pair_keep = keep[pair_cell]
    pair_cell, pair_sent = pair_cell[pair_keep], pair_sent[pair_keep]
    pair_order = np.lexsort((pair_sent, pair_cell, g[pair_cell]))
    pair_cell, pair_sent = pair_cell[pair_order], pair_sent[pair_order]
    idx = np.flatnonzero(keep)
    idx = idx[np.lexsort((ft[idx], nd[idx], g[idx]))]

    out: list[GraphCounts] = []
    pair_bounds = group_bounds(g[pair_cell])
    for (lo, hi), (s_lo, s_hi) in zip(group_bounds(g[idx]), pair_bounds):
        cell = idx[lo:hi]
        gid = int(g[cell[0]])
        pc_ = pair_cell[s_lo:s_hi]
        out.append(graph_counts(graph_names[gid], nd[cell], ft[cell], raw[cell], clean[cell], node_names,
                                (nd[pc_], ft[pc_], pair_sent[s_lo:s_hi]),
                                (int(before_nodes[gid]), int(before_features[gid]))))
    return out


def graph_counts(name: str, nodes: IntArray, feats: IntArray, raw: IntArray, clean: IntArray,
                 node_names: list[str], pairs: tuple[IntArray, IntArray, IntArray],
                 before: tuple[int, int]) -> GraphCounts:
    """Return one graph's count matrices from its cells that pass both cutoffs.

    `nodes`/`feats` are codes in string order (any codes that sort as the strings do; `node_names[code]` is
    the node), one cell each with its triple count `raw` and distinct-sentence count `clean`; `pairs` holds
    the (node code, feature code, sentence hash) rows of those cells; `before` the graph's (nodes, features)
    before the cutoffs. Rows and columns come out in string order, whatever the input order."""
    order = np.lexsort((feats, nodes))
    nodes, feats, raw, clean = nodes[order], feats[order], raw[order], clean[order]
    u_nodes, rows = np.unique(nodes, return_inverse=True)
    u_feats, cols = np.unique(feats, return_inverse=True)
    shape = (u_nodes.size, u_feats.size)
    matrix = sp.csr_matrix((raw.astype(np.float64), (rows, cols)), shape=shape)
    clean_m = sp.csr_matrix((clean.astype(np.float64), (rows, cols)), shape=shape)
    p_nodes, p_feats, p_sents = pairs
    co = co_extracted(np.searchsorted(u_nodes, p_nodes), np.searchsorted(u_feats, p_feats), p_sents, clean_m)
    a, b = name.split("#", 1)
    return GraphCounts(
        name=name, types=(a, b), nodes=[node_names[i] for i in u_nodes], matrix=matrix,
        stats={"nodes_before_cutoffs": before[0], "features_before_cutoffs": before[1],
               "nodes": int(u_nodes.size), "features": int(u_feats.size),
               "nonzeros": int(nodes.size), "total_count": int(raw.sum()),
               "clean_total_count": int(clean.sum()),
               "co_extracted_shared_features": int(co[0].size // 2)},
        clean=clean_m, co_extracted=co)


def co_extracted(nodes: IntArray, feats: IntArray, sents: npt.NDArray[np.int64],
                 clean: sp.csr_matrix) -> tuple[IntArray, IntArray, IntArray]:
    """Return (p, q, f), both orders, where p and q share feature f only through sentences stating both.

    One sentence read into several predicates with one argument pair ("raised its stake in B to 10
    pct from 5 pct" -> raise.stake.in, raise.stake.in...to, ...from) is one statement, not two
    observations that happen to agree. A shared feature f is evidence that p and q hold of the same
    pair only when some sentence states f with exactly one of them; if every sentence with (p, f)
    also has (q, f) and vice versa, the two sentence sets are equal and f is not shared evidence
    for the pair. Lower weights for such co-extractions would not do: two predicates that only ever
    co-occur have proportional rows and still score 1.0 both ways. The rule is per pair and per
    feature, so the clean measures subtract these triples from their shared-feature sums.
    Inputs are the rows (node, feature, sentence hash) of one graph, unique.
    """
    empty = (np.zeros(0, np.int64),) * 3
    if nodes.size == 0:
        return empty
    order = np.lexsort((nodes, sents, feats))
    nodes, feats, sents = nodes[order], feats[order], sents[order]
    starts = np.r_[0, np.flatnonzero((np.diff(feats) != 0) | (np.diff(sents) != 0)) + 1]
    sizes = np.diff(np.r_[starts, nodes.size])
    # Ordered pairs (a, b), a != b, inside each (feature, sentence) bundle, built without a Python loop.
    big = (sizes >= 2) & (sizes <= MAX_BUNDLE)
    if not big.any():
        return empty
    member_size = np.repeat(sizes, sizes)
    member_start = np.repeat(starts, sizes)
    elems = np.flatnonzero(np.repeat(big, sizes))
    reps = member_size[elems]
    a = np.repeat(elems, reps)
    b = np.repeat(member_start[elems], reps) + (np.arange(a.size) - np.repeat(np.cumsum(reps) - reps, reps))
    off = a != b
    p, q, f = nodes[a[off]], nodes[b[off]], feats[a[off]]
    n_nodes, n_feats = clean.shape
    key = (p * n_nodes + q) * n_feats + f
    ukey, joint = np.unique(key, return_counts=True)
    f = ukey % n_feats
    pq = ukey // n_feats
    p, q = pq // n_nodes, pq % n_nodes
    csr = clean.tocsr()
    c_pf = np.asarray(csr[p, f]).ravel()
    c_qf = np.asarray(csr[q, f]).ravel()
    gone = (joint == c_pf) & (joint == c_qf)
    return p[gone], q[gone], f[gone]


def group_bounds(codes: IntArray) -> list[tuple[int, int]]:
    """Return the (start, stop) of each run of equal codes in a sorted code array."""
    if codes.size == 0:
        return []
    cuts = np.r_[0, np.flatnonzero(np.diff(codes)) + 1, codes.size]
    return list(zip(cuts[:-1].tolist(), cuts[1:].tolist()))


def _first_of(codes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    return np.unique(codes, return_index=True)[1]


def names_of(column: pa.ChunkedArray | pa.Array, codes: IntArray) -> list[str]:
    """Return the value of each code of `dense_rank(column)`, indexed by code."""
    uniq, first = np.unique(codes, return_index=True)
    names = column.take(pa.array(first)).to_pylist()
    out = [""] * (int(uniq.max()) + 1 if uniq.size else 0)
    for code, name in zip(uniq, names):
        out[int(code)] = name
    return out
