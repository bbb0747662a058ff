"""The untyped set through the REST service: listed by GET /v1/graphs, and `+untyped` answering from it where the
typed graphs hold nothing, on graphs built from our own triples and a real SQLite store."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from graph_builder.graphs.build import BuildParams, build_graphs
from retrieval.factory import open_store
from service.app import create_app
from service.settings import Settings
from tests.graph_builder.graph_fixtures import triple_rows, write_triples
from tests.graph_builder.test_untyped import MARRY, WED, spread_specs


def _store(root: Path) -> str:
    """One article in window 0 stating that person0 married org0 (the fixture's types)."""
    rows = triple_rows([("person0", "person", MARRY, "org0", "organization")], start=500)
    rows[0].update(article_id="untyped-article", sentence="Person0 married Org0.")
    url = f"sqlite:///{root / 'evidence.db'}"
    store = open_store(url)
    store.add_articles([{"article_id": "untyped-article", "date": dt.date(1987, 3, 1), "window": 0, "split": "train",
                         "title": "Untyped fixture", "sentences": 1, "tokens": 4, "triples": 1}])
    store.add_triples(rows)
    store.close()
    return url


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    root = tmp_path_factory.mktemp("untyped-service")
    build_graphs(write_triples(root / "triples", spread_specs()), root / "graphs",
                 BuildParams(top_k=None, min_score=0.0, measures=("binc",)), progress=False, with_untyped=True)
    with TestClient(create_app(Settings(graphs_dir=root / "graphs", store_url=_store(root), lm=False))) as test:
        yield test


def _ask(scorer: str) -> dict[str, Any]:
    return {"subject": "person0", "predicate": WED, "object": "org0", "subject_type": "person",
            "object_type": "organization", "window": 0, "scorer": scorer, "top_k": 3}


def test_the_untyped_set_and_its_scorers_are_listed(client: TestClient) -> None:
    body = client.get("/v1/graphs").json()
    assert body["untyped_set"]["measures"] == ["binc"] and body["untyped_set"]["nodes"] > 0
    assert {"binc", "binc+untyped", "binc+untyped+act"} <= set(body["scorers"])
    assert body["default_scorer"] != "binc+untyped"


def test_untyped_backoff_answers_where_the_typed_graphs_hold_nothing(client: TestClient) -> None:
    typed = client.post("/v1/query", json=_ask("binc")).json()
    assert typed["evidence_count"] == 1 and typed["score"] == 0.0 and typed["evidence"][0]["match"] == "none"
    backed = client.post("/v1/query", json=_ask("binc+untyped")).json()
    assert backed["score"] > 0 and backed["evidence"][0]["match"] == "untyped"
    assert backed["evidence"][0]["predicate"] == MARRY
