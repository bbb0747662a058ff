"""Graph artefacts on disk: CSR components as .npy (no pickle), nodes.json, fuzzy.json, manifests.

Layout of a graph set folder::

    manifest.json            format egqa.graphset.v1, source checksum, parameters, graphs, totals
    fuzzy.json               role-free predicate -> [[graph, node, count], ...] over all graphs
    <type_a>#<type_b>/
        manifest.json        format egqa.graph.v1, measure versions, counts, file checksums
        nodes.json           {"nodes": [...], "counts": [...]}  (row/column i of every matrix)
        fuzzy.json           role-free predicate -> [[node, count], ...] in this graph
        <measure>/data.npy, indices.npy, indptr.npy   premise row -> hypothesis column scores
                             (float32 scores, int32 columns, int64 row pointers; float64 scores
                             of older builds load alike)
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson
import scipy.sparse as sp

from graph_builder.errors import ArtefactError, InputError
from graph_builder.graphs.fuzzy import FuzzyEntry, FuzzyIndex, predicate_of, role_free
from graph_builder.graphs.measures import MEASURE_VERSIONS
from graph_builder.graphs.roles import reciprocal

GRAPH_FORMAT = "egqa.graph.v1"
GRAPHSET_FORMAT = "egqa.graphset.v1"
UNTYPED_SET = "untyped"  # the folder of a graph set's untyped set (`egqa graph build --untyped`), inside the set
IMPORT_VERSIONS = ("import.hosseini.v1", "import.berant.v1")
READABLE_VERSIONS: tuple[str, ...] = (*MEASURE_VERSIONS.values(), *IMPORT_VERSIONS)
CSR_FILES = ("data", "indices", "indptr")
# Scores as written from now on; older artefacts hold float64 and load unchanged.
SCORE_DTYPE = np.float32


def sha256_file(path: Path) -> str:
    """Return the SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_json(path: Path, value: Any) -> None:
    """Write JSON deterministically (sorted keys, indented)."""
    path.write_bytes(orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))


def read_json(path: Path) -> Any:
    """Read a JSON artefact file, raising ArtefactError when it is missing or unreadable."""
    try:
        return orjson.loads(path.read_bytes())
    except FileNotFoundError as exc:
        raise ArtefactError(f"{path}: missing (not a graph artefact, or an interrupted write)") from exc
    except orjson.JSONDecodeError as exc:
        raise ArtefactError(f"{path}: corrupted JSON ({exc}); rebuild or re-import the graphs") from exc


def check_graph_name(name: str) -> str:
    """Return a graph name usable as a folder name, or raise InputError."""
    if not name or "/" in name or name.startswith(".") or name.count("#") != 1:
        raise InputError(f"bad graph name {name!r}: expected two types joined by '#', e.g. person#location")
    return name


@dataclass
class Graph:
    """One loaded graph: node names, counts and one memory-mapped CSR matrix per measure."""

    name: str
    types: tuple[str, str]
    nodes: list[str]
    counts: npt.NDArray[np.int64]
    index: dict[str, int]
    matrices: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]
    manifest: dict[str, Any]

    @cached_property
    def mirrors(self) -> npt.NDArray[np.int64]:
        """Per node of a same-type graph, the row of the same predicate with its two slots swapped, -1 for none and
        for a reciprocal predicate (`graph_builder.graphs.roles`): the edge between the two is no entailment."""
        out = np.full(len(self.nodes), -1, dtype=np.int64)
        a, b = self.types
        if a != b:
            return out
        orders = same_type_slots(a)
        for i, node in enumerate(self.nodes):
            for this, other in (orders, orders[::-1]):
                if node.endswith(this):
                    predicate = node[:-len(this)]
                    j = self.index.get(predicate + other)
                    if j is not None and not reciprocal(predicate):
                        out[i] = j
        return out

    def csr(self, measure: str) -> sp.csr_matrix:
        """Return a measure as a scipy CSR matrix (row = premise, column = hypothesis)."""
        data, indices, indptr = self.matrices[measure]
        n = len(self.nodes)
        return sp.csr_matrix((data, indices, indptr), shape=(n, n))


def same_type_slots(a: str) -> tuple[str, str]:
    """A same-type graph's two slot orders: `#person_1#person_2` and `#person_2#person_1`."""
    return f"#{a}_1#{a}_2", f"#{a}_2#{a}_1"


