"""Build a graph set from a triples dataset: count per shard, apply cutoffs, score, write artefacts."""

from __future__ import annotations

import functools
import logging
import math
import multiprocessing
import os
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import scipy.sparse as sp
from tqdm import tqdm

from graph_builder.errors import ArtefactError, InputError
from graph_builder.extras import require
from graph_builder.graphs.artefacts import (UNTYPED_SET, StagingDir, check_graph_name, write_graph, write_graphset,
                                            write_measure)
from graph_builder.graphs.counts import (COUNT_COLUMNS, UNTYPED, Counts, CountParams, GraphCounts,
                                         merge_counts, negation_partners, partial_counts)
from graph_builder.graphs.generality import write_generality
from graph_builder.graphs.spill import CountSpill
from graph_builder.graphs.globalstep import GlobalParams, TypedGraph, global_step
from graph_builder.graphs.completion import CompletionParams, complete_counts
from graph_builder.graphs.measures import (CLEAN_SUFFIX, LP_SUFFIX, MEASURE_VERSIONS, Prepared, block_scores,
                                           check_measures, prepare, row_blocks, select_edges, split_measure, to_csr)
from graph_builder.triples import dataset_checksum, shard_files

log = logging.getLogger(__name__)


# Pruning as in the published NewsCrawl build (Hosseini et al. 2018): each node keeps its
# 100 best neighbours (their global step ran with "max rank 100") and edges scoring under 0.01 are dropped
# (their edge threshold for all TACL experiments). top_k None / min_score 0 keep every edge.
DEFAULT_TOP_K = 100
DEFAULT_MIN_SCORE = 0.01
# Counting holds one chunk of this many input triples, then one hash partition of about as many triples'
# cells, at a time; partitions = input rows / this (rounded up). See spill.py and docs/graphs.md (build memory).
DEFAULT_COUNT_PARTITION_ROWS = 250_000
# Triples chunks are counted, then graphs scored, in this many processes at once (the global step, which
# needs every graph, runs after in this one).
DEFAULT_WORKERS = 2
# Worker processes are spawned only for inputs of at least this many triples: each starts a fresh
# interpreter (about a second of imports), which small builds would not earn back.
PARALLEL_MIN_ROWS = 1_000_000

T = TypeVar("T")
K = TypeVar("K")
R = TypeVar("R")


@dataclass(frozen=True)
class BuildParams:
    """Everything that decides a build's output; recorded in every manifest."""

    min_predicates_per_pair: int = 3
    min_pairs_per_predicate: int = 3
    top_k: int | None = DEFAULT_TOP_K  # neighbours kept per node by (-score, id); None keeps all
    min_score: float = DEFAULT_MIN_SCORE  # edges scoring below are dropped; 0 keeps all
    min_shared_features: int = 1  # clean measures: an edge needs this many shared argument pairs that count
    measures: tuple[str, ...] = ("binc", "weeds", "lin", "cos", "binc_clean", "global")
    splits: tuple[str, ...] | None = None  # keep only triples of these corpus splits (e.g. the induction period)
    untyped: bool = False  # every argument counted as UNTYPED: one graph over all type pairs (the untyped backoff)
    global_step: GlobalParams = GlobalParams()
    completion: CompletionParams = CompletionParams()  # link prediction before the `_lp` measures
    block_rows: int = 2048
    count_partition_rows: int = DEFAULT_COUNT_PARTITION_ROWS  # triples per counting chunk and hash partition
    workers: int = DEFAULT_WORKERS  # graphs scored at once, each in a process of its own; 1 scores in this one

    def __post_init__(self) -> None:
        check_measures(list(self.measures))
        if "global" in self.measures and self.global_step.base not in self.measures:
            raise InputError(f"measure 'global' is computed from {self.global_step.base!r}: add it to the measures")
        if self.min_predicates_per_pair < 1 or self.min_pairs_per_predicate < 1 or self.min_shared_features < 1:
            raise InputError("cutoffs must be at least 1")
        if self.top_k is not None and self.top_k < 1:
            raise InputError("top_k must be at least 1 (or None for all edges)")
        if not self.min_score >= 0:
            raise InputError(f"min_score must be 0 or more, got {self.min_score}")
        if self.count_partition_rows < 1:
            raise InputError(f"count_partition_rows must be at least 1, got {self.count_partition_rows}")
        if self.workers < 1:
            raise InputError(f"workers must be at least 1, got {self.workers}")

    def recorded(self) -> dict[str, Any]:
        """Return the parameters as recorded in manifests (block size does not change the output; the counting
        partition size does not either, but is recorded as the memory bound the build ran with)."""
        d = asdict(self)
        d.pop("block_rows")
        d.pop("workers")  # scores are the same whichever process computes them
        d["measures"] = list(self.measures)
        d["splits"] = list(self.splits) if self.splits is not None else None
        d["global_step"] = self.global_step.recorded() if "global" in self.measures else None
        variants = {split_measure(m)[1] for m in self.measures}
        if "global" in self.measures or any(CLEAN_SUFFIX in v for v in variants):
            d["cleaning"] = CLEANING
        d["completion"] = self.completion.recorded() if any(LP_SUFFIX in v for v in variants) else None
        return d


