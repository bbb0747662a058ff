"""A real egqa build for the service tests: two Reuters-21578 files extracted, graphs built, stores indexed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from graph_builder.graphs.build import BuildParams, build_graphs
from graph_builder.graphs.graphset import GraphSet
from graph_builder.pipeline import extract_corpus
from graph_builder.triples import read_articles, read_triples
from retrieval.factory import open_store
from service.app import create_app
from service.engine import ScoringEngine
from service.settings import Settings
from tests.retrieval.conftest import es_url  # noqa: F401  (the real Elasticsearch fixture)

SLICE = ("reut2-000.sgm", "reut2-001.sgm")  # 1,875 articles, 1987-02-26 .. 1987-03-04
CUTOFFS = BuildParams(min_predicates_per_pair=2, min_pairs_per_predicate=2)  # a slice is small: scale cutoffs down


@dataclass(frozen=True)
class Build:
    """Paths of the real build shared by the service tests."""

    triples: Path
    graphs: Path
    sqlite_url: str


@pytest.fixture(scope="session")
def reuters_build(reuters_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Build:
    """Extract the slice, build its graphs and index it in SQLite (about a minute on 2 cores)."""
    root = tmp_path_factory.mktemp("build")
    extract_corpus([reuters_dir / name for name in SLICE], root / "triples", workers=2)
    build_graphs(root / "triples", root / "graphs", CUTOFFS, progress=False)
    url = f"sqlite:///{root / 'evidence.db'}"
    store = open_store(url)
    store.add_articles(read_articles(root / "triples"))
    store.add_triples(read_triples(root / "triples"))
    store.close()
    return Build(root / "triples", root / "graphs", url)


@pytest.fixture(scope="session")
def graphs(reuters_build: Build) -> GraphSet:
    """The slice's graph set."""
    return GraphSet.load(reuters_build.graphs)


@pytest.fixture(scope="session")
def client(reuters_build: Build) -> Iterator[TestClient]:
    """The service, started through its real lifespan from settings, on the SQLite store."""
    settings = Settings(graphs_dir=reuters_build.graphs, store_url=reuters_build.sqlite_url, max_batch=50)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def es_client(reuters_build: Build, graphs: GraphSet, es_url: str) -> Iterator[TestClient]:  # noqa: F811
    """The same service on a real Elasticsearch holding the same triples."""
    store = open_store(f"{es_url}/egqa-service-test")
    store.add_articles(read_articles(reuters_build.triples))
    store.add_triples(read_triples(reuters_build.triples))
    engine = ScoringEngine(graphs, store)
    with TestClient(create_app(Settings(graphs_dir=reuters_build.graphs), engine=engine)) as test_client:
        yield test_client
    drop = getattr(store, "drop", None)
    if drop is not None:
        drop()
    store.close()
