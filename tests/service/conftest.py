"""The service over two builds (tests/conftest.py): the made-up news, always there, and the real Reuters slice,
there when ../shared/data is; on SQLite, and the real build on a real Elasticsearch as well.

Tests that ask `api` (with `any_build`) run once per build; on a clone without ../shared/data the Reuters run
skips and the made-up news still tests every route."""

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
def fixture_client(fixture_build: Build) -> Iterator[TestClient]:
    """The service on the made-up news, started through its real lifespan, no sentence-embedding model."""
    settings = Settings(graphs_dir=fixture_build.graphs, store_url=fixture_build.sqlite_url, max_batch=50, lm=False)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="session", params=["fixture", "reuters"])
def any_build(request: pytest.FixtureRequest) -> Build:
    """Each build in turn: the made-up news, then the real Reuters slice (skipped when ../shared/data is absent)."""
    return request.getfixturevalue(f"{request.param}_build")  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def api(any_build: Build, request: pytest.FixtureRequest) -> TestClient:
    """The service on `any_build` (the same client the build's own tests use)."""
    name = "fixture_client" if any_build.name == "fixture" else "client"
    return request.getfixturevalue(name)  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def any_graphs(any_build: Build, request: pytest.FixtureRequest) -> GraphSet:
    """The graph set of `any_build` (the Reuters one is the session's `graphs`, loaded once)."""
    if any_build.name == "reuters":
        return request.getfixturevalue("graphs")  # type: ignore[no-any-return]
    return GraphSet.load(any_build.graphs)


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