def write_measure(folder: Path, measure: str, matrix: sp.spmatrix | sp.sparray, version: str,
                  score_dtype: npt.DTypeLike = SCORE_DTYPE) -> dict[str, Any]:
    """Write one measure's CSR components under `folder/measure` and return its manifest entry.

    Built scores are stored as float32 and columns as int32 (8 bytes an edge instead of 12); readers
    take whatever dtype the .npy header gives, so float64 artefacts written before stay readable."""
    m = sp.csr_matrix(matrix)
    n = m.shape[0]
    if m.shape != (n, n):
        raise ArtefactError(f"{folder.name}/{measure}: matrix shape {m.shape} is not square")
    m.sort_indices()
    (folder / measure).mkdir(parents=True, exist_ok=True)
    arrays = {"data": m.data.astype(score_dtype, copy=False), "indices": m.indices.astype(np.int32, copy=False),
              "indptr": m.indptr.astype(np.int64, copy=False)}
    for part, array in arrays.items():
        np.save(folder / measure / f"{part}.npy", array, allow_pickle=False)
    off_diag = int(m.nnz - np.count_nonzero(m.diagonal()))
    return {"version": version, "edges": off_diag, "stored": int(m.nnz), "dtype": np.dtype(score_dtype).name}


def write_graph(folder: Path, name: str, nodes: list[str], counts: npt.ArrayLike,
                matrices: Mapping[str, sp.csr_matrix], versions: Mapping[str, str],
                parameters: Mapping[str, Any], stats: Mapping[str, Any], source: Mapping[str, Any],
                written: Mapping[str, Mapping[str, Any]] | None = None,
                score_dtype: npt.DTypeLike = SCORE_DTYPE) -> dict[str, Any]:
    """Write one graph's artefacts into `folder` and return its manifest.

    `written` holds the manifest entries of measures already written there with write_measure
    (a build writes each measure as soon as it is scored, so it never holds them all at once)."""
    check_graph_name(name)
    folder.mkdir(parents=True, exist_ok=True)
    n = len(nodes)
    counts_list = [int(c) for c in np.asarray(counts).tolist()]
    write_json(folder / "nodes.json", {"nodes": list(nodes), "counts": counts_list})
    per_graph: dict[str, list[list[object]]] = {}
    for node, count in sorted(zip(nodes, counts_list), key=lambda x: (-x[1], x[0])):
        per_graph.setdefault(role_free(predicate_of(node)), []).append([node, count])
    write_json(folder / "fuzzy.json", per_graph)
    measures: dict[str, dict[str, Any]] = {k: dict(v) for k, v in (written or {}).items()}
    for measure, matrix in sorted(matrices.items()):
        if matrix.shape != (n, n):
            raise ArtefactError(f"{name}/{measure}: matrix shape {matrix.shape} != ({n}, {n})")
        measures[measure] = write_measure(folder, measure, matrix, versions[measure], score_dtype)
    files = ["nodes.json", "fuzzy.json", *(f"{m}/{part}.npy" for m in sorted(measures) for part in CSR_FILES)]
    manifest = {
        "format": GRAPH_FORMAT, "graph": name, "types": name.split("#"), "measures": dict(sorted(measures.items())),
        "parameters": dict(parameters), "counts": {"nodes": n, **dict(stats)}, "source": dict(source),
        "files": {f: sha256_file(folder / f) for f in files},
    }
    write_json(folder / "manifest.json", manifest)
    return manifest


def _check_version(path: Path, what: str, version: str, known: tuple[str, ...]) -> None:
    if version not in known:
        raise ArtefactError(f"{path}: {what} {version!r} cannot be read by this egqa "
                            f"(readable: {', '.join(known)}); rebuild with `egqa graph build` or upgrade egqa")


def load_graph(folder: Path, verify: bool = True) -> Graph:
    """Load one graph with memory-mapped matrices; refuse unknown versions and corrupted files."""
    manifest = read_json(folder / "manifest.json")
    if not isinstance(manifest, dict):
        raise ArtefactError(f"{folder / 'manifest.json'}: not a graph manifest")
    _check_version(folder / "manifest.json", "format", str(manifest.get("format")), (GRAPH_FORMAT,))
    files: dict[str, str] = manifest.get("files", {})
    if verify:
        for rel, expected in sorted(files.items()):
            path = folder / rel
            if not path.is_file():
                raise ArtefactError(f"{path}: missing file listed in the manifest; the artefact is incomplete")
            if sha256_file(path) != expected:
                raise ArtefactError(f"{path}: checksum mismatch, the artefact is corrupted; "
                                    f"rebuild with `egqa graph build` or re-import it")
    nodes_json = read_json(folder / "nodes.json")
    nodes: list[str] = nodes_json["nodes"]
    counts = np.asarray(nodes_json["counts"], dtype=np.int64)
    n = len(nodes)
    matrices: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for measure, info in manifest.get("measures", {}).items():
        _check_version(folder / "manifest.json", f"measure {measure}", str(info.get("version")), READABLE_VERSIONS)
        try:
            arrays = [np.load(folder / measure / f"{part}.npy", mmap_mode="r", allow_pickle=False)
                      for part in CSR_FILES]
        except (OSError, ValueError) as exc:
            raise ArtefactError(f"{folder / measure}: unreadable CSR component ({exc})") from exc
        data, indices, indptr = arrays
        if (indptr.shape != (n + 1,) or indptr[0] != 0 or indptr[-1] != data.shape[0]
                or indices.shape != data.shape or (indices.size and int(indices.max()) >= n)):
            raise ArtefactError(f"{folder / measure}: CSR components do not fit {n} nodes; the artefact is corrupted")
        matrices[measure] = (data, indices, indptr)
    name = str(manifest["graph"])
    a, b = name.split("#", 1)
    return Graph(name=name, types=(a, b), nodes=nodes, counts=counts,
                 index={node: i for i, node in enumerate(nodes)}, matrices=matrices, manifest=manifest)


