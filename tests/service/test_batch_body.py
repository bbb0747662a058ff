"""The batch route writes its body without pydantic: it must be exactly the BatchResponse the model writes."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from graph_builder.graphs.graphset import GraphSet
from graph_builder.windows import window_span
from retrieval.factory import open_store
from service.app import create_app
from service.engine import Options, ScoringEngine
from service.schemas import BatchResponse, WindowOut, answer_json, answer_out, window_json
from service.settings import Settings
from tests.conftest import Build
from tests.service.live import live_server
from tests.service.test_engine_paths import _bundles


def test_answer_json_is_the_models_dump(any_build: Build, any_graphs: GraphSet) -> None:
    """For answers with and without evidence, true and false, every scorer: the hand-built body equals
    `answer_out(...).model_dump(mode="json")`, key order included."""
    engine = ScoringEngine(any_graphs, open_store(any_build.sqlite_url))
    items = _bundles(any_build, any_graphs, n=40)
    answers = [a for scorer in ("binc", "exact") for top_k in (0, 3)
               for a in engine.judge(items, Options(scorer, top_k=top_k))]
    assert any(a.evidence for a in answers) and any(a.answer for a in answers) and any(not a.answer for a in answers)
    for a in answers:
        span = window_span(a.hypothesis.window, engine.window_days)
        model = answer_out(a, WindowOut(id=span.id, start=span.start, end=span.end)).model_dump(mode="json")
        built = answer_json(a, window_json(span))
        assert built == model
        assert list(built) == list(model) and list(built["hypothesis"]) == list(model["hypothesis"])
        assert all(list(e) == list(m) for e, m in zip(built["evidence"], model["evidence"], strict=True))


def test_batch_route_answers_a_valid_batch_response(api: TestClient, any_build: Build) -> None:
    """Over HTTP the body validates as BatchResponse and equals what the engine judged, in request order."""
    queries = [{"subject": "x", "predicate": "(visit.1,visit.2)", "object": "y", "date": any_build.day}]
    response = api.post("/v1/query/batch", json={"queries": queries * 3, "top_k": 2})
    assert response.status_code == 200, response.text
    body = BatchResponse.model_validate(response.json())
    assert len(body.results) == 3 and body.results[0] == body.results[2]
    assert response.json()["results"][0]["window"]["start"] <= any_build.day <= response.json()["results"][0]["window"]["end"]


@pytest.mark.parametrize("limit", [1, 2])
def test_batches_are_judged_at_most_batch_concurrency_at_a_time(fixture_build: Build, limit: int) -> None:
    """EGQA_BATCH_CONCURRENCY: of six batches sent at once, never more than `limit` are judged side by side,
    and every one is answered as when sent alone."""
    app = create_app(Settings(graphs_dir=fixture_build.graphs, store_url=fixture_build.sqlite_url, lm=False,
                              batch_concurrency=limit))
    queries = [{"subject": "x", "predicate": "(visit.1,visit.2)", "object": "y", "date": fixture_build.day}] * 3
    inside, most, lock = 0, 0, threading.Lock()
    with live_server(app) as (host, port):
        engine = app.state.engine
        judge = engine.judge

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal inside, most
            with lock:
                inside += 1
                most = max(most, inside)
            time.sleep(0.2)  # long enough for the other requests to arrive meanwhile
            try:
                return judge(*args, **kwargs)
            finally:
                with lock:
                    inside -= 1

        url = f"http://{host}:{port}/v1/query/batch"
        alone = httpx.post(url, json={"queries": queries, "top_k": 1}, timeout=30).json()
        engine.judge = counted
        with ThreadPoolExecutor(6) as pool:
            replies = list(pool.map(lambda _: httpx.post(url, json={"queries": queries, "top_k": 1}, timeout=60),
                                    range(6)))
    assert [r.status_code for r in replies] == [200] * 6
    assert all(r.json() == alone for r in replies)
    assert most == limit if limit == 1 else 1 <= most <= limit
