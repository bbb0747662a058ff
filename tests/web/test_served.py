"""The page as the service serves it, without a browser: headers, the key, packaging, weight, and the API field
the page needs (the arguments' words in each evidence sentence)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator

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
