"""No server path or key in what a client or a log reads, 4xx included; HEAD /health answers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from graph_builder.errors import InputError
from retrieval.factory import open_store
from retrieval.ingest import index_dataset
from service.app import create_app
from service.settings import Settings, load_settings
from tests.graph_builder.lm_fixtures import build_lm_graphs


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Path]]:
    root = tmp_path_factory.mktemp("disclosure")
    graphs = build_lm_graphs(root)
    with open_store(f"sqlite:///{root / 'evidence.db'}") as store:
        index_dataset(root / "triples", store)
    with TestClient(create_app(Settings(graphs_dir=graphs, store_url=f"sqlite:///{root / 'evidence.db'}",
                                        lm=False))) as test_client:
        yield test_client, root


def test_4xx_bodies_name_no_server_path(client: tuple[TestClient, Path]) -> None:
    http, root = client
    answers = [
        http.get("/v1/predicates/neighbours", params={"predicate": "(a.1,a.2)", "types": "nosuch#type"}),
        http.get("/v1/predicates/neighbours", params={"predicate": "(a.1,a.2)", "types": "person#organization",
                                                     "measure": "nosuch"}),
        http.post("/v1/query", json={"subject": "p3", "predicate": "(a.1,a.2)", "object": "c3", "window": 0,
                                     "scorer": "binc+smooth"}),
        http.post("/v1/query", json={"subject": "p3", "predicate": "(a.1,a.2)", "object": "c3", "window": 0,
                                     "scorer": "nosuch"}),
    ]
    assert [a.status_code for a in answers] == [404, 400, 400, 400]
    for answer in answers:
        assert str(root) not in answer.text and "/tmp" not in answer.text, answer.text
    assert "the sentence-embedding model is not loaded" in answers[2].json()["error"]["message"]


def test_head_health_answers_like_get(client: tuple[TestClient, Path]) -> None:
    http, _ = client
    head = http.head("/health")
    assert head.status_code == 200 and head.content == b""


def test_an_invalid_setting_is_one_line_that_never_prints_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EGQA_API_KEY", "sekrit-short")
    with pytest.raises(InputError) as raised:
        load_settings()
    message = str(raised.value)
    assert message.startswith("invalid settings: EGQA_API_KEY: api_key must be at least 16 characters")
    assert "sekrit" not in message and "\n" not in message


@pytest.mark.parametrize(("extra", "accepted"), [
    ({"window": 2102.0}, True),        # an integral JSON number is an integer (JSON Schema)
    ({"window": 2102.5}, False), ({"window": "2102"}, False),
    ({"window": 2102, "top_k": True}, False),  # no booleans for numbers
    ({"window": 2102, "top_k": 3.0}, True),
    ({"date": "559180800"}, False), ({"date": 559180800}, False),  # not Unix seconds
    ({"date": "2012-11-07"}, True), ({"date": "07/11/2012"}, False)])
def test_numbers_and_dates_are_read_as_written(extra: dict[str, object], accepted: bool) -> None:
    from pydantic import ValidationError

    from service.schemas import QueryRequest

    try:
        QueryRequest.model_validate({"text": "Obama won.", **extra})
    except ValidationError:
        assert not accepted
    else:
        assert accepted
