"""The service over the real Reuters build (tests/conftest.py), on SQLite and on a real Elasticsearch."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from fastapi.testclient import TestClient

from graph_builder.graphs.graphset import GraphSet
from graph_builder.triples import read_articles, read_triples
from retrieval.factory import open_store
from service.app import create_app
from service.engine import ScoringEngine
from service.settings import Settings
from tests.conftest import Build
from tests.service.live import live_server
from tests.retrieval.conftest import es_url  # noqa: F401  (the real Elasticsearch fixture)

@contextmanager
def serve_in_thread(settings: Settings) -> Iterator[str]:
    """Run the app from `settings` on a free loopback port, as `egqa serve` does; yield its base URL."""
    with live_server(create_app(settings)) as (host, port):
        yield f"http://{host}:{port}"


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
