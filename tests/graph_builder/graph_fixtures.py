"""Small synthetic triples for graph tests (our own data, generated on the fly)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from graph_builder.triples import write_shard
from tests.conftest import SHARED_DATA  # noqa: F401  (the real data folder, for the tests that import it from here)



def triple_rows(specs: list[tuple[str, str, str, str, str]], start: int = 0) -> list[dict[str, object]]:
    """Rows of (subj, subj_type, predicate, obj, obj_type) with filler for the other columns."""
    rows = []
    for k, (s, st, p, o, ot) in enumerate(specs, start):
        rows.append({"triple_id": f"t{k:07d}", "article_id": f"a{k // 10}", "sentence_id": f"s{k}",
                     "date": dt.date(1987, 3, 1), "window": 0, "split": "train", "subj": s, "subj_text": s,
                     "subj_type": st, "obj": o, "obj_text": o, "obj_type": ot, "predicate": p,
                     "predicate_text": p, "negated": p.startswith("NEG__"), "sentence": f"{s} {p} {o}."})
    return rows


def random_specs(seed: int, n: int = 4000, n_preds: int = 25, n_ents: int = 18) -> list[tuple[str, str, str, str, str]]:
    """Zipf-ish random typed triples over person/location/organization."""
    rng = np.random.default_rng(seed)
    types = ["person", "location", "organization"]
    specs = []
    for _ in range(n):
        p = f"(p{(rng.zipf(1.4) - 1) % n_preds}.1,p{(rng.zipf(1.4) - 1) % n_preds}.x.2)"
        st, ot = types[rng.integers(3)], types[rng.integers(3)]
        specs.append((f"e{rng.integers(n_ents)}", st, p, f"e{rng.integers(n_ents)}", ot))
    return specs


def write_triples(folder: Path, specs: list[tuple[str, str, str, str, str]], shards: int = 2) -> Path:
    """Write specs as a triples dataset of `shards` part files and return the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = triple_rows(specs)
    size = -(-len(rows) // shards)
    for i in range(shards):
        write_shard(rows[i * size:(i + 1) * size], folder / f"part-{i:05d}.parquet")
    return folder


def naive_generality(triples: Path, splits: tuple[str, ...] | None = None) -> dict[str, int]:
    """n(p) by hand: distinct typed argument pairs per predicate over the triples (negated ones under NEG__), a
    same-type pair of one name with itself not counted (the graphs cannot tell its slots apart)."""
    pairs: dict[str, set[tuple[str, str, str, str]]] = {}
    for r in pq.read_table(triples).to_pylist():
        if (splits and r["split"] not in splits) or (r["subj_type"] == r["obj_type"] and r["subj"] == r["obj"]):
            continue
        predicate = ("NEG__" if r["negated"] and not r["predicate"].startswith("NEG__") else "") + r["predicate"]
        pairs.setdefault(predicate, set()).add((r["subj"], r["subj_type"], r["obj"], r["obj_type"]))
    return {p: len(v) for p, v in pairs.items()}