# How the *_clean measures and global.v1 count, recorded in every manifest that holds them.
CLEANING: dict[str, str] = {
    "counts": "one per distinct sentence, not one per triple; sentences compared by their lowercase alphanumeric "
              "tokens cut to 4 characters, as a set (64-bit BLAKE2b)",
    "co_extraction": "a feature is shared by p and q only if some sentence states it with exactly one of them",
    "negation": "no edge between a predicate and its NEG__ form, either direction",
    "min_shared_features": "clean measures: an edge needs at least this many shared features that count",
    "top_k_and_min_score": "applied to every measure after scoring, a block of rows at a time (global.v1 reads "
                           "the pruned base measure and keeps top_k per node in every round)",
}


@dataclass
class BuildSummary:
    """What a build produced."""

    out: Path
    triples: int
    graphs: int
    nodes: int
    edges: dict[str, int] = field(default_factory=dict)
    per_graph: list[dict[str, Any]] = field(default_factory=list)
    untyped: BuildSummary | None = None  # the untyped set built beside it (`with_untyped`)


def without_types(table: pa.Table) -> pa.Table:
    """The counting columns with every argument's type replaced by UNTYPED."""
    for column in ("subj_type", "obj_type"):
        at = table.schema.get_field_index(column)
        table = table.set_column(at, column, pa.repeat(pa.scalar(UNTYPED, table.schema.field(at).type), table.num_rows))
    return table


def read_shard(path: str, splits: tuple[str, ...] | None = None, untyped: bool = False) -> pa.Table:
    """Read the counting columns of one triples shard, keeping only rows of `splits` when given, every type
    replaced by UNTYPED when `untyped`."""
    if splits is None:
        table = pq.read_table(path, columns=COUNT_COLUMNS)
    else:
        table = pq.read_table(path, columns=[*COUNT_COLUMNS, "split"])
        table = table.filter(pc.is_in(table["split"], pa.array(list(splits)))).select(COUNT_COLUMNS)
    return without_types(table) if untyped else table


def shard_counts(path: str, splits: tuple[str, ...] | None = None, untyped: bool = False) -> tuple[Counts, int]:
    """Read one triples shard and return its partial counts and rows used."""
    table = read_shard(path, splits, untyped)
    return partial_counts(table), table.num_rows


def count_triples(triples: Path, scheduler: str | None = None, progress: bool = True,
                  splits: tuple[str, ...] | None = None, untyped: bool = False) -> tuple[Counts, int]:
    """Aggregate counts over all shards in memory, locally or on a Dask scheduler; return counts and triples used.

    The in-memory reference of `spilled_counts` (what builds use): its memory follows the input."""
    files = [str(f) for f in shard_files(triples)]
    if scheduler is None:
        results = [shard_counts(f, splits, untyped)
                   for f in tqdm(files, desc="counting shards", unit="shard", disable=not progress)]
        return merge_counts([r[0] for r in results]), sum(r[1] for r in results)
    parts = []
    total = 0
    for part, rows in _dask_shard_counts(files, scheduler, splits, progress, untyped):
        parts.append(part)
        total += rows
    # Merge order does not matter: sums are exact integers and matrix order comes from string ranks.
    return merge_counts(parts), total


