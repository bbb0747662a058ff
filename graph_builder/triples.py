"""The triples dataset: a folder of Parquet shards with one fixed schema, written atomically.

Canonical argument order: `subj` fills the predicate's first slot and `obj` its second, so
`(visit.1,visit.2)` with subj=john, obj=ikea reads "john visit ikea". Graphs and queries keep this order;
a typed predicate is `predicate#subj_type#obj_type`.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from graph_builder.errors import ArtefactError, InputError

TRIPLE_SCHEMA = pa.schema([
    pa.field("triple_id", pa.string(), nullable=False),
    pa.field("article_id", pa.string(), nullable=False),
    pa.field("sentence_id", pa.string(), nullable=False),
    pa.field("date", pa.date32(), nullable=False),
    pa.field("window", pa.int32(), nullable=False),
    pa.field("split", pa.string(), nullable=False),
    pa.field("subj", pa.string(), nullable=False),
    pa.field("subj_text", pa.string(), nullable=False),
    pa.field("subj_type", pa.string(), nullable=False),
    pa.field("obj", pa.string(), nullable=False),
    pa.field("obj_text", pa.string(), nullable=False),
    pa.field("obj_type", pa.string(), nullable=False),
    pa.field("predicate", pa.string(), nullable=False),
    pa.field("predicate_text", pa.string(), nullable=False),
    pa.field("negated", pa.bool_(), nullable=False),
    pa.field("sentence", pa.string(), nullable=False),
])

ARTICLE_SCHEMA = pa.schema([
    pa.field("article_id", pa.string(), nullable=False),
    pa.field("date", pa.date32(), nullable=False),
    pa.field("window", pa.int32(), nullable=False),
    pa.field("split", pa.string(), nullable=False),
    pa.field("title", pa.string(), nullable=False),
    pa.field("sentences", pa.int32(), nullable=False),
    pa.field("tokens", pa.int32(), nullable=False),
    pa.field("triples", pa.int32(), nullable=False),
])

SHARD_GLOB = "part-*.parquet"
ARTICLE_GLOB = "articles-*.parquet"


def shard_path(out_dir: Path, shard_name: str) -> Path:
    """Return the path of the shard called `shard_name` inside `out_dir`."""
    return out_dir / f"part-{shard_name}.parquet"


def article_shard_path(out_dir: Path, shard_name: str) -> Path:
    """Return the path of the article-table shard that goes with shard `shard_name`."""
    return out_dir / f"articles-{shard_name}.parquet"


def write_table(table: pa.Table, path: Path) -> None:
    """Write a Parquet table to `path` atomically: a crash leaves either the whole file or the old one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, path)


def write_shard(rows: list[dict[str, object]], path: Path, schema: pa.Schema = TRIPLE_SCHEMA) -> None:
    """Write rows to `path` atomically: a crash leaves either the whole shard or none of it."""
    write_table(pa.Table.from_pylist(rows, schema=schema), path)


DATASET_MANIFEST = "manifest.json"
# What makes two extractions the same dataset: the same extractor and model over the same corpus, in the same windows.
IDENTITY_KEYS = ("format", "extractor", "model", "window_days", "corpus_fingerprint", "eval_from")


def kept_beside(shard: Path, side: Path, table: pa.Table, schema: pa.Schema) -> pa.Table:
    """The columns of `schema` (the first is `triple_id`) as a shard first had them: the side file once a pass has
    kept them there, else the shard's own, kept now, before the pass rewrites the shard (a crash in between loses
    nothing). `table` holds the shard's current rows with those columns."""
    kept = read_beside(shard, side, table)
    if kept is None:
        kept = table.select(schema.names).cast(schema)
        write_table(kept, side)
    return kept


def read_beside(shard: Path, side: Path, table: pa.Table) -> pa.Table | None:
    """The side file a pass kept beside `shard` (None where there is none yet), checked row by row against the
    `triple_id` column of `table`, the shard's current rows."""
    if not side.is_file():
        return None
    kept = pq.read_table(side)
    if kept.num_rows == table.num_rows and kept["triple_id"].equals(table["triple_id"]):
        return kept
    raise InputError(f"{side} does not match {shard.name}: remove both and extract the shard again")


def record_in_manifest(triples: Path, key: str, entry: dict[str, object]) -> None:
    """Set `key` of the dataset's manifest to `entry` (a pass's version and report), rewriting it atomically."""
    path = triples / DATASET_MANIFEST
    manifest = orjson.loads(path.read_bytes()) if path.is_file() else {}
    manifest[key] = entry
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    os.replace(tmp, path)


def dataset_identity(path: Path) -> str | None:
    """A short description of the dataset at `path` from its manifest (None without one): stores record it."""
    manifest = (path if path.is_dir() else path.parent) / DATASET_MANIFEST
    if not manifest.is_file():
        return None
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ArtefactError(f"{manifest}: unreadable dataset manifest: {exc}") from exc
    if not isinstance(data, dict):
        raise ArtefactError(f"{manifest}: not a dataset manifest")
    fingerprint = str(data.get("corpus_fingerprint") or "?")[:12]
    return (f"{data.get('format')} {data.get('extractor')} {data.get('model')} corpus {fingerprint} "
            f"window_days {data.get('window_days')} eval_from {data.get('eval_from')}")


def shard_files(path: Path) -> list[Path]:
    """Return the sorted shard files of a triples dataset (a folder) or the single file given."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ArtefactError(f"{path}: no triples dataset here (run `egqa extract` first)")
    files = sorted(path.glob(SHARD_GLOB))
    if not files:
        raise ArtefactError(f"{path}: folder holds no {SHARD_GLOB} shards (run `egqa extract` first)")
    return files


def read_triples(path: Path, columns: list[str] | None = None) -> pa.Table:
    """Read a whole triples dataset into one table, rows in a deterministic order (by triple_id)."""
    files = shard_files(path)
    try:
        table = ds.dataset([str(f) for f in files], format="parquet", schema=TRIPLE_SCHEMA).to_table(
            columns=columns if columns is None or "triple_id" in columns else [*columns, "triple_id"])
    except (pa.ArrowInvalid, OSError) as exc:
        raise ArtefactError(f"{path}: unreadable triples dataset: {exc}") from exc
    table = table.sort_by("triple_id")
    if columns is not None and "triple_id" not in columns:
        table = table.drop_columns(["triple_id"])
    return table


def dataset_checksum(path: Path) -> str:
    """Return a SHA-256 over the shard files' names and bytes, identifying the dataset's content."""
    digest = hashlib.sha256()
    for file in shard_files(path):
        digest.update(file.name.encode())
        with file.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()


def read_articles(path: Path) -> pa.Table:
    """Read the article table of a triples dataset (one row per article read, with its counts)."""
    files = sorted(path.glob(ARTICLE_GLOB)) if path.is_dir() else []
    if not files:
        raise ArtefactError(f"{path}: no {ARTICLE_GLOB} files (run `egqa extract` to make the dataset)")
    try:
        table = ds.dataset([str(f) for f in files], format="parquet", schema=ARTICLE_SCHEMA).to_table()
    except (pa.ArrowInvalid, OSError) as exc:
        raise ArtefactError(f"{path}: unreadable article table: {exc}") from exc
    return table.sort_by("article_id")
