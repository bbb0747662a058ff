"""A hung Elasticsearch (the real server, paused with SIGSTOP) gives a 503 within 2 s and recovers by itself."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.settings import Settings
from tests.conftest import Build

ASK = {"subject": "colombia", "predicate": "(have.1,have.2)", "object": "debt", "subject_type": "location",
       "object_type": "thing", "date": "1987-03-04"}
# Asked only while Elasticsearch is paused: the service remembers evidence and names between requests, so ASK
# itself may be answered from memory without the store (200 in 0.00 s). A name never asked before cannot be.
HUNG_ASK = {**ASK, "subject": "republic of nowhere in particular"}


def listener_pid(port: int) -> int | None:
    """Return the id of the local Elasticsearch process listening on TCP `port`, or None when it is not ours to see."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":  # 0A: LISTEN
                inodes.add(f"socket:[{fields[9]}]")
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) in inodes for fd in (proc / "fd").iterdir()) and \
                    b"elasticsearch" in (proc / "cmdline").read_bytes().lower():
                return int(proc.name)
        except OSError:
            continue
    return None


def _answers_within(client: TestClient, seconds: float) -> bool:
    """Ask until the service answers 200 (a busy machine may make a live Elasticsearch miss the timeout)."""
    deadline = time.monotonic() + seconds
    while client.post("/v1/query", json=ASK).status_code != 200:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.elasticsearch
def test_hung_elasticsearch_gives_503_fast_and_recovers(es_client: TestClient, reuters_build: Build,
                                                       es_url: str) -> None:
    target = urlsplit(es_url)
    pid = listener_pid(target.port or 9200) if target.hostname in ("127.0.0.1", "localhost") else None
    if pid is None:
        pytest.skip(f"cannot pause the Elasticsearch at {es_url}: not a local process")
    # es_client holds the slice in the index prefix egqa-service-test; this service reads it with default settings.
    settings = Settings(graphs_dir=reuters_build.graphs, store_url=f"{es_url}/egqa-service-test")
    assert settings.store_timeout <= 1.0
    with TestClient(create_app(settings)) as client:
        assert _answers_within(client, 60.0), "Elasticsearch never answered a query within the 1 s timeout"
        os.kill(pid, signal.SIGSTOP)
        try:
            start = time.monotonic()
            hung = client.post("/v1/query", json=HUNG_ASK)
            to_503 = time.monotonic() - start
        finally:
            os.kill(pid, signal.SIGCONT)
        resumed = time.monotonic()
        recovered = _answers_within(client, 30.0)
        to_recover = time.monotonic() - resumed
    print(f"hung Elasticsearch: 503 after {to_503:.2f} s; answering again {to_recover:.2f} s after it resumed")
    assert hung.status_code == 503 and hung.json()["error"]["code"] == "store_unavailable"
    assert to_503 < 2.0
    assert recovered and to_recover < 10.0
