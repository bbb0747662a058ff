"""The page as the service serves it, without a browser: headers, the key, packaging, weight, and the API field
the page needs (the arguments' words in each evidence sentence)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.web import STATIC_DIR
from tests.web.conftest import DATE, KEY, QUESTION, REPO, WebBuild, web_settings

ASSETS = sorted(p.name for p in STATIC_DIR.iterdir() if p.is_file())


@pytest.fixture(scope="module")
def client(web_build: WebBuild) -> Iterator[TestClient]:
    with TestClient(create_app(web_settings(web_build))) as test_client:
        yield test_client


def test_the_page_and_its_assets_are_served_under_a_strict_policy(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"] == "text/html; charset=utf-8"
    assert '<script src="/static/app.js" defer></script>' in page.text
    for response in (page, *(client.get(f"/static/{name}") for name in ASSETS)):
        assert response.status_code == 200
        policy = response.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "connect-src 'self'" in policy and "script-src 'self'" in policy
        assert response.headers["x-content-type-options"] == "nosniff"
    assert client.get("/static/app.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/nothing.js").status_code == 404
    paths = client.get("/openapi.json").json()["paths"]
    assert "/" not in paths and not any(p.startswith("/static") for p in paths)


def test_the_page_needs_no_key_but_the_api_still_does(web_build: WebBuild) -> None:
    with TestClient(create_app(web_settings(web_build, api_key=KEY))) as keyed:
        assert keyed.get("/").status_code == 200 and keyed.get("/static/app.js").status_code == 200
        assert KEY not in keyed.get("/").text
        assert keyed.get("/v1/windows").status_code == 401
        assert keyed.get("/v1/windows", headers={"X-API-Key": KEY}).status_code == 200
        assert keyed.get("/static/../v1/windows").status_code in (401, 404)  # no way round the key


def test_every_asset_ships_in_the_package_and_loads_nothing_from_elsewhere() -> None:
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    assert data["service.web"] == ["static/*"] and ASSETS == ["app.js", "index.html", "style.css"]
    assert not any(p.is_dir() for p in STATIC_DIR.iterdir())  # `static/*` takes no subfolder
    for name in ASSETS:
        text = (STATIC_DIR / name).read_text(encoding="utf-8")
        # The SVG namespace is a name, not an address the browser loads.
        urls = set(re.findall(r"(?:https?:)?//[\w.-]+\.\w+[^\s\"'`)]*", text)) - {"http://www.w3.org/2000/svg"}
        assert urls == set(), (name, urls)
        assert "@import" not in text and "innerHTML" not in text


def test_the_page_weighs_under_200_kb() -> None:
    assert sum((STATIC_DIR / name).stat().st_size for name in ASSETS) < 200 * 1024


def test_evidence_carries_the_arguments_words_as_the_sentence_writes_them(client: TestClient) -> None:
    answer = client.post("/v1/query", json={"text": QUESTION, "date": DATE}).json()
    assert answer["evidence"], answer
    for item in answer["evidence"]:
        assert item["subject_text"] == "Norvale Mining Corp" and item["object_text"] == "Castellan Bank Ltd"
        assert item["subject_text"] in item["sentence"] and item["object_text"] in item["sentence"]
        assert item["subject"] == "norvale mining"  # the normalised name stays as it was


def test_the_demo_links_the_page_to_a_question_that_has_evidence(web_build: WebBuild) -> None:
    from service.demo import page_query
    from tests.service.live import live_server

    def example(subj: str, words: str, predicate: str, obj: str, start: str) -> dict[str, Any]:
        return {"entry": {"subj": subj, "predicate_text": words, "predicate": predicate, "obj": obj},
                "answer": {"window": {"start": start}}}

    unparsed = example("zq", "xv", "(xv.1,xv.2)", "wy", "2021-03-04")  # no proposition in "zq xv wy."
    asked = example("norvale mining", "bought", "(buy.1,buy.2)", "castellan bank", "2021-03-04")
    with live_server(create_app(web_settings(web_build))) as (host, port):
        url = f"http://{host}:{port}"
        assert page_query(url, [unparsed, asked]) == "?q=norvale+mining+bought+castellan+bank.&date=2021-03-04"
        # No example reads as a sentence with evidence: the first, as a triple.
        assert page_query(url, [unparsed]) == "?s=zq&p=%28xv.1%2Cxv.2%29&o=wy&date=2021-03-04"
        assert page_query(url, []) == ""


def test_the_demo_asks_questions_only_an_entailment_edge_answers(web_build: WebBuild) -> None:
    from graph_builder.graphs.graphset import GraphSet
    from service.demo import edge_examples
    from tests.service.live import live_server

    with live_server(create_app(web_settings(web_build))) as (host, port):
        examples = edge_examples(f"http://{host}:{port}", GraphSet.load(web_build.graphs),
                                 web_build.graphs.parent / "triples", split="", n=3)
    # The news says buy, acquire and take over: one edge takes two of them, and each predicate is shown once. The
    # titles say "completes deal", which the bodies' "took over ... in a deal" leads to (organization#thing).
    assert [e["entry"]["predicate"] for e in examples] == ["(acquire.1,acquire.2)", "(complete.1,complete.2)"]
    for example in examples:
        answer, evidence = example["answer"], example["answer"]["evidence"][0]
        assert answer["answer"] is True and evidence["match"] == "typed"
        # The evidence says something else than the question: the edge answered it, not the same predicate.
        assert evidence["predicate"] != example["entry"]["predicate"]
        assert not example["entry"]["predicate_text"].endswith(" by")
