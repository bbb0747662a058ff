"""A service that stays up: no 500s on odd input, clear messages, limits, a key, honest readiness, no leaks.

Requests to the shared service run on each build (`api`); apps built with settings of their own run on the
made-up news (`fixture_build`), which needs no ../shared/data."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastapi.testclient import TestClient

from graph_builder.extraction.arguments import ENTITY_TYPES, UNKNOWN_TYPE
from graph_builder.graphs.graphset import GraphSet
from retrieval.backends.sqlite import SQLiteStore
from retrieval.factory import open_store
from service import guards
from service.app import StartupFailed, create_app
from service.demo import free_port
from service.engine import ScoringEngine
from service.settings import Settings
from tests.conftest import Build
from tests.service.live import live_server

REPO = Path(__file__).resolve().parents[2]
KEY = "k" * 24
ASK = {"text": "Texaco sold its stake to Exxon.", "date": "2021-03-04"}  # a day of the made-up news


def _ask(build: Build) -> dict[str, str]:
    """ASK on a day with news in `build`."""
    return {**ASK, "date": build.day}


def _error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()["error"]
    assert body["code"] and body["message"]
    return body  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def engine(fixture_build: Build) -> Iterator[ScoringEngine]:
    """An engine on the made-up news, for apps with settings of their own."""
    store = open_store(fixture_build.sqlite_url, create=False)
    yield ScoringEngine(GraphSet.load(fixture_build.graphs), store)
    store.close()


# -- 1. out-of-range windows and dates: 4xx, never 500 --------------------------------------------------
@pytest.mark.parametrize("where", [{"window": 1_000_000}, {"window": -10**9}, {"window": 2**63},
                                   {"date": "0001-01-01"}, {"date": "9999-12-31"}, {"window": -239721}],
                         ids=["1e6", "-1e9", "2^63", "year1", "year9999", "first-window"])
def test_out_of_range_windows_and_dates_are_client_errors(api: TestClient, any_build: Build,
                                                          where: dict[str, Any]) -> None:
    single = api.post("/v1/query", json={"text": ASK["text"], **where})
    batch = api.post("/v1/query/batch", json={"queries": [_ask(any_build), {"text": ASK["text"], **where}]})
    for response in (single, batch):
        assert response.status_code in (404, 422), response.text
        assert response.json()["error"]["message"]


def test_an_unexpected_error_is_a_500_that_keeps_the_connection(fixture_build: Build) -> None:
    class FaultyStore(SQLiteStore):
        def windows(self) -> list[Any]:
            raise RuntimeError("a bug")

    store = FaultyStore(fixture_build.sqlite_url.removeprefix("sqlite:///"), create=False)
    app = create_app(Settings(graphs_dir=fixture_build.graphs),
                     engine=ScoringEngine(GraphSet.load(fixture_build.graphs), store))
    with live_server(app) as (host, port):
        conn = http.client.HTTPConnection(host, port, timeout=10)
        conn.request("GET", "/v1/windows")
        failed = conn.getresponse()
        body = json.loads(failed.read())
        assert failed.status == 500 and body["error"]["code"] == "internal_error"
        assert "a bug" not in body["error"]["message"]
        conn.request("GET", "/health")  # the same keep-alive connection still works
        assert conn.getresponse().status == 200
        conn.close()
    store.close()


# -- 6. body size limit, checked before the body is read ---------------------------------------------------
def test_oversized_body_is_refused_before_it_is_sent(engine: ScoringEngine, fixture_build: Build) -> None:
    app = create_app(Settings(graphs_dir=fixture_build.graphs, max_body_bytes=100_000), engine=engine)
    with live_server(app) as (host, port), socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(b"POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100000000\r\n\r\n{\"text\": \"")
        start = time.monotonic()
        answer = b""
        while chunk := sock.recv(65536):  # answered, and closed, while 100 MB are still unsent
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 413") and b"payload_too_large" in answer
        assert time.monotonic() - start < 2.0


def test_oversized_chunked_body_is_refused(engine: ScoringEngine, fixture_build: Build) -> None:
    app = create_app(Settings(graphs_dir=fixture_build.graphs, max_body_bytes=100_000), engine=engine)
    with TestClient(app) as small:
        item = {**ASK, "exclude_sentence_ids": ["x" * 150] * 1000}
        chunks = (part.encode() for part in json.dumps(item).partition("exclude"))  # no Content-Length
        error = _error(small.post("/v1/query", content=chunks, headers={"content-type": "application/json"}), 413)
        assert "100000 bytes" in error["message"]


def test_health_answers_while_a_huge_batch_is_refused(fixture_build: Build, engine: ScoringEngine,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings(graphs_dir=fixture_build.graphs, max_batch=1000, max_body_bytes=20_000_000)
    body = json.dumps({"queries": [ASK] * 100_000}).encode()  # 6 MB: under the body limit, over the batch limit
    decoded_on_loop: list[tuple[int, bool]] = []
    decode = guards.decode_json

    def watched(raw: bytes) -> Any:
        try:
            asyncio.get_running_loop()
            on_loop = True
        except RuntimeError:  # a worker thread has no running loop
            on_loop = False
        decoded_on_loop.append((len(raw), on_loop))
        return decode(raw)

    monkeypatch.setattr(guards, "decode_json", watched)
    with live_server(create_app(settings, engine=engine)) as (host, port):
        result: dict[str, Any] = {}

        def send() -> None:
            began = time.monotonic()
            big = http.client.HTTPConnection(host, port, timeout=60)
            big.request("POST", "/v1/query/batch", body=body, headers={"content-type": "application/json"})
            answer = big.getresponse()
            result.update(status=answer.status, body=json.loads(answer.read()), seconds=time.monotonic() - began)

        sender = threading.Thread(target=send)
        sender.start()
        probe = http.client.HTTPConnection(host, port, timeout=30)
        answered = 0
        while sender.is_alive():
            probe.request("GET", "/health")
            assert probe.getresponse().read()
            answered += 1
        sender.join()
    assert result["status"] == 413 and "limit is 1000" in result["body"]["error"]["message"]
    assert answered >= 1  # /health kept answering while the batch was in flight
    # The 6 MB body was decoded in a worker thread, not on the event loop that answers /health (how long /health
    # waited is bench/probe.py's figure: on a loaded machine the decode's hold on the GIL slows it either way).
    big = [on_loop for size, on_loop in decoded_on_loop if size == len(body)]
    assert big == [False]


# -- 8. messages that say what to fix -----------------------------------------------------------------------
@pytest.mark.parametrize(("content", "headers", "status", "needle"), [
    (json.dumps(ASK).encode(), {"content-type": "text/plain"}, 415, "Content-Type: application/json"),
    (b'{"text": "Texaco \xff\xfe", "date": "1987-02-27"}', {"content-type": "application/json"}, 422, "UTF-8"),
    (b"[" * 5000 + b"]" * 5000, {"content-type": "application/json"}, 422, "nested too deeply"),
    (b'{"text": "Exxon bought Texaco.", "date": "1987-02-27", "threshold": NaN}', {"content-type": "application/json"},
     422, "NaN"),
    (b'{"text": "Exxon bought Texaco.", "window": true}', {"content-type": "application/json"}, 422, "window"),
    (b'{"text": "Exxon bought Texaco.", "date": "1987-02-27", "threshold": 1e400}',
     {"content-type": "application/json"}, 422, "finite number"),
], ids=["text-plain", "bad-utf8", "deep", "nan", "window-true", "infinite"])
def test_unreadable_bodies_get_clear_messages(api: TestClient, content: bytes, headers: dict[str, str],
                                              status: int, needle: str) -> None:
    assert needle in _error(api.post("/v1/query", content=content, headers=headers), status)["message"]


def test_unknown_argument_type_lists_the_valid_ones(api: TestClient, any_build: Build) -> None:
    body = {"subject": "exxon", "predicate": "(buy.1,buy.2)", "object": "texaco", "date": any_build.day,
            "subject_type": "planet"}
    message = _error(api.post("/v1/query", json=body), 422)["message"]
    assert "'planet'" in message
    assert all(t in message for t in {*ENTITY_TYPES.values(), UNKNOWN_TYPE})
    assert api.post("/v1/query", json={**body, "subject_type": "Organization"}).status_code != 422


def test_405_says_which_methods_are_allowed(api: TestClient) -> None:
    response = api.get("/v1/query")
    assert response.status_code == 405 and response.headers["allow"] == "POST"
    assert response.json()["error"]["code"] == "method_not_allowed"


# -- 7. the OpenAPI document states the rules the service enforces ------------------------------------------
def test_openapi_describes_the_enforced_rules(api: TestClient) -> None:
    spec = api.get("/openapi.json").json()
    params = {p["name"]: p["schema"] for p in spec["paths"]["/v1/entailment"]["get"]["parameters"]}
    assert params["types"]["pattern"] == r"^[A-Za-z0-9_.:-]+#[A-Za-z0-9_.:-]+$"  # the engine's rule (test_consistency)
    schema = {**spec["components"]["schemas"]["QueryRequest"], "components": spec["components"]}
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"text": "Exxon bought Texaco.", "date": "1987-02-27"})
    assert validator.is_valid({"subject": "a", "predicate": "p", "object": "b", "window": 3})
    assert not validator.is_valid({"text": "Exxon bought Texaco."})  # no date nor window
    assert not validator.is_valid({"text": "x", "subject": "a", "date": "1987-02-27"})  # text and triple
    assert not validator.is_valid({"subject": "a", "predicate": "p", "date": "1987-02-27"})  # half a triple
    assert not validator.is_valid({"text": "x", "window": True})
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            assert "500" in operation["responses"], f"{method.upper()} {path} does not document 500"


# -- 9. no server paths or store addresses in what clients see ------------------------------------------------
def test_graphs_listing_and_store_errors_reveal_no_paths(api: TestClient, any_build: Build,
                                                         any_graphs: GraphSet) -> None:
    listing = api.get("/v1/graphs").text
    assert str(any_build.graphs.parent) not in listing and "/tmp" not in listing
    closed = open_store(any_build.sqlite_url, create=False)
    closed.close()
    dead = open_store(f"http://127.0.0.1:{free_port()}/egqa-nothing", request_timeout=0.5)
    for store in (closed, dead):
        app = create_app(Settings(graphs_dir=any_build.graphs), engine=ScoringEngine(any_graphs, store))
        with TestClient(app) as broken:
            for response in (broken.get("/v1/windows"), broken.get("/ready"),
                             broken.post("/v1/query", json=_ask(any_build))):
                _error(response, 503)
                assert "evidence.db" not in response.text and "127.0.0.1" not in response.text
                assert str(any_build.graphs.parent) not in response.text


# -- API key ----------------------------------------------------------------------------------------------------
def test_api_key_guards_every_route_but_health_and_ready(engine: ScoringEngine, fixture_build: Build) -> None:
    app = create_app(Settings(graphs_dir=fixture_build.graphs, api_key=KEY), engine=engine)
    with TestClient(app) as keyed:
        assert keyed.get("/health").status_code == 200 and keyed.get("/ready").status_code == 200
        for headers in ({}, {"X-API-Key": KEY[:-1] + "x"}, {"Authorization": f"Bearer {KEY}x"},
                        {"Authorization": f"Basic {KEY}"}):
            for response in (keyed.get("/v1/windows", headers=headers), keyed.post("/v1/query", json=ASK, headers=headers),
                             keyed.get("/openapi.json", headers=headers)):
                assert "API key" in _error(response, 401)["message"]
        assert keyed.get("/v1/windows", headers={"X-API-Key": KEY}).status_code == 200
        assert keyed.get("/v1/windows", headers={"Authorization": f"Bearer {KEY}"}).status_code == 200
        spec = keyed.get("/openapi.json", headers={"X-API-Key": KEY}).json()
        assert set(spec["components"]["securitySchemes"]) == {"bearer", "apiKey"}
        assert spec["paths"]["/v1/query"]["post"]["security"] and "security" not in spec["paths"]["/ready"]["get"]


def test_a_short_api_key_is_refused_at_start() -> None:
    with pytest.raises(ValueError, match="at least 16"):
        Settings(api_key="secret")


# -- 4. liveness, readiness, strict mode ----------------------------------------------------------------------------
def test_unready_service_is_alive_but_not_ready(fixture_build: Build, tmp_path: Path) -> None:
    settings = Settings(graphs_dir=tmp_path / "no-graphs", store_url=fixture_build.sqlite_url, lm=False)
    with TestClient(create_app(settings)) as unready:
        assert unready.get("/health").json()["status"] == "ok"
        assert _error(unready.get("/ready"), 503)["code"] == "not_ready"
        for response in (unready.get("/v1/windows"), unready.post("/v1/query", json=ASK),
                         unready.get("/v1/entailment", params={"premise": "a", "hypothesis": "b", "types": "a#b"})):
            error = _error(response, 503)
            assert error["code"] == "not_ready" and "graphs failed to load" in error["message"]
            assert str(tmp_path) not in response.text


def test_strict_mode_refuses_to_start(fixture_build: Build, tmp_path: Path) -> None:
    settings = Settings(graphs_dir=fixture_build.graphs, store_url=f"sqlite:///{tmp_path / 'missing.db'}", strict=True,
                        lm=False)
    with pytest.raises(StartupFailed, match="evidence store failed to open"), TestClient(create_app(settings)):
        pass
    env = {**os.environ, "PYTHONPATH": str(REPO), "EGQA_STRICT": "true", "EGQA_LOG_LEVEL": "warning",
           "EGQA_GRAPHS_DIR": str(tmp_path / "no-graphs"), "EGQA_STORE_URL": fixture_build.sqlite_url}
    served = subprocess.run([sys.executable, "-m", "service", "serve", "--port", str(free_port())], env=env,
                            capture_output=True, text=True, timeout=120)
    assert served.returncode != 0 and "graphs failed to load" in served.stderr
