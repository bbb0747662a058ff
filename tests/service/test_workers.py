"""`EGQA_WORKERS=2`: `egqa serve` runs two worker processes behind one port (docs/benchmarks.md measures what it
buys), and every answer is the one a single process gives."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import psutil
from fastapi.testclient import TestClient

from graph_builder.triples import read_triples
from service.demo import service_process
from tests.conftest import Build


def _proposition(row: dict[str, Any]) -> dict[str, Any]:
    return {"subject": row["subj"], "predicate": row["predicate"], "object": row["obj"],
            "subject_type": row["subj_type"], "object_type": row["obj_type"], "date": row["date"].isoformat()}


def test_two_workers_answer_as_one_process_does(fixture_build: Build, fixture_client: TestClient,
                                                 tmp_path: Path) -> None:
    rows = read_triples(fixture_build.triples).to_pylist()
    # Asked as stored, and with the arguments swapped (mostly false): both kinds of answer come back.
    asked = [_proposition(r) for r in rows[::max(1, len(rows) // 40)]]
    asked += [{**p, "subject": p["object"], "object": p["subject"], "subject_type": p["object_type"],
               "object_type": p["subject_type"]} for p in asked]
    batches = [asked[i:i + 10] for i in range(0, len(asked), 10)]
    body = {"scorer": "binc", "top_k": 1}
    expected = [r for b in batches
                for r in fixture_client.post("/v1/query/batch", json={**body, "queries": b}).json()["results"]]
    assert {r["answer"] for r in expected} == {True, False}

    env = {"EGQA_LM": "false", "EGQA_WORKERS": "2"}
    with service_process(fixture_build.graphs, fixture_build.sqlite_url, tmp_path / "serve.log", env=env) as served:
        workers = [p for p in psutil.Process(served.process.pid).children(recursive=True)
                   if "resource_tracker" not in " ".join(p.cmdline())]
        assert len(workers) == 2, [p.cmdline() for p in workers]
        with httpx.Client(base_url=served.url, timeout=60) as client, ThreadPoolExecutor(4) as pool:
            # Four requests in flight at once, as `egqa evaluate` sends them.
            answers = list(pool.map(lambda b: client.post("/v1/query/batch", json={**body, "queries": b}).json(),
                                    batches))
            assert client.get("/ready").json()["status"] == "ready"
    got = [r for a in answers for r in a["results"]]
    assert got == expected
