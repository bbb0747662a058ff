"""Real data: the Reuters-21578 triples in every backend answer exactly what a brute-force scan answers."""

from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from graph_builder.triples import read_articles, read_triples
from retrieval.ingest import index_dataset
from retrieval.protocol import EvidenceQuery
from tests.conftest import SHARED_DATA

REPO = Path(__file__).resolve().parents[2]
TRIPLES = Path(os.environ.get("EGQA_REUTERS_TRIPLES", REPO.parent / "data-out" / "reuters" / "triples"))

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def reuters(request: pytest.FixtureRequest) -> tuple[Path, pa.Table, pa.Table | None]:
    """The full Reuters triples when extracted (EGQA_REUTERS_TRIPLES), else the shared real two-file build."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder {SHARED_DATA} is absent")
    path = TRIPLES if any(TRIPLES.glob("part-*.parquet")) else request.getfixturevalue("reuters_build").triples
    articles = read_articles(path) if any(path.glob("articles-*.parquet")) else None
    return path, read_triples(path), articles


def brute_force(table: pa.Table, q: EvidenceQuery) -> list[tuple[str, bool]]:
    """Scan the whole table for the query's evidence: (triple_id, aligned), by (date, triple_id)."""
    in_window = table.filter(pc.equal(table["window"], q.window))
    rows = [r for r in in_window.select(["triple_id", "date", "subj", "obj", "sentence_id"]).to_pylist()
            if {(r["subj"], r["obj"])} & {(q.arg_a, q.arg_b), (q.arg_b, q.arg_a)}
            and r["sentence_id"] not in q.exclude_sentence_ids]
    rows.sort(key=lambda r: (r["date"], r["triple_id"]))
    return [(r["triple_id"], r["subj"] == q.arg_a) for r in rows]


def test_reuters_store_matches_brute_force(reuters: tuple[Path, pa.Table, pa.Table | None], store: Any) -> None:
    """All triples go in once; counts and 300 sampled BoOQA-style lookups match a full scan."""
    path, table, articles = reuters
    summary = index_dataset(path, store)
    assert summary.triples_added == table.num_rows == store.stats().triples

    windows = {w.id: w for w in store.windows()}
    triple_counts = Counter(table.column("window").to_pylist())
    assert {w: info.triples for w, info in windows.items() if info.triples} == dict(triple_counts)
    if articles is not None:
        known = Counter(articles.column("window").to_pylist())
        for w, info in windows.items():
            assert info.articles >= known.get(w, 0)  # article table plus articles seen only in triples

    rng = random.Random(7)
    rows = table.select(["window", "subj", "obj", "sentence_id"]).take(
        sorted(rng.sample(range(table.num_rows), 300))).to_pylist()
    queries = [EvidenceQuery(r["window"], *((r["subj"], r["obj"]) if i % 2 else (r["obj"], r["subj"])),
                             exclude_sentence_ids=(r["sentence_id"],) if i % 3 == 0 else ())
               for i, r in enumerate(rows)]
    got = store.evidence_many(queries)
    for q, answer in zip(queries, got, strict=True):
        assert [(e.triple_id, e.aligned) for e in answer] == brute_force(table, q)
    assert sum(1 for a in got if a) >= 200  # queries without exclusion always find their own triple

    arg = rows[0]["subj"]
    subj_types = Counter(table.filter(pc.equal(table["subj"], arg)).column("subj_type").to_pylist())
    obj_types = Counter(table.filter(pc.equal(table["obj"], arg)).column("obj_type").to_pylist())
    expected = sorted((subj_types + obj_types).items(), key=lambda kv: (-kv[1], kv[0]))
    assert [(t.type, t.count) for t in store.argument_types(arg)] == expected
