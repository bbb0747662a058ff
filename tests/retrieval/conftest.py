"""Fixtures for the evidence-store tests: a real Elasticsearch (started by our script when none runs)
and one `store` fixture parametrized over every backend, so one contract suite covers them all."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest


REPO = Path(__file__).resolve().parents[2]
ES_SCRIPT = REPO / "scripts" / "elasticsearch.sh"
ES_PORT = int(os.environ.get("EGQA_TEST_ES_PORT", "9200"))
ES_URL = os.environ.get("EGQA_TEST_ES_URL", f"http://127.0.0.1:{ES_PORT}")
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def _es_up(url: str) -> bool:
    """Return True when a cluster answers yellow/green at `url` within a couple of seconds."""
    from graph_builder.errors import StoreError
    from retrieval.backends.elasticsearch import ElasticsearchStore

    store = ElasticsearchStore.from_url(url, request_timeout=2.0)
    try:
        store.ping()
        return True
    except StoreError:
        return False
    finally:
        store.close()


def _unavailable(reason: str) -> None:
    """Fail in CI (the ES tests must run there), skip with `reason` elsewhere."""
    if IN_CI:
        pytest.fail(f"CI=true but Elasticsearch is unavailable: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def es_url() -> Iterator[str]:
    """Yield the URL of a running Elasticsearch; start it with scripts/elasticsearch.sh if needed."""
    if _es_up(ES_URL):
        yield ES_URL
        return
    if "EGQA_TEST_ES_URL" in os.environ:
        _unavailable(f"EGQA_TEST_ES_URL={ES_URL} does not answer")
    missing = [tool for tool in ("java", "mvn", "curl") if shutil.which(tool) is None]
    if missing:
        _unavailable(f"cannot start Elasticsearch: {', '.join(missing)} not installed "
                     "(needs Java 17+ and Maven; see scripts/elasticsearch.sh)")
    result = subprocess.run([str(ES_SCRIPT), "start", str(ES_PORT)], capture_output=True, text=True,
                            timeout=900)
    if result.returncode != 0:
        _unavailable(f"scripts/elasticsearch.sh start {ES_PORT} failed:\n{result.stderr[-3000:]}")
    try:
        yield ES_URL
    finally:
        subprocess.run([str(ES_SCRIPT), "stop", str(ES_PORT)], capture_output=True, text=True, timeout=120)


@pytest.fixture(params=["sqlite", "elasticsearch"])
def backend(request: pytest.FixtureRequest) -> str:
    """The backend name a contract test runs against."""
    return str(request.param)


@pytest.fixture
def store_factory(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[object]:
    """Return a function opening a fresh, empty store of `backend` (dropped after the test)."""
    from retrieval.factory import open_store

    opened: list[object] = []
    base = request.getfixturevalue("es_url") if backend == "elasticsearch" else ""

    def make(**options: object) -> object:
        name = f"egqa-test-{uuid.uuid4().hex[:10]}"
        url = f"{base}/{name}" if backend == "elasticsearch" else f"sqlite:///{tmp_path / name}.db"
        store = open_store(url, **options)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.drop()  # type: ignore[attr-defined]
        store.close()  # type: ignore[attr-defined]


@pytest.fixture
def store(store_factory: object) -> object:
    """A fresh, empty store of the parametrized backend."""
    return store_factory()  # type: ignore[operator]
