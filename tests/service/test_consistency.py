"""One `types` rule for OpenAPI clients, pydantic and the engine; a corrupted store named as such."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Annotated

import pytest
from fastapi.testclient import TestClient
from pydantic import Field, TypeAdapter, ValidationError

from graph_builder.errors import InputError
from service.app import create_app
from service.engine import TYPES_PATTERN, _types
from service.settings import Settings
from tests.conftest import Build

# Strings the three regex engines used to disagree on: control separators Python's \s holds and Rust's does
# not, Unicode spaces, a final newline Python's `$` lets through, inner spaces the engine used to strip.
ODD = ["person#location", "Person#Location_2", "a\x1cb#c", "a\x1fb#c", "a\xa0b#c", "a\u2028b#c", "a\ufeffb#c",
       "a\u200bb#c", "person#location\n", "\nperson#location", " person#location", "person #location",
       "person#location ", "person##location", "#location", "person#", "a#b#c", "persön#location", ""]


def _python(types: str) -> bool:
    try:
        _types(types)
    except InputError:
        return False
    return True


def _pydantic(types: str) -> bool:
    try:
        TypeAdapter(Annotated[str, Field(pattern=TYPES_PATTERN)]).validate_python(types)
    except ValidationError:
        return False
    return True


def _ecmascript(patterns: str, values: list[str]) -> list[bool]:
    """What a JavaScript client makes of the OpenAPI document's pattern (Node's RegExp, as browsers do)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: no ECMAScript engine to compare with")
    script = ("const [p, vs] = JSON.parse(process.argv[1]); const r = new RegExp(p, 'u');"
              "console.log(JSON.stringify(vs.map(v => r.test(v))));")
    out = subprocess.run(["node", "-e", script, json.dumps([patterns, values])], capture_output=True, text=True,
                         timeout=60, check=True)
    return [bool(x) for x in json.loads(out.stdout)]


def test_types_are_judged_alike_by_openapi_pydantic_and_python(fixture_client: TestClient) -> None:
    documented = next(p["schema"]["pattern"] for p in
                      fixture_client.get("/openapi.json").json()["paths"]["/v1/entailment"]["get"]["parameters"]
                      if p["name"] == "types")
    assert documented == TYPES_PATTERN
    verdicts = {"python": [_python(t) for t in ODD], "pydantic": [_pydantic(t) for t in ODD],
                "ecmascript": _ecmascript(documented, ODD)}
    assert verdicts["python"] == verdicts["pydantic"] == verdicts["ecmascript"], \
        [(t, {k: v[i] for k, v in verdicts.items()}) for i, t in enumerate(ODD)
         if len({v[i] for v in verdicts.values()}) > 1]
    assert verdicts["python"][:2] == [True, True] and sum(verdicts["python"]) == 2  # only the two plain ones
    assert not re.search(r"\\[sSwWdD]", TYPES_PATTERN)  # no class whose meaning differs between engines


def test_the_route_refuses_what_the_engine_refuses(api: TestClient) -> None:
    for types in ("a\x1fb#c", "person#location\n", "person #location"):
        answer = api.get("/v1/entailment", params={"premise": "(buy.1,buy.2)", "hypothesis": "(own.1,own.2)",
                                                      "types": types})
        assert answer.status_code == 422, (types, answer.text)


def _corrupt(db: Path, keep: int = 8192) -> None:
    """Overwrite everything after the first pages (the schema and meta table) with noise."""
    size = db.stat().st_size
    noise = random.Random(5).randbytes(size - keep)
    with db.open("r+b") as out:
        out.seek(keep)
        out.write(noise)


def test_a_corrupted_store_says_it_is_corrupted(any_build: Build, tmp_path: Path) -> None:
    db = tmp_path / "evidence.db"
    shutil.copy(any_build.sqlite_url.removeprefix("sqlite:///"), db)
    _corrupt(db)
    settings = Settings(graphs_dir=any_build.graphs, store_url=f"sqlite:///{db}", lm=False)
    with TestClient(create_app(settings)) as http:
        ready = http.get("/ready")
        answer = http.post("/v1/query", json={"subject": "colombia", "predicate": "(have.1,have.2)", "object": "debt",
                                              "date": any_build.day})
    for response in (ready, answer):
        assert response.status_code == 503, response.text
        error = response.json()["error"]
        assert error["code"] == "store_corrupted", error
        assert "corrupted" in error["message"] and "retry shortly" not in error["message"]
        assert str(tmp_path) not in response.text