def _dask_shard_counts(files: list[str], scheduler: str, splits: tuple[str, ...] | None,
                       progress: bool, untyped: bool = False) -> Iterator[tuple[Counts, int]]:
    distributed = require("cluster", "dask.distributed", "graph counting on a Dask cluster (--scheduler)")
    Client, as_completed = distributed.Client, distributed.as_completed

    with Client(scheduler) as client:
        # Workers run in folders of their own and read each shard by its absolute path.
        futures = client.map(shard_counts, [os.path.abspath(f) for f in files], splits=splits, untyped=untyped,
                             pure=False)
        for future in tqdm(as_completed(futures), total=len(futures), desc="counting shards (dask)",
                           unit="shard", disable=not progress):
            yield future.result()
            future.release()


def input_rows(triples: Path) -> int:
    """Return the rows of a triples dataset, read from its Parquet footers (before any split filter)."""
    return sum(pq.ParquetFile(f).metadata.num_rows for f in shard_files(triples))


def read_chunks(path: str, rows: int, splits: tuple[str, ...] | None = None,
                untyped: bool = False) -> Iterator[tuple[pa.Table, int]]:
    """Yield a triples shard's counting columns `rows` rows at a time (only rows of `splits` when given, every
    type replaced by UNTYPED when `untyped`), each with the number of rows read."""
    columns = COUNT_COLUMNS if splits is None else [*COUNT_COLUMNS, "split"]
    for batch in pq.ParquetFile(path).iter_batches(batch_size=rows, columns=columns):
        table = pa.Table.from_batches([batch])
        if splits is not None:
            table = table.filter(pc.is_in(table["split"], pa.array(list(splits)))).select(COUNT_COLUMNS)
        yield (without_types(table) if untyped else table), batch.num_rows


