"""Counting bounded in memory: partial counts spilled to on-disk hash partitions, cut, then read graph by graph.

`count_matrices` merges every shard's partial counts into one table of all distinct (graph, node, feature)
cells, so its memory follows the input. Here each chunk's partial counts go to disk (Arrow IPC files, no
pickles), split by a hash of (graph, argument pair): every cell of one argument pair of one graph lands in
one partition, so the first cutoff (distinct predicates per argument pair) is decided one partition at a
time. The second (surviving argument pairs per predicate) needs only a per-node total, summed over the
partitions. The cells that pass the first cutoff are written again, grouped by graph, and each graph's
matrices are assembled from its own groups only, one graph at a time, by `counts.graph_counts`: the same
function `count_matrices` uses, so both give the same matrices.

Memory is then one chunk's partial counts, one partition's cells, the per-node totals (64-bit hashes) and one
graph's cells past both cutoffs (what scoring that graph needs anyway), not the whole input.

The same pass also counts, before any cutoff, the distinct argument pairs of every predicate of the input
(`CountSpill.generality`): how general a predicate is (`+dir`), known for predicates no graph keeps as well.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
from tqdm import tqdm

from graph_builder.errors import InputError
from graph_builder.graphs.generality import GENERALITY_SCHEMA
from graph_builder.graphs.counts import (CELL_KEYS, COUNT_SCHEMA, SENTENCE_SCHEMA, Counts, CountParams, GraphCounts,
                                         IntArray, dense_rank, graph_counts, group_bounds, names_of, text_hashes)

# Cells past the first cutoff, grouped by graph (so without it), with their clean count (distinct sentences)
# and the hash of their node, by which the second cutoff is applied as they are read back.
SURVIVOR_SCHEMA = pa.schema([("node", pa.string()), ("feature", pa.string()), ("cell", pa.int64()),
                             ("count", pa.int64()), ("clean", pa.int64()), ("node_hash", pa.int64())])
# lz4: spilled files are written once and read once, so a fast codec.
IPC_OPTIONS = ipc.IpcWriteOptions(compression="lz4")

# Where a group of rows was spilled: the file and the numbers of its record batches there.
Refs = list[tuple[Path, list[int]]]
# A file's record batches per group code (partition, or graph within a partition).
BatchIndex = dict[int, list[int]]


def partition_of(cells: pa.Table, partitions: int) -> IntArray:
    """Return the partition of each cell: a hash of its graph and argument pair (feature) modulo `partitions`."""
    if partitions == 1:
        return np.zeros(cells.num_rows, dtype=np.int64)
    mixed = (text_hashes(cells["feature"]).to_numpy().view(np.uint64)
             ^ text_hashes(cells["graph"]).to_numpy().view(np.uint64))
    return (mixed % np.uint64(partitions)).astype(np.int64)


def write_groups(path: Path, table: pa.Table, codes: IntArray) -> BatchIndex:
    """Write a table whose rows are sorted by `codes` to an Arrow IPC file; return code -> its batch numbers."""
    index: BatchIndex = {}
    written = 0
    with ipc.new_file(str(path), table.schema, options=IPC_OPTIONS) as writer:
        for lo, hi in group_bounds(codes):
            batches = [b for b in table.slice(lo, hi - lo).to_batches() if b.num_rows]
            for batch in batches:
                writer.write_batch(batch)
            index[int(codes[lo])] = list(range(written, written + len(batches)))
            written += len(batches)
    return index


def iter_groups(refs: Refs) -> Iterator[pa.RecordBatch]:
    """Read spilled record batches one at a time, into memory (not memory-mapped: what counting holds
    shows as its RSS)."""
    for path, numbers in refs:
        with pa.OSFile(str(path)) as handle:
            reader = ipc.open_file(handle)
            for i in numbers:
                yield reader.get_batch(i)


def read_groups(refs: Refs, schema: pa.Schema) -> pa.Table:
    """Read spilled record batches into one table."""
    return pa.Table.from_batches(list(iter_groups(refs)), schema)


def member(values: IntArray, sorted_set: IntArray) -> npt.NDArray[np.bool_]:
    """Return whether each value is in a sorted array."""
    if sorted_set.size == 0:
        return np.zeros(values.size, dtype=bool)
    at = np.minimum(np.searchsorted(sorted_set, values), sorted_set.size - 1)
    return sorted_set[at] == values


def release_memory() -> None:
    """Hand Arrow's freed memory back to the system: its allocator keeps it otherwise, and what one
    partition or graph freed would add up as resident memory over the next ones."""
    pa.default_memory_pool().release_unused()


def _sorted_by(codes: IntArray) -> tuple[IntArray, IntArray]:
    order = np.argsort(codes, kind="stable")
    return order, codes[order]


def _cell_positions(hashes: IntArray, wanted: IntArray) -> IntArray:
    """Return, for each wanted cell hash, the row of `hashes` holding it (hashes must be unique)."""
    by_hash = np.argsort(hashes, kind="stable")
    sorted_hash = hashes[by_hash]
    _check_unique(sorted_hash)
    return by_hash[np.searchsorted(sorted_hash, wanted)]


def _check_unique(sorted_hashes: IntArray) -> None:
    if sorted_hashes.size > 1 and bool(np.any(sorted_hashes[1:] == sorted_hashes[:-1])):
        raise InputError(HASH_CLASH)


@dataclass
class _GraphBefore:
    nodes: int = 0
    features: int = 0


def predicate_pairs(cells: pa.Table) -> pa.Table:
    """Per untyped predicate, the cells of `cells` (distinct (node, argument pair)); a same-type graph's node
    whose first slot is `t_2` mirrors the `t_1` one and is not counted again."""
    parts = pc.split_pattern(cells["node"], "#", max_splits=2, reverse=True)  # predicate, first slot, second slot
    first = pc.list_element(parts, 1)
    table = pa.table({"predicate": pc.list_element(parts, 0), "pairs": cells["count"]})
    return _sum_pairs(table.filter(pc.invert(pc.ends_with(first, "_2"))), count=True)


def _sum_pairs(table: pa.Table, count: bool = False) -> pa.Table:
    how = "count" if count else "sum"
    aggregated = table.group_by("predicate").aggregate([("pairs", how)]).rename_columns({f"pairs_{how}": "pairs"})
    return aggregated.select(GENERALITY_SCHEMA.names).cast(GENERALITY_SCHEMA)


HASH_CLASH = "two count cells share a 64-bit hash; this build cannot tell them apart"


@dataclass
class NodeTotals:
    """Per node, its cells that passed the first cutoff, summed over partitions: the node as a 64-bit hash of
    its name with its graph's id, 24 bytes a node whatever its name, sorted by hash."""

    node: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    graph: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    kept: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))

    def add(self, node: IntArray, graph: IntArray, kept: IntArray) -> None:
        """Add one partition's cells: each one's node hash, graph id and 1 if it passed the first cutoff."""
        u, first, inverse = np.unique(node, return_index=True, return_inverse=True)
        node = np.concatenate([self.node, u])
        graph = np.concatenate([self.graph, graph[first]])
        kept = np.concatenate([self.kept, np.bincount(inverse, weights=kept, minlength=u.size).astype(np.int64)])
        order = np.argsort(node, kind="stable")  # two sorted runs: a merge
        node, graph, kept = node[order], graph[order], kept[order]
        start = np.r_[0, np.flatnonzero(np.diff(node)) + 1]
        if not np.array_equal(np.minimum.reduceat(graph, start), np.maximum.reduceat(graph, start)):
            raise InputError(HASH_CLASH.replace("count cells", "nodes"))  # a node names its graph
        self.node, self.graph, self.kept = node[start], graph[start], np.add.reduceat(kept, start)


