"""One type per name across a corpus: the majority of its recognised mentions.

The entity recogniser types each mention on its own, so one company comes out an organisation in one
sentence and a person or a location in the next, and a proper name it missed is typed `thing`. After
extraction, every capitalised mention of a name takes the type most of the name's typed mentions have
(company suffixes already count as organisation evidence at extraction). Common nouns (lowercase surface)
keep `thing`: "the bank" is not "Bank".
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from graph_builder.errors import InputError
from graph_builder.extraction.arguments import UNKNOWN_TYPE
from graph_builder.triples import TRIPLE_SCHEMA, shard_files, write_table

TYPES_FILE = "entity_types.parquet"
TYPES_VERSION = "egqa.majority-types.v1"


@dataclass
class TypeReport:
    """What harmonising did: names typed, mentions whose type changed, by (old, new) type."""

    names: int = 0
    mentions: int = 0
    changed: int = 0
    changes: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """Return the report as JSON-ready data."""
        return asdict(self)


def _capitalised(texts: pa.ChunkedArray | pa.Array) -> pa.Array:
    first = pc.utf8_slice_codeunits(texts, 0, 1)
    return pc.and_(pc.equal(first, pc.utf8_upper(first)), pc.not_equal(first, pc.utf8_lower(first)))


def majority_types(table: pa.Table) -> dict[str, str]:
    """Map each name to the type most of its recognised (non-`thing`) capitalised mentions have."""
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    for side in ("subj", "obj"):
        part = table.select([side, f"{side}_text", f"{side}_type"])
        keep = pc.and_(_capitalised(part[f"{side}_text"]), pc.not_equal(part[f"{side}_type"], UNKNOWN_TYPE))
        part = part.filter(keep)
        counts = part.group_by([side, f"{side}_type"]).aggregate([([], "count_all")])
        for name, kind, n in zip(counts[side].to_pylist(), counts[f"{side}_type"].to_pylist(),
                                 counts["count_all"].to_pylist()):
            votes[name][kind] += n
    # Ties go to the alphabetically first type, so the result never depends on row order.
    return {name: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] for name, c in votes.items()}


def _retype(table: pa.Table, types: dict[str, str], report: TypeReport) -> pa.Table:
    for side in ("subj", "obj"):
        names = table[side].to_pylist()
        old = table[f"{side}_type"].to_pylist()
        caps = _capitalised(table[f"{side}_text"]).to_pylist()
        new = []
        for name, kind, cap in zip(names, old, caps, strict=True):
            target = types.get(name) if cap else None
            report.mentions += 1
            if target is not None and target != kind:
                report.changed += 1
                key = f"{kind}->{target}"
                report.changes[key] = report.changes.get(key, 0) + 1
                new.append(target)
            else:
                new.append(kind)
        table = table.set_column(table.schema.get_field_index(f"{side}_type"), f"{side}_type",
                                 pa.array(new, pa.string()))
    return table


def harmonise_types(triples: Path) -> TypeReport:
    """Give every capitalised mention of a name its majority type, rewriting each shard atomically.

    Idempotent: a second run changes nothing. The name -> type map is written to `entity_types.parquet`.
    """
    files = shard_files(triples)
    if not files:
        raise InputError(f"{triples} holds no triple shards (run `egqa extract` first)")
    columns = ["subj", "subj_text", "subj_type", "obj", "obj_text", "obj_type"]
    table = pa.concat_tables(pq.read_table(f, columns=columns) for f in files)
    types = majority_types(table)
    del table
    report = TypeReport(names=len(types))
    for file in files:
        shard = pq.read_table(file, schema=TRIPLE_SCHEMA)
        changed_before = report.changed
        shard = _retype(shard, types, report).cast(TRIPLE_SCHEMA)  # keep the not-null fields of the schema
        if report.changed != changed_before:
            write_table(shard, file)
    names = sorted(types)
    pq.write_table(pa.table({"name": names, "type": [types[n] for n in names]}), triples / TYPES_FILE)
    return report