def _ipc(table: pa.Table) -> pa.Buffer:
    """An Arrow IPC stream of a table: only the rows it holds, where pickling a table built from slices
    would send the whole buffers they slice (ten times the bytes for partial counts)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue()


def _counted_ipc(table: pa.Table) -> tuple[pa.Buffer, pa.Buffer]:
    """partial_counts of a chunk of triples, as IPC streams of its cells and sentences (run in a worker)."""
    counts = partial_counts(table)
    return _ipc(counts.cells), _ipc(counts.sentences)


def _from_ipc(streams: tuple[pa.Buffer, pa.Buffer]) -> Counts:
    cells, sentences = (pa.ipc.open_stream(b).read_all() for b in streams)
    return Counts(cells, sentences)


def _count_chunks(files: list[str], params: BuildParams, bar: tqdm) -> Iterator[pa.Table]:
    """Yield the triples to count, count_partition_rows at a time (small shards are counted together)."""
    pending: list[pa.Table] = []
    for f in files:
        for table, read in read_chunks(f, params.count_partition_rows, params.splits, params.untyped):
            if pending and sum(t.num_rows for t in pending) + table.num_rows > params.count_partition_rows:
                yield pa.concat_tables(pending)
                pending.clear()
            pending.append(table)
            bar.update(read)
    if pending:
        yield pa.concat_tables(pending)


@contextmanager
def spilled_counts(triples: Path, workdir: Path, params: BuildParams, scheduler: str | None = None,
                   progress: bool = True) -> Iterator[tuple[CountSpill, int]]:
    """Count a triples dataset into on-disk hash partitions and apply the cutoffs; yield the spill (its
    `graphs()` still to read) and the triples used. The partitions live in a temporary folder under
    `workdir`, removed when the block exits, on error too."""
    files = [str(f) for f in shard_files(triples)]
    total = input_rows(triples)
    partitions = max(1, math.ceil(total / params.count_partition_rows))
    workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".egqa-counts-", dir=workdir) as tmp:
        spill = CountSpill(Path(tmp), partitions,
                           CountParams(params.min_predicates_per_pair, params.min_pairs_per_predicate))
        used = 0
        if scheduler is None:
            workers = params.workers if total >= PARALLEL_MIN_ROWS else 1
            with tqdm(total=total, desc="counting triples", unit="row", disable=not progress) as bar:
                # Chunks are counted `workers` at a time and spilled in input order.
                count = partial_counts if workers == 1 else _counted_ipc
                for rows, part in in_order(count, _count_chunks(files, params, bar), workers,
                                           keep=lambda table: table.num_rows):
                    spill.add(part if isinstance(part, Counts) else _from_ipc(part))
                    used += rows
        else:  # each worker counts a whole shard; the partial counts are spilled here as they arrive
            for part, rows in _dask_shard_counts(files, scheduler, params.splits, progress, params.untyped):
                spill.add(part)
                used += rows
        log.info("counted %d triples into %d partition(s)", used, partitions)
        spill.cut(progress)
        log.info("cutoffs applied: %d nodes kept", spill.nodes)
        yield spill, used


def _clean_prepared(gc: GraphCounts, params: BuildParams, completed: bool) -> Prepared:
    if gc.clean is None:
        raise InputError(f"{gc.name}: clean counts missing; count with count_matrices")
    counts = complete_counts(gc.clean, params.completion) if completed else gc.clean
    return prepare(counts, gc.co_extracted, negation_partners(gc.nodes), params.min_shared_features)


# Count variant (measure-name suffix, measures.COUNT_VARIANTS) -> the matrices its measures are computed from.
VARIANT_PREPARERS: dict[str, Callable[[GraphCounts, BuildParams], Prepared]] = {
    "": lambda gc, params: prepare(gc.matrix),
    CLEAN_SUFFIX: lambda gc, params: _clean_prepared(gc, params, completed=False),
    LP_SUFFIX: lambda gc, params: prepare(complete_counts(gc.matrix, params.completion)),
    CLEAN_SUFFIX + LP_SUFFIX: lambda gc, params: _clean_prepared(gc, params, completed=True),
}


def score_graph(gc: GraphCounts, params: BuildParams, bar: tqdm | None = None) -> dict[str, sp.csr_matrix]:
    """Compute every local measure of one graph block by block; return measure -> CSR matrix."""
    wanted: dict[str, list[str]] = {}
    for m in params.measures:
        if m != "global":
            base, variant = split_measure(m)
            wanted.setdefault(variant, []).append(base)
    preps = [(VARIANT_PREPARERS[variant](gc, params), tuple(bases), variant) for variant, bases in wanted.items()]
    if not preps:
        return {}
    # Blocks bounded by the densest variant's candidates (completion adds some).
    densest = max(preps, key=lambda x: x[0].binary.nnz)[0]
    n = len(gc.nodes)
    # Per block only row lengths, int32 columns and scores are kept (12 bytes an edge).
    parts: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
    for start, stop in row_blocks(densest.binary, params.block_rows):
        for prep, names, suffix in preps:
            if not names:
                continue
            for measure, edges in block_scores(prep, start, stop, names).items():
                rows, cols, vals = select_edges(*edges, top_k=params.top_k, min_score=params.min_score)
                lengths = np.bincount(rows - start, minlength=stop - start)
                parts.setdefault(measure + suffix, []).append((lengths, cols.astype(np.int32), vals))
        if bar is not None:
            bar.update(stop - start)
    out = {}
    for measure, blocks in parts.items():
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.concatenate([b[0] for b in blocks]), out=indptr[1:])
        out[measure] = sp.csr_matrix((np.concatenate([b[2] for b in blocks]), np.concatenate([b[1] for b in blocks]),
                                      indptr), shape=(n, n))
        blocks.clear()
    return out


def in_order(fn: Callable[[T], R], items: Iterable[T], workers: int,
             keep: Callable[[T], K]) -> Iterator[tuple[K, R]]:
    """Yield (keep(item), fn(item)) for every item, in input order; with workers > 1 up to that many items are
    worked on at once, each in a spawned process, and one more is read ahead to keep them busy.

    `keep` is what this process holds of an item while it is worked on (its matrices need not stay here)."""
    if workers <= 1:
        for item in items:
            yield keep(item), fn(item)
        return
    # Spawned, not forked: this process has pyarrow and tqdm threads that a fork would copy mid-flight.
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        pending: deque[tuple[K, Future[R]]] = deque()
        for item in items:
            future = pool.submit(fn, item)
            pending.append((keep(item), future))
            del item
            if len(pending) > workers:
                head, future = pending.popleft()
                yield head, future.result()
        while pending:
            head, future = pending.popleft()
            yield head, future.result()


def scored_graphs(graphs: Iterable[GraphCounts], params: BuildParams, workers: int = 1,
                  bar: tqdm | None = None, workdir: Path | None = None
                  ) -> Iterator[tuple[GraphCounts, dict[str, sp.csr_matrix]]]:
    """Yield every graph with its local measures (score_graph), in input order, `workers` graphs at a time.

    With workers > 1 each graph's counts are written to a folder under `workdir` (a temporary one, removed
    at the end) for a worker to read and delete, and the yielded graphs keep only their name, nodes, node
    counts and stats: what this process holds is the scores of the graphs in flight, not their counts (a
    process pool keeps every argument it sent until the result is back)."""
    if workers <= 1:
        for gc in graphs:
            yield gc, score_graph(gc, params, bar)
        return
    with tempfile.TemporaryDirectory(prefix=".egqa-scoring-", dir=workdir) as tmp:
        heads: dict[str, GraphCounts] = {}

        def handed() -> Iterator[str]:
            for i, gc in enumerate(graphs):
                folder = str(Path(tmp) / f"{i:05d}")
                save_graph_counts(gc, Path(folder))
                heads[folder] = GraphCounts(gc.name, gc.types, gc.nodes, _row_totals(gc.matrix), gc.stats)
                del gc
                yield folder

        for head, scored in in_order(functools.partial(_score_saved, params=params), handed(), workers,
                                     keep=heads.pop):
            if bar is not None:
                bar.update(len(head.nodes))
            yield head, scored


def _score_saved(folder: str, params: BuildParams) -> dict[str, sp.csr_matrix]:
    """score_graph of counts written by save_graph_counts, deleting them once read (run in a worker)."""
    gc = load_graph_counts(Path(folder))
    shutil.rmtree(folder)
    return score_graph(gc, params)


_MATRICES = ("matrix", "clean")


def save_graph_counts(gc: GraphCounts, folder: Path) -> None:
    """Write a graph's counts as .npy components and a JSON header (no pickle), for load_graph_counts."""
    folder.mkdir(parents=True)
    header: dict[str, Any] = {"name": gc.name, "types": list(gc.types), "nodes": gc.nodes, "stats": gc.stats,
                              "matrices": {}, "co_extracted": gc.co_extracted is not None}
    for key in _MATRICES:
        m = getattr(gc, key)
        if m is None:
            continue
        header["matrices"][key] = list(m.shape)
        for part in ("data", "indices", "indptr"):
            np.save(folder / f"{key}.{part}.npy", getattr(m, part))
    for i, a in enumerate(gc.co_extracted or ()):
        np.save(folder / f"co_extracted.{i}.npy", a)
    (folder / "header.json").write_bytes(orjson.dumps(header, option=orjson.OPT_SERIALIZE_NUMPY))


