"""bench/entity_merges.py --baseline: the mentions two runs of the pass name differently, and nothing else."""

from __future__ import annotations

from pathlib import Path

import orjson

from graph_builder.triples import DATASET_MANIFEST, write_shard
from tests.bench.scripts import load_script
from tests.graph_builder.test_entities import _row

merges = load_script("entity_merges")


def _dataset(folder: Path, gm: str) -> Path:
    folder.mkdir()
    (folder / DATASET_MANIFEST).write_bytes(orjson.dumps({"format": "egqa.triples.v1"}))
    write_shard([_row(1, "a", "general motors", "General Motors", "organization", "uaw", "UAW", "organization"),
                 _row(2, "a", gm, "GM", "organization", "worker", "workers")], folder / "part-00000.parquet")
    return folder


def test_the_mentions_renamed_anew_are_drawn_with_both_names(tmp_path: Path) -> None:
    new, old = _dataset(tmp_path / "new", "general motors"), _dataset(tmp_path / "old", "gm")
    changed = merges.changed_mentions(new, old)
    assert [(c["triple_id"], c["side"], c["surface"], c["before"], c["after"]) for c in changed] == [
        ("t0002", "subj", "GM", "gm", "general motors")]
    assert merges.changed_mentions(new, new) == []