def write_graphset(out: Path, manifests: list[dict[str, Any]], kind: str, source: Mapping[str, Any],
                   parameters: Mapping[str, Any], node_counts: str,
                   generality: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Write the graph set's manifest and overall fuzzy index next to the graph folders; `generality` describes
    the predicate counts already written there (`graph_builder.graphs.generality`), checksummed with the rest."""
    entries: list[FuzzyEntry] = []
    for m in manifests:
        nodes_json = read_json(out / m["graph"] / "nodes.json")
        entries += [FuzzyEntry(m["graph"], node, int(c)) for node, c in zip(nodes_json["nodes"], nodes_json["counts"])]
    write_json(out / "fuzzy.json", FuzzyIndex(entries).to_json())
    measures: dict[str, str] = {}
    for m in manifests:
        measures.update({k: v["version"] for k, v in m["measures"].items()})
    totals = {"graphs": len(manifests), "nodes": sum(m["counts"]["nodes"] for m in manifests),
              "edges": {k: sum(m["measures"][k]["edges"] for m in manifests if k in m["measures"])
                        for k in sorted(measures)}}
    manifest = {
        "format": GRAPHSET_FORMAT, "kind": kind, "source": dict(source), "parameters": dict(parameters),
        "node_counts": node_counts, "measures": dict(sorted(measures.items())), "totals": totals,
        "graphs": {m["graph"]: {"nodes": m["counts"]["nodes"],
                                "edges": {k: v["edges"] for k, v in m["measures"].items()},
                                "manifest_sha256": sha256_file(out / m["graph"] / "manifest.json")}
                   for m in sorted(manifests, key=lambda x: x["graph"])},
        "files": {"fuzzy.json": sha256_file(out / "fuzzy.json")},
    }
    if generality:
        manifest["generality"] = dict(generality)
        manifest["files"][generality["file"]] = sha256_file(out / generality["file"])
    write_json(out / "manifest.json", manifest)
    return manifest


def read_graphset_manifest(path: Path, verify: bool = True) -> dict[str, Any]:
    """Read and check a graph set manifest (format version, root file checksums)."""
    if not path.is_dir():
        raise ArtefactError(f"{path}: no graph set here (run `egqa graph build` or `egqa graph import`)")
    manifest = read_json(path / "manifest.json")
    if not isinstance(manifest, dict):
        raise ArtefactError(f"{path / 'manifest.json'}: not a graph set manifest")
    _check_version(path / "manifest.json", "format", str(manifest.get("format")), (GRAPHSET_FORMAT,))
    if verify:
        for rel, expected in manifest.get("files", {}).items():
            if not (path / rel).is_file() or sha256_file(path / rel) != expected:
                raise ArtefactError(f"{path / rel}: missing or checksum mismatch; the graph set is corrupted")
        for name, info in manifest.get("graphs", {}).items():
            mpath = path / name / "manifest.json"
            if not mpath.is_file() or sha256_file(mpath) != info.get("manifest_sha256"):
                raise ArtefactError(f"{mpath}: missing or checksum mismatch; the graph set is corrupted")
    return manifest


class StagingDir:
    """Write into `<out>.tmp-<pid>` and move it to `out` only when everything succeeded."""

    def __init__(self, out: Path, overwrite: bool = False) -> None:
        self.out = out
        self.overwrite = overwrite
        self.tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")

    def __enter__(self) -> Path:
        if self.out.exists() and any(self.out.iterdir()) and not self.overwrite:
            raise InputError(f"{self.out}: exists and is not empty (pass --overwrite to replace it)")
        if self.tmp.exists():
            shutil.rmtree(self.tmp)
        self.tmp.mkdir(parents=True)
        return self.tmp

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            return
        if self.out.exists():
            shutil.rmtree(self.out)
        os.replace(self.tmp, self.out)