def load_graph_counts(folder: Path) -> GraphCounts:
    """Read counts written by save_graph_counts."""
    header = orjson.loads((folder / "header.json").read_bytes())
    mats = {key: sp.csr_matrix(tuple(np.load(folder / f"{key}.{part}.npy") for part in ("data", "indices", "indptr")),
                               shape=tuple(shape)) for key, shape in header["matrices"].items()}
    co = tuple(np.load(folder / f"co_extracted.{i}.npy") for i in range(3)) if header["co_extracted"] else None
    return GraphCounts(header["name"], tuple(header["types"]), header["nodes"], mats["matrix"], header["stats"],
                       mats.get("clean"), co)


def _row_totals(matrix: sp.csr_matrix) -> sp.csr_matrix:
    """A one-column matrix of a count matrix's row sums: what GraphCounts.node_counts reads, without the counts."""
    return sp.csr_matrix(np.asarray(matrix.sum(axis=1)).reshape(-1, 1))


@dataclass
class ScoredGraph:
    """What a graph's manifest needs once its counts are scored and freed."""

    name: str
    nodes: list[str]
    node_counts: np.ndarray
    stats: dict[str, int]
    measures: dict[str, dict[str, Any]]  # manifest entries of the measures written so far


def global_scores(graphs: list[ScoredGraph], bases: list[sp.csr_matrix], params: BuildParams) -> list[sp.csr_matrix]:
    """Run the global step over every graph's (pruned) base measure; return each graph's pruned result."""
    inputs = [TypedGraph(g.name, g.nodes, base, negation_partners(g.nodes)) for g, base in zip(graphs, bases)]
    out = []
    for result in global_step(inputs, replace(params.global_step, workers=params.workers), params.top_k):
        coo = result.tocoo()
        rows, cols, vals = select_edges(coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data,
                                        top_k=params.top_k, min_score=params.min_score)
        out.append(to_csr(rows, cols, vals, result.shape[0]))
    return out


