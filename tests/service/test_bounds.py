"""A served `egqa serve` process keeps its SQLite connections and memory bounded under bursts of requests."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import httpx

from graph_builder.triples import read_triples
from bench._support import open_files, rss_mb
from service.demo import service_process
from tests.conftest import Build

BURSTS, CONCURRENT, CONNECTIONS = 8, 80, 4


async def _burst(url: str, bodies: list[dict[str, object]]) -> list[int]:
    """Send every body at once on its own connection; return the status codes."""
    limits = httpx.Limits(max_connections=len(bodies), max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        answers = await asyncio.gather(*(http.post("/v1/query", json=b) for b in bodies))
    return [a.status_code for a in answers]


def _draw(rng: random.Random, rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """CONCURRENT distinct rows, or rows drawn with replacement from a build that has fewer (the made-up news)."""
    return rng.sample(rows, CONCURRENT) if len(rows) >= CONCURRENT else rng.choices(rows, k=CONCURRENT)


def test_connections_and_rss_stay_bounded_after_bursts(any_build: Build, tmp_path: Path) -> None:
    rows = read_triples(any_build.triples, columns=["subj", "predicate", "obj", "subj_type", "obj_type",
                                                    "date"]).to_pylist()
    rng = random.Random(3)
    db = Path(any_build.sqlite_url.removeprefix("sqlite:///")).resolve()
    env = {"EGQA_STORE_CONNECTIONS": str(CONNECTIONS)}
    with service_process(any_build.graphs, any_build.sqlite_url, tmp_path / "serve.log", env=env) as svc:
        connections, rss = [], []
        for _ in range(BURSTS):
            bodies = [{"subject": r["subj"], "predicate": r["predicate"], "object": r["obj"],
                       "subject_type": r["subj_type"], "object_type": r["obj_type"], "date": r["date"].isoformat()}
                      for r in _draw(rng, rows)]
            statuses = asyncio.run(_burst(svc.url, bodies))
            assert statuses == [200] * CONCURRENT
            connections.append(open_files(svc.pid, db))
            rss.append(rss_mb(svc.pid))
    print(f"connections after each burst: {connections}; RSS MB: {[round(r) for r in rss]}")
    assert max(connections) <= CONNECTIONS
    assert rss[-1] <= rss[0] * 1.25, f"RSS grew from {rss[0]:.0f} MB to {rss[-1]:.0f} MB"
