"""How general each predicate is: its distinct argument pairs over the triples a graph set was built from.

The distributional generality hypothesis (Weeds et al. 2004): an entailed predicate is usually the more general
one, seen with more argument pairs. `+dir` reads it to tell a premise more general than its hypothesis. A graph
holds only the predicates that pass its cutoffs, so a build also writes every predicate of its input with its
count (`generality.parquet`, format `egqa.generality.v1`: predicate, pairs; counted before the cutoffs by the
build's own counting pass, negated predicates under their `NEG__` name), checksummed in the set's manifest.
Graph sets without it (imported rule sets, builds before it) fall back to their graphs' node counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from graph_builder.errors import ArtefactError

GENERALITY_FILE = "generality.parquet"
GENERALITY_FORMAT = "egqa.generality.v1"
GENERALITY_SCHEMA = pa.schema([("predicate", pa.string()), ("pairs", pa.int64())])


def write_generality(folder: Path, table: pa.Table) -> dict[str, Any]:
    """Write the predicate counts into a graph set folder; return the manifest's description of them."""
    table = table.select(GENERALITY_SCHEMA.names).cast(GENERALITY_SCHEMA)
    pq.write_table(table, Path(folder) / GENERALITY_FILE, compression="zstd")
    return {"file": GENERALITY_FILE, "format": GENERALITY_FORMAT, "predicates": table.num_rows,
            "counts": "distinct argument pairs per predicate, before the cutoffs"}


def read_generality(folder: Path, manifest: dict[str, Any]) -> dict[str, int] | None:
    """The predicate counts of a graph set (None where its manifest lists none)."""
    entry = manifest.get("generality")
    if not entry:
        return None
    if entry.get("format") != GENERALITY_FORMAT:
        raise ArtefactError(f"{folder}: predicate counts of format {entry.get('format')!r}, "
                            f"this egqa reads {GENERALITY_FORMAT}; rebuild the graphs")
    path = Path(folder) / str(entry.get("file", GENERALITY_FILE))
    try:
        table = pq.read_table(path, schema=GENERALITY_SCHEMA)
    except (OSError, pa.ArrowInvalid) as exc:
        raise ArtefactError(f"{path}: unreadable predicate counts ({exc}); rebuild the graphs") from None
    return dict(zip(table["predicate"].to_pylist(), table["pairs"].to_pylist(), strict=True))
