"""A served `egqa serve` bounds what a connection may send and for how long, and how many connections it keeps:
oversized heads get 414/431, slow requests 408, malformed ones 400, all with the JSON error body; a flood of
half-open connections leaves /health answering."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.probe import HALF_HEAD, RawAnswer, half_open_flood, raw_request
from service.demo import ServiceProcess, service_process
from tests.conftest import Build

BODY_TIMEOUT = 3


def _address(svc: ServiceProcess) -> tuple[str, int]:
    host, port = svc.url.removeprefix("http://").split(":")
    return host, int(port)


def _error(answer: RawAnswer, status: int, code: str) -> str:
    assert answer.status == status, answer
    error = json.loads(answer.body)["error"]
    assert error["code"] == code and error["message"]
    return str(error["message"])


@pytest.fixture(scope="module")
def served(fixture_build: Build, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    """`egqa serve` on the made-up news with the default HTTP limits but a short body deadline."""
    log = tmp_path_factory.mktemp("limits") / "serve.log"
    env = {"EGQA_LM": "false", "EGQA_BODY_TIMEOUT": str(BODY_TIMEOUT)}
    with service_process(fixture_build.graphs, fixture_build.sqlite_url, log, env=env) as svc:
        yield svc


def test_a_1mb_header_gets_431_with_the_json_body(served: ServiceProcess) -> None:
    answer = raw_request(*_address(served), b"GET /health HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 1_000_000
                         + b"\r\n\r\n")
    assert "32768 bytes" in _error(answer, 431, "headers_too_large")


def test_too_many_header_fields_get_431(served: ServiceProcess) -> None:
    head = b"GET /health HTTP/1.1\r\nHost: t\r\n" + b"".join(b"X-%d: a\r\n" % i for i in range(150)) + b"\r\n"
    assert "100 header fields" in _error(raw_request(*_address(served), head), 431, "headers_too_large")


def test_a_long_request_line_gets_414(served: ServiceProcess) -> None:
    answer = raw_request(*_address(served), b"GET /health?q=" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: t\r\n\r\n")
    _error(answer, 414, "uri_too_long")


def test_the_longest_valid_query_passes_the_request_line_limit(served: ServiceProcess) -> None:
    """Two 300-character parameters of 4-byte characters, percent-encoded: 7.3 kB of request target."""
    answer = httpx.get(f"{served.url}/v1/entailment", timeout=30,
                       params={"premise": "\U0001d538" * 300, "hypothesis": "\U0001d538" * 300, "types": "a#b"})
    assert len(str(answer.request.url)) > 7000
    assert answer.status_code == 200, answer.text


def test_a_malformed_request_gets_400_with_the_json_body(served: ServiceProcess) -> None:
    _error(raw_request(*_address(served), b"GET /health HTTP/1.1\r\nBad Header\x00: x\r\n\r\n"), 400, "bad_request")
    _error(raw_request(*_address(served), b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"), 400, "bad_request")


def test_a_half_open_request_is_answered_408_and_closed_within_20_s(served: ServiceProcess) -> None:
    answer = raw_request(*_address(served), HALF_HEAD, wait=60)
    assert "did not arrive within 10 s" in _error(answer, 408, "request_timeout")
    assert answer.seconds < 20


def test_a_request_trickled_byte_by_byte_is_still_dropped(served: ServiceProcess) -> None:
    """The deadline runs from the connection's start, so bytes that keep arriving do not extend it."""
    start = time.monotonic()
    with socket.create_connection(_address(served), timeout=30) as sock:
        closed = False
        for byte in HALF_HEAD * 10:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                closed = True
                break
            time.sleep(0.5)
            if time.monotonic() - start > 25:
                break
        reply = b"" if closed else sock.recv(65536)
    assert closed or reply.startswith(b"HTTP/1.1 408 ")
    assert time.monotonic() - start < 20


def test_a_slow_body_gets_408(served: ServiceProcess) -> None:
    head = (b"POST /v1/query HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"
            b'{"text": ')
    answer = raw_request(*_address(served), head, wait=30)
    assert f"body did not arrive within {BODY_TIMEOUT} s" in _error(answer, 408, "request_timeout")
    assert answer.seconds < BODY_TIMEOUT + 5


def test_ordinary_requests_keep_their_connection(served: ServiceProcess) -> None:
    """The limits leave keep-alive alone: several requests, with and without bodies, on one connection."""
    with httpx.Client(base_url=served.url, timeout=10) as http:
        for _ in range(3):
            assert http.get("/health").status_code == 200
            answer = http.post("/v1/query", json={"text": "Norvale Mining bought Castellan Bank.",
                                                  "date": "2021-03-04"})
            assert answer.status_code == 200, answer.text
        assert http.get("/v1/windows").status_code == 200


def test_health_answers_while_20000_half_open_connections_are_attempted(served: ServiceProcess) -> None:
    # Correctness, not time: every /health asked during the flood is answered (the prober's client gives each 10 s).
    # How fast is a figure for `python bench/probe.py` (docs/benchmarks.md): on a shared 2-core machine a single
    # answer can take about a second, which is no error.
    flood = half_open_flood(served.url, 20_000, processes=2, hold=3.0)
    print(f"{flood.opened} of {flood.attempted} opened; /health {len(flood.health_seconds)} times, "
          f"worst {max(flood.health_seconds):.3f} s, {flood.health_failures} failures")
    assert flood.health_seconds and flood.health_failures == 0
    assert httpx.get(f"{served.url}/health", timeout=5).status_code == 200


def test_at_the_connection_cap_the_oldest_unfinished_request_makes_room(fixture_build: Build, tmp_path: Path) -> None:
    env = {"EGQA_LM": "false", "EGQA_MAX_CONNECTIONS": "16"}
    with service_process(fixture_build.graphs, fixture_build.sqlite_url, tmp_path / "serve.log", env=env) as svc:
        socks = []
        for _ in range(24):
            sock = socket.create_connection(_address(svc), timeout=10)
            sock.sendall(HALF_HEAD)
            socks.append(sock)
            time.sleep(0.02)
        assert httpx.get(f"{svc.url}/health", timeout=5).status_code == 200
        first = socks[0].recv(65536)
        assert first.startswith(b"HTTP/1.1 408 ") and b'"request_timeout"' in first
        last = socks[-1]
        last.settimeout(0.5)
        with pytest.raises(TimeoutError):
            last.recv(65536)  # the newest is still open, waiting for the rest of its head
        for sock in socks:
            sock.close()


def test_pipelined_requests_are_answered_in_order(served: ServiceProcess) -> None:
    answer = raw_request(*_address(served), b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n"
                         b"GET /ready HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", wait=30)
    assert answer.status == 200
    assert answer.body.count(b"HTTP/1.1 200 OK") == 1 and b'"status":"ready"' in answer.body


def test_the_cap_fits_the_open_file_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Raised to what the cap needs when the hard limit allows; otherwise the cap is lowered to fit."""
    import resource

    from service.protocol import RESERVED_DESCRIPTORS, limits_for

    set_to: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "setrlimit", lambda kind, value: set_to.append(value))
    monkeypatch.setattr(resource, "getrlimit", lambda kind: (1024, 65536))
    assert limits_for(8192, 100, 32768, 10, 30, 2048).max_connections == 2048
    assert set_to == [(2048 + RESERVED_DESCRIPTORS, 65536)]
    monkeypatch.setattr(resource, "getrlimit", lambda kind: (1024, 1024))
    assert limits_for(8192, 100, 32768, 10, 30, 2048).max_connections == 1024 - RESERVED_DESCRIPTORS
