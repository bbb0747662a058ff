"""POST /v1/admin/reload and SIGHUP: a new graph set validated first, swapped in at once while queries run, a
bad set refused with the live one kept, and GET /v1/graphs naming the live set."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import httpx
import numpy as np
import orjson
import pytest
from fastapi.testclient import TestClient

from graph_builder.graphs.graphset import GraphSet
from retrieval.backends.sqlite import SQLiteStore
from service.app import create_app
from service.settings import Settings
from tests.service.test_ingest import GRAPHS, KEY
from tests.service.test_ingest_recovery import server

GRAPH = "person#person"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rescored(source: Path, out: Path, factor: float) -> Path:
    """A valid copy of a graph set with every BInc score of GRAPH multiplied by `factor` (checksums redone)."""
    shutil.copytree(source, out)
    graph = out / GRAPH
    data = np.load(graph / "binc" / "data.npy")
    np.save(graph / "binc" / "data.npy", data * factor, allow_pickle=False)
    manifest = orjson.loads((graph / "manifest.json").read_bytes())
    manifest["files"]["binc/data.npy"] = _sha(graph / "binc" / "data.npy")
    (graph / "manifest.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    top = orjson.loads((out / "manifest.json").read_bytes())
    top["graphs"][GRAPH]["manifest_sha256"] = _sha(graph / "manifest.json")
    (out / "manifest.json").write_bytes(orjson.dumps(top, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    return out


def an_edge() -> tuple[str, str, float]:
    """A premise and hypothesis predicate of GRAPH with a BInc score between 0 and 1, and the score."""
    graph = GraphSet.load(GRAPHS).graphs[GRAPH]
    data, indices, indptr = graph.matrices["binc"]
    for row in range(len(graph.nodes)):
        for k in range(int(indptr[row]), int(indptr[row + 1])):
            col, score = int(indices[k]), float(data[k])
            p, h = graph.nodes[row], graph.nodes[col]
            if row != col and 0.1 < score < 1.0 and p.endswith("#person_1#person_2") and h.endswith("#person_1#person_2"):
                return p.split("#")[0], h.split("#")[0], score
    raise AssertionError("no edge to test with")


@pytest.fixture
def sets(tmp_path: Path) -> Path:
    """Graph sets side by side: `a` (the test graphs), `b` (BInc halved), `broken` (a score file corrupted)."""
    root = tmp_path / "graphs"
    root.mkdir()
    shutil.copytree(GRAPHS, root / "a")
    rescored(GRAPHS, root / "b", 0.5)
    shutil.copytree(GRAPHS, root / "broken")
    with (root / "broken" / GRAPH / "binc" / "data.npy").open("r+b") as handle:
        handle.seek(-8, os.SEEK_END)
        handle.write(b"\x00" * 8)
    return root


def _client(tmp_path: Path, graphs: Path, **overrides: object) -> TestClient:
    SQLiteStore(tmp_path / "evidence.db").close()
    return TestClient(create_app(Settings(graphs_dir=graphs, store_url=f"sqlite:///{tmp_path / 'evidence.db'}",
                                          lm=False, **overrides)))


def binc(client: TestClient | httpx.Client, premise: str, hypothesis: str) -> float:
    response = client.get("/v1/entailment", params={"premise": premise, "hypothesis": hypothesis,
                                                     "types": "person#person"})
    assert response.status_code == 200, response.text
    return float(response.json()["scores"]["binc"]["forward"])


def test_a_reload_swaps_in_the_new_sets_scores_and_graphs_names_the_live_set(tmp_path: Path, sets: Path) -> None:
    premise, hypothesis, score = an_edge()
    with _client(tmp_path, sets / "a") as client:
        before = client.get("/v1/graphs").json()["graph_set"]
        assert (before["name"], before["generation"]) == ("a", 1)
        assert binc(client, premise, hypothesis) == pytest.approx(score)
        response = client.post("/v1/admin/reload", json={"graphs_dir": "b"})
        assert response.status_code == 200
        live = response.json()["graph_set"]
        assert (live["name"], live["generation"]) == ("b", 2)
        assert live["manifest_sha256"] == _sha(sets / "b" / "manifest.json") != before["manifest_sha256"]
        assert client.get("/v1/graphs").json()["graph_set"] == live
        assert binc(client, premise, hypothesis) == pytest.approx(score * 0.5)
        # No body: the live set's folder is read again.
        again = client.post("/v1/admin/reload").json()["graph_set"]
        assert (again["name"], again["generation"]) == ("b", 3)


@pytest.mark.parametrize(("graphs_dir", "reason"), [
    ("broken", "checksum mismatch"),
    ("missing", "no graph set here"),
    ("../../elsewhere", "name a folder beside the live set"),
    ("/etc", "name a folder beside the live set"),
])
def test_a_bad_set_is_refused_with_409_and_the_live_set_kept(tmp_path: Path, sets: Path, graphs_dir: str,
                                                             reason: str) -> None:
    premise, hypothesis, score = an_edge()
    with _client(tmp_path, sets / "a") as client:
        response = client.post("/v1/admin/reload", json={"graphs_dir": graphs_dir})
        assert response.status_code == 409
        error = response.json()["error"]
        assert error["code"] == "graph_set_refused" and reason in error["message"]
        assert "the live set is kept" in error["message"] and str(tmp_path) not in error["message"]
        assert client.get("/v1/graphs").json()["graph_set"]["name"] == "a"
        assert client.get("/v1/graphs").json()["graph_set"]["generation"] == 1
        assert binc(client, premise, hypothesis) == pytest.approx(score)


def test_queries_running_through_repeated_swaps_all_succeed_on_one_set_or_the_other(tmp_path: Path,
                                                                                    sets: Path) -> None:
    premise, hypothesis, score = an_edge()
    seen: list[float] = []
    failures: list[str] = []
    stop = threading.Event()
    with _client(tmp_path, sets / "a", api_key=KEY) as client:
        headers = {"X-API-Key": KEY}

        def ask() -> None:
            while not stop.is_set():
                response = client.get("/v1/entailment", headers=headers, params={
                    "premise": premise, "hypothesis": hypothesis, "types": "person#person"})
                if response.status_code != 200:
                    failures.append(response.text)
                else:
                    seen.append(response.json()["scores"]["binc"]["forward"])

        askers = [threading.Thread(target=ask) for _ in range(4)]
        for thread in askers:
            thread.start()
        try:
            for n in range(10):
                response = client.post("/v1/admin/reload", headers=headers, json={"graphs_dir": "ab"[(n + 1) % 2]})
                assert response.status_code == 200
                time.sleep(0.05)
        finally:
            stop.set()
            for thread in askers:
                thread.join()
        assert failures == []
        assert len(seen) > 20
        assert {round(s / score, 6) for s in seen} == {1.0, 0.5}
        assert client.get("/v1/graphs", headers=headers).json()["graph_set"]["generation"] == 11


def test_sighup_reloads_the_live_folder_of_a_real_server(tmp_path: Path, sets: Path) -> None:
    """The offline workflow: build the new set beside the live one, rename it into place, send SIGHUP."""
    premise, hypothesis, score = an_edge()
    store = tmp_path / "evidence.db"
    SQLiteStore(store).close()
    live = sets / "live"
    shutil.copytree(sets / "a", live)
    with server(store, tmp_path / "server.log", graphs=live) as (url, proc), httpx.Client(base_url=url) as client:
        assert binc(client, premise, hypothesis) == pytest.approx(score)
        live.rename(sets / "old")
        (sets / "b").rename(live)
        os.kill(proc.pid, signal.SIGHUP)
        deadline = time.monotonic() + 60
        while client.get("/v1/graphs").json()["graph_set"]["generation"] < 2:
            assert time.monotonic() < deadline, "SIGHUP did not reload"
            time.sleep(0.1)
        assert binc(client, premise, hypothesis) == pytest.approx(score * 0.5)
        # A broken set put in place is refused on SIGHUP: the server keeps answering from the set it has.
        live.rename(sets / "b-old")
        (sets / "broken").rename(live)
        os.kill(proc.pid, signal.SIGHUP)
        time.sleep(2)
        assert proc.poll() is None
        assert client.get("/v1/graphs").json()["graph_set"]["generation"] == 2
        assert binc(client, premise, hypothesis) == pytest.approx(score * 0.5)
    assert "SIGHUP reload refused" in (tmp_path / "server.log").read_text()