@dataclass
class CountSpill:
    """Partial counts spilled to `folder` in `partitions` hash partitions; `add` each chunk, then `cut`,
    then iterate `graphs()`. The caller owns the folder (a temporary directory removed on any exit)."""

    folder: Path
    partitions: int
    params: CountParams = CountParams()
    chunks: list[tuple[Path, BatchIndex, Path, BatchIndex]] = field(default_factory=list, init=False)
    survivors: dict[str, tuple[Refs, Refs]] = field(default_factory=dict, init=False)
    before: dict[str, _GraphBefore] = field(default_factory=dict, init=False)
    kept_nodes: dict[str, IntArray] = field(default_factory=dict, init=False)  # sorted node hashes per graph
    graph_ids: dict[str, int] = field(default_factory=dict, init=False)
    # Per predicate, its distinct argument pairs before the cutoffs, summed over partitions (GENERALITY_SCHEMA).
    _generality: pa.Table = field(default_factory=lambda: GENERALITY_SCHEMA.empty_table(), init=False)

    def __post_init__(self) -> None:
        if self.partitions < 1:
            raise InputError(f"partitions must be at least 1, got {self.partitions}")
        (self.folder / "chunks").mkdir(parents=True, exist_ok=True)
        (self.folder / "survivors").mkdir(parents=True, exist_ok=True)

    def add(self, counts: Counts) -> None:
        """Spill one chunk's partial counts, its cells and (cell, sentence) pairs split by partition."""
        if counts.num_rows == 0:
            return
        cells = counts.cells
        part = partition_of(cells, self.partitions)
        order, part = _sorted_by(part)
        cells = cells.take(pa.array(order))
        hashes = cells["cell"].to_numpy()
        pair_part = part[_cell_positions(hashes, counts.sentences["cell"].to_numpy())]
        pair_order, pair_part = _sorted_by(pair_part)
        pairs = counts.sentences.take(pa.array(pair_order))
        n = len(self.chunks)
        cell_path = self.folder / "chunks" / f"cells-{n:06d}.arrow"
        pair_path = self.folder / "chunks" / f"pairs-{n:06d}.arrow"
        self.chunks.append((cell_path, write_groups(cell_path, cells, part),
                            pair_path, write_groups(pair_path, pairs, pair_part)))
        del cells, pairs
        release_memory()

    def cut(self, progress: bool = False) -> None:
        """Merge each partition, apply both cutoffs' bookkeeping and spill the first cutoff's survivors by graph."""
        totals = NodeTotals()
        refs: dict[str, tuple[Refs, Refs]] = {}
        for p in tqdm(range(self.partitions), desc="cutting count partitions", unit="partition",
                      disable=not progress):
            cells = read_groups([(c, ci[p]) for c, ci, _, _ in self.chunks if p in ci], COUNT_SCHEMA)
            if cells.num_rows == 0:
                continue
            pairs = read_groups([(s, si[p]) for _, _, s, si in self.chunks if p in si], SENTENCE_SCHEMA)
            self._cut_partition(p, cells, pairs, totals, refs)
            del cells, pairs
            release_memory()
        shutil.rmtree(self.folder / "chunks")
        self.chunks.clear()
        self.survivors = refs
        names = {gid: name for name, gid in self.graph_ids.items()}
        for gid, n_nodes in enumerate(np.bincount(totals.graph, minlength=len(names)).tolist()):
            self.before.setdefault(names[gid], _GraphBefore()).nodes = n_nodes
        kept = totals.kept >= self.params.min_pairs_per_predicate
        for gid in np.unique(totals.graph[kept]).tolist():
            self.kept_nodes[names[gid]] = totals.node[kept & (totals.graph == gid)]  # sorted, as totals.node

    def _cut_partition(self, p: int, cells: pa.Table, pairs: pa.Table, totals: NodeTotals,
                       refs: dict[str, tuple[Refs, Refs]]) -> None:
        cells = cells.group_by(CELL_KEYS).aggregate([("count", "sum")]).rename_columns(
            {"count_sum": "count"}).select(COUNT_SCHEMA.names).cast(COUNT_SCHEMA)
        self._generality = _sum_pairs(pa.concat_tables([self._generality, predicate_pairs(cells)]))
        pairs = pairs.group_by(["cell", "sentence"]).aggregate([]).select(SENTENCE_SCHEMA.names).cast(SENTENCE_SCHEMA)
        pair_cell = _cell_positions(cells["cell"].to_numpy(), pairs["cell"].to_numpy())
        clean = np.bincount(pair_cell, minlength=cells.num_rows)
        g = dense_rank(cells["graph"])
        ft = dense_rank(cells["feature"])
        fkey = g * (int(ft.max()) + 1) + ft
        _, first, inverse, per_feature = np.unique(fkey, return_index=True, return_inverse=True, return_counts=True)
        graph_names = names_of(cells["graph"], g)
        for gid, n_features in enumerate(np.bincount(g[first], minlength=len(graph_names)).tolist()):
            self.before.setdefault(graph_names[gid], _GraphBefore()).features += n_features
        # Cells are unique per (node, feature), so cells per feature = its distinct predicates.
        keep = per_feature[inverse] >= self.params.min_predicates_per_pair
        global_ids = np.array([self.graph_ids.setdefault(n, len(self.graph_ids)) for n in graph_names], np.int64)
        node_hash = text_hashes(cells["node"]).to_numpy()
        totals.add(node_hash, global_ids[g], keep.astype(np.int64))
        idx = np.flatnonzero(keep)
        if idx.size == 0:
            return
        idx = idx[np.argsort(g[idx], kind="stable")]
        kept_cells = cells.take(pa.array(idx)).drop_columns(["graph"]).append_column(
            "clean", pa.array(clean[idx])).append_column("node_hash", pa.array(node_hash[idx]))
        pair_keep = keep[pair_cell]
        pair_graph = g[pair_cell[pair_keep]]
        pair_order, pair_graph = _sorted_by(pair_graph)
        kept_pairs = pairs.filter(pa.array(pair_keep)).take(pa.array(pair_order))
        cell_path = self.folder / "survivors" / f"cells-{p:06d}.arrow"
        pair_path = self.folder / "survivors" / f"pairs-{p:06d}.arrow"
        cell_index = write_groups(cell_path, kept_cells, g[idx])
        pair_index = write_groups(pair_path, kept_pairs, pair_graph)
        for gid, batches in cell_index.items():
            cell_refs, pair_refs = refs.setdefault(graph_names[gid], ([], []))
            cell_refs.append((cell_path, batches))
            if gid in pair_index:
                pair_refs.append((pair_path, pair_index[gid]))

    def generality(self) -> pa.Table:
        """Every predicate counted (negated ones under their `NEG__` name) with its distinct argument pairs
        before the cutoffs, sorted by predicate (GENERALITY_SCHEMA; complete after `cut`)."""
        return self._generality.sort_by("predicate")

    @property
    def nodes(self) -> int:
        """Nodes that pass both cutoffs, over every graph (known after `cut`)."""
        return sum(len(v) for v in self.kept_nodes.values())

    def graphs(self) -> Iterator[GraphCounts]:
        """Yield the count matrices of every graph that survives the cutoffs, in graph-name order, one at a time."""
        for name in sorted(self.kept_nodes):
            yield self._graph(name)  # not bound to a local: the generator keeps no graph alive once yielded

    def _graph(self, name: str) -> GraphCounts:
        cell_refs, pair_refs = self.survivors[name]
        kept_nodes = self.kept_nodes[name]
        # Filtered batch by batch: cells of nodes that fail the second cutoff are never held together
        # (only their 8-byte hashes, to tell a clash with a kept cell).
        batches, every = [], []
        for batch in iter_groups(cell_refs):
            every.append(batch["cell"].to_numpy())
            batches.append(batch.filter(member(batch["node_hash"].to_numpy(), kept_nodes)))
        _check_unique(np.sort(np.concatenate(every)))
        del every
        cells = pa.Table.from_batches(batches, SURVIVOR_SCHEMA)
        del batches
        if np.unique(cells["node_hash"].to_numpy()).size != pc.count_distinct(cells["node"]).as_py():
            raise InputError(HASH_CLASH.replace("count cells", "nodes"))
        hashes = cells["cell"].to_numpy()
        kept_cells = np.sort(hashes)
        pairs = pa.Table.from_batches([b.filter(member(b["cell"].to_numpy(), kept_cells))
                                       for b in iter_groups(pair_refs)], SENTENCE_SCHEMA)
        del kept_cells
        pair_cell = _cell_positions(hashes, pairs["cell"].to_numpy())
        sents = pairs["sentence"].to_numpy()
        del pairs
        nd = dense_rank(cells["node"])
        ft = dense_rank(cells["feature"])
        before = self.before[name]
        out = graph_counts(name, nd, ft, cells["count"].to_numpy(), cells["clean"].to_numpy(),
                           names_of(cells["node"], nd), (nd[pair_cell], ft[pair_cell], sents),
                           (before.nodes, before.features))
        del cells
        release_memory()
        return out
