"""No server path, store address or key in any response body or log line: fuzzed requests (schemathesis, from
the app's own OpenAPI document, with and without the key) and malformed ones through the HTTP layer, every body
and every line the requests made the service log searched."""

from __future__ import annotations

import logging
import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.generation import GenerationMode

from bench.probe import raw_request
from service.app import create_app
from service.protocol import HttpLimits
from service.settings import Settings
from tests.conftest import Build
from tests.service.live import live_server

KEY = "leak-probe-key-" + "z" * 17
# LEAK_FUZZ_SCALE=12 multiplies the examples for a longer run (docs/benchmarks.md records one).
SCALE = int(os.environ.get("LEAK_FUZZ_SCALE", "1"))
EXAMPLES = {GenerationMode.POSITIVE: 60 * SCALE, GenerationMode.NEGATIVE: 30 * SCALE}


class _LogLines(logging.Handler):
    """Every record logged while it is attached, formatted as the service's log would print it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def _secrets(build: Build) -> list[str]:
    """What no body may contain: the graphs and store paths (as configured and resolved), their folder, the key."""
    db = Path(build.sqlite_url.removeprefix("sqlite:///"))
    places = {str(build.graphs), str(build.graphs.resolve()), str(db), str(db.resolve()), str(build.graphs.parent),
              build.sqlite_url}
    return sorted(places) + [KEY]


@pytest.fixture(scope="module")
def leak_build(fixture_build: Build, tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The made-up news in a folder of its own: the fuzzing posts articles, which the shared store must not take."""
    root = tmp_path_factory.mktemp("leak-build")
    shutil.copytree(fixture_build.graphs, root / "graphs")
    shutil.copy(fixture_build.sqlite_url.removeprefix("sqlite:///"), root / "evidence.db")
    return Build(fixture_build.triples, root / "graphs", f"sqlite:///{root / 'evidence.db'}", name="fixture",
                 day=fixture_build.day)


@pytest.fixture(scope="module")
def keyed_app(leak_build: Build) -> Iterator[FastAPI]:
    """The service on the made-up news with an API key, started through its lifespan."""
    settings = Settings(graphs_dir=leak_build.graphs, store_url=leak_build.sqlite_url, api_key=KEY, lm=False,
                        max_batch=50)
    with TestClient(create_app(settings)) as client:
        yield client.app  # type: ignore[misc]


def test_no_fuzzed_response_names_a_path_or_the_key(keyed_app: FastAPI, leak_build: Build) -> None:
    spec = TestClient(keyed_app).get("/openapi.json", headers={"X-API-Key": KEY}).json()  # no second lifespan
    schema = schemathesis.openapi.from_dict(spec)
    secrets = _secrets(leak_build)
    leaks: list[str] = []
    statuses: Counter[int] = Counter()
    logged = _LogLines()
    logging.getLogger().addHandler(logged)
    with live_server(keyed_app, lifespan="off", limits=HttpLimits()) as (host, port):
        base_url = f"http://{host}:{port}"
        for result in schema.get_all_operations():
            operation = result.ok()
            documented = spec["paths"][operation.path][operation.method.lower()]
            for mode, examples in EXAMPLES.items():
                if mode is GenerationMode.NEGATIVE and not ({"parameters", "requestBody"} & set(documented)):
                    continue  # nothing to get wrong in a request without inputs
                for headers in ({"Authorization": f"Bearer {KEY}"}, {}):

                    @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                              suppress_health_check=list(HealthCheck))
                    @given(case=operation.as_strategy(generation_mode=mode))
                    def run(case: schemathesis.Case) -> None:
                        response = case.call(base_url=base_url, headers=headers, timeout=30)
                        statuses[response.status_code] += 1
                        body = response.content.decode("utf-8", "replace")
                        leaks.extend(f"{operation.label} {response.status_code}: {s}" for s in secrets if s in body)

                    run()
        raw = [b"GET /health HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n",
               b"GET /" + b"a" * 10_000 + b" HTTP/1.1\r\n\r\n", b"\x16\x03\x01\x00\x00", b"GET / HTTP/1.1\r\n\x00\r\n\r\n",
               b"POST /v1/query HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n"]
        for data in raw:
            answer = raw_request(host, port, data)
            statuses[answer.status or 0] += 1
            leaks.extend(f"raw {answer.status}: {s}" for s in secrets if s in answer.body.decode("utf-8", "replace"))
    logging.getLogger().removeHandler(logged)
    # What the requests made the service log: no path or key either (the operator's start-up lines are not here).
    leaks.extend(f"log: {line}" for line in logged.lines for s in secrets if s in line)
    total = sum(statuses.values())
    print(f"{total} responses and {len(logged.lines)} log lines searched for {len(secrets)} strings; "
          f"statuses {dict(sorted(statuses.items()))}")
    assert total >= 500
    assert {200, 401, 404, 422} <= set(statuses), "the fuzzing reached too few outcomes to mean anything"
    assert not [s for s in statuses if s >= 500]
    assert not leaks, leaks[:10]


def test_the_probe_reads_a_leak_when_there_is_one(fixture_build: Build) -> None:
    """Guards the search above: a body that does carry a path is found."""
    secrets = _secrets(fixture_build)
    body = f'{{"error": {{"message": "no such file {fixture_build.graphs}/manifest.json"}}}}'
    assert [s for s in secrets if s in body]
