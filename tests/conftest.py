"""Shared fixtures: where the real third-party data lives (../shared/data beside the repository)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# EGQA_TEST_SHARED_DATA relocates the folder; an empty one shows what a clone without the real data runs.
SHARED_DATA = Path(os.environ.get("EGQA_TEST_SHARED_DATA") or REPO.parent / "shared" / "data")
REUTERS = SHARED_DATA / "reuters21578"


@pytest.fixture(scope="session")
def reuters_dir() -> Path:
    """The Reuters-21578 folder; tests that need it skip with a clear message when it is absent."""
    if not REUTERS.is_dir():
        pytest.skip(f"real data absent: {REUTERS} not found (place ../shared/data beside the repository)")
    return REUTERS


SLICE = ("reut2-000.sgm", "reut2-001.sgm")  # 1,875 articles (1,845 distinct cleaned texts), 1987-02-26 .. 1987-03-04


NEWS = REPO / "tests" / "data" / "web" / "news.jsonl"  # made-up news of our own (tests/data/web/README.md)


@dataclass(frozen=True)
class Build:
    """Paths of a build shared by the store and service tests: the made-up news or the real Reuters slice."""

    triples: Path
    graphs: Path
    sqlite_url: str
    name: str = "reuters"
    day: str = "1987-02-27"  # a date with indexed news, for questions that must reach the store


@pytest.fixture(scope="session")
def reuters_build(reuters_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Build:
    """Extract two real Reuters files, build their graphs and index them in SQLite (about a minute on 2 cores)."""
    from graph_builder.graphs.build import BuildParams, build_graphs
    from graph_builder.pipeline import extract_corpus
    from graph_builder.triples import read_articles, read_triples
    from retrieval.factory import open_store

    root = tmp_path_factory.mktemp("build")
    extract_corpus([reuters_dir / name for name in SLICE], root / "triples", workers=2)
    # A slice is small: the published cutoffs scaled down.
    build_graphs(root / "triples", root / "graphs", BuildParams(min_predicates_per_pair=2, min_pairs_per_predicate=2),
                 progress=False)
    url = f"sqlite:///{root / 'evidence.db'}"
    store = open_store(url)
    store.add_articles(read_articles(root / "triples"))
    store.add_triples(read_triples(root / "triples"))
    store.close()
    return Build(root / "triples", root / "graphs", url)


@pytest.fixture(scope="session")
def fixture_build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """Extract the made-up news, build its graphs (every cutoff at 1: it is tiny) and index it in SQLite (seconds)."""
    from graph_builder.graphs.build import BuildParams, build_graphs
    from graph_builder.pipeline import extract_corpus
    from retrieval.factory import open_store
    from retrieval.ingest import index_dataset

    root = tmp_path_factory.mktemp("fixture-build")
    extract_corpus([NEWS], root / "triples", workers=1)
    build_graphs(root / "triples", root / "graphs", BuildParams(min_predicates_per_pair=1, min_pairs_per_predicate=1),
                 progress=False)
    url = f"sqlite:///{root / 'evidence.db'}"
    store = open_store(url)
    try:
        index_dataset(root / "triples", store)
    finally:
        store.close()
    return Build(root / "triples", root / "graphs", url, name="fixture", day="2021-03-04")
