"""The batch route writes its body without pydantic: it must be exactly the BatchResponse the model writes."""

from __future__ import annotations

from fastapi.testclient import TestClient

from graph_builder.graphs.graphset import GraphSet
from graph_builder.windows import window_span
from retrieval.factory import open_store
from service.engine import Options, ScoringEngine
from service.schemas import BatchResponse, WindowOut, answer_json, answer_out, window_json
from tests.conftest import Build
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