def build_graphs(triples: Path, out: Path, params: BuildParams = BuildParams(), scheduler: str | None = None,
                 overwrite: bool = False, progress: bool = True, with_untyped: bool = False) -> BuildSummary:
    """Build one entailment graph per type pair from a triples dataset and write them to `out`.

    Counting spills to hash partitions beside `out` (removed at the end), so its memory follows
    `count_partition_rows`, not the input; graphs are then read back one at a time. A graph's measures are
    written as soon as it is scored and its counts freed; only the global step's base measure (pruned to
    top_k) stays in memory for all graphs, so memory follows the largest graph's kept edges and one block
    of candidates, not the whole graph set. `with_untyped` also builds, with the same parameters, the untyped set
    (`BuildParams.untyped`) into `out/UNTYPED_SET`, which the typed set backs off to (`GraphSet.untyped`)."""
    if with_untyped and params.untyped:
        raise InputError("an untyped build has no untyped set of its own")
    with spilled_counts(triples, out.parent, params, scheduler, progress) as (counted, n_triples):
        if n_triples == 0:
            raise ArtefactError(f"{triples}: no triples to count"
                                + (f" in splits {list(params.splits)}" if params.splits else ""))
        if counted.nodes == 0:
            raise ArtefactError(f"{triples}: no predicate survives the cutoffs "
                                f"({params.min_predicates_per_pair}, {params.min_pairs_per_predicate}); lower them")
        source = {"triples": str(triples), "triples_checksum": dataset_checksum(triples), "triples_rows": n_triples}
        versions = {m: MEASURE_VERSIONS[m] for m in params.measures}
        with_global = "global" in params.measures
        with StagingDir(out, overwrite) as tmp:
            done: list[ScoredGraph] = []
            bases: list[sp.csr_matrix] = []
            workers = params.workers if input_rows(triples) >= PARALLEL_MIN_ROWS else 1
            with tqdm(total=counted.nodes, desc="scoring graphs", unit="node", disable=not progress) as bar:
                # Graphs are read from the spill one at a time (a worker's worth ahead) and dropped once scored.
                for gc, scored in scored_graphs(counted.graphs(), params, workers, bar, out.parent):
                    if with_global:
                        bases.append(scored[params.global_step.base])
                    folder = tmp / check_graph_name(gc.name)
                    done.append(ScoredGraph(gc.name, gc.nodes, gc.node_counts, gc.stats,
                                            {m: write_measure(folder, m, x, versions[m]) for m, x in scored.items()}))
                    del gc, scored
            if with_global:
                log.info("global step over %d graphs (%d iterations)", len(done), params.global_step.iterations)
                for g, result in zip(done, global_scores(done, bases, params)):
                    g.measures["global"] = write_measure(tmp / g.name, "global", result, versions["global"])
                bases.clear()
            manifests = [write_graph(tmp / g.name, g.name, g.nodes, g.node_counts, {}, versions, params.recorded(),
                                     g.stats, source, written=g.measures) for g in done]
            manifest = write_graphset(tmp, manifests, "built", source, params.recorded(), "triples",
                                      write_generality(tmp, counted.generality()))
            untyped = build_graphs(triples, tmp / UNTYPED_SET, replace(params, untyped=True), scheduler,
                                   progress=progress) if with_untyped else None
    summary = BuildSummary(out=out, triples=n_triples, graphs=len(manifests), nodes=manifest["totals"]["nodes"],
                           edges=manifest["totals"]["edges"],
                           per_graph=[{"graph": m["graph"], **m["counts"],
                                       "edges": {k: v["edges"] for k, v in m["measures"].items()}}
                                      for m in manifests], untyped=untyped)
    if untyped is not None:
        untyped.out = out / UNTYPED_SET
    log.info("built %d graphs, %d nodes, edges %s into %s", summary.graphs, summary.nodes,
             ", ".join(f"{measure} {n:,}" for measure, n in summary.edges.items()), out)
    return summary
