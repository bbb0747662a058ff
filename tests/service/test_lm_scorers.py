"""LM premise smoothing, the LM cosine baseline and Berant's rules as scorers, through the REST service
and the HTTP batch evaluator, on graphs built from our own triples and a real SQLite store."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from graph_builder.errors import InputError
from graph_builder.graphs.graphset import GraphSet
from graph_builder.graphs.importers import import_berant
from retrieval.factory import open_store
from service.app import create_app
from service.cli import app as cli_app
from service.engine import ScoringEngine
from service.evaluate import EvalConfig, evaluate
from service.settings import Settings

from tests.graph_builder.graph_fixtures import triple_rows
from tests.service.conftest import serve_in_thread
from tests.graph_builder.lm_fixtures import build_lm_graphs, encoder_or_skip

DATA = Path(__file__).resolve().parents[1] / "data"
PURCHASE = "Alice Smith purchased Acme Corp in a deal worth 10 mln dlrs."
PARAPHRASE = "Bob Jones bought a large stake in Beta Inc on Monday."
UNRELATED = "Bob Jones said the weather near Beta Inc was cold."
# (subject, subject type, predicate, object, object type, sentence): the evidence in window 0.
EVIDENCE = [
    ("alice smith", "person", "(purchase.1,purchase.2)", "acme corp", "organization", PURCHASE),
    ("bob jones", "person", "(buy.1,buy.stake.in.2)", "beta inc", "organization", PARAPHRASE),
    ("bob jones", "person", "(say.1,say.near.2)", "beta inc", "organization", UNRELATED),
    ("apple", "fruit", "(contain.1,contain.2)", "iron", "metal", "Apples contain iron."),
]


@pytest.fixture(scope="module")
def lm_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Graphs with `egqa graph embed`, Berant's rules imported, and the evidence indexed in SQLite."""
    encoder_or_skip()
    root = tmp_path_factory.mktemp("lm-service")
    graphs = build_lm_graphs(root)
    result = CliRunner().invoke(cli_app, ["graph", "embed", str(graphs)])
    assert result.exit_code == 0, result.output
    assert "distinct predicate texts" in result.output and (graphs / "embeddings" / "manifest.json").is_file()
    import_berant(DATA / "graphs" / "berant_small.txt", root / "berant")
    rows = triple_rows([(s, st, p, o, ot) for s, st, p, o, ot, _ in EVIDENCE], start=900)
    for row, (*_, sentence) in zip(rows, EVIDENCE, strict=True):
        row["sentence"] = sentence
        row["article_id"] = "lm-article"
    url = f"sqlite:///{root / 'evidence.db'}"
    store = open_store(url)
    store.add_articles([{"article_id": "lm-article", "date": dt.date(1987, 3, 1), "window": 0, "split": "train",
                         "title": "LM fixture", "sentences": len(EVIDENCE), "tokens": 60, "triples": len(EVIDENCE)}])
    store.add_triples(rows)
    store.close()
    return {"graphs": graphs, "berant": root / "berant", "store": url}


@pytest.fixture(scope="module")
def settings(lm_build: dict[str, Any]) -> Settings:
    return Settings(graphs_dir=lm_build["graphs"], store_url=lm_build["store"],
                    extra_graphs={"berant": lm_build["berant"]})


@pytest.fixture(scope="module")
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _ask(subject: str, predicate: str, obj: str, types: tuple[str, str], **extra: Any) -> dict[str, Any]:
    return {"subject": subject, "predicate": predicate, "object": obj, "subject_type": types[0],
            "object_type": types[1], "window": 0, **extra}


def test_every_scorer_is_listed(client: TestClient) -> None:
    body = client.get("/v1/graphs").json()
    measures = set(body["measures"])
    assert {"binc", "weeds", "lin", "cos"} <= measures
    graph_scorers = measures | {f"{m}+smooth" for m in measures} | {"berant"}
    graph_scorers |= {f"{s}+act" for s in graph_scorers}
    undirected = graph_scorers | {f"{s}+lm" for s in graph_scorers} | {"lm_cosine"}
    directed = undirected | {f"{s}+dir" for s in undirected}
    assert set(body["scorers"]) == directed | {f"{s}+many" for s in directed} | {"exact"}
    assert body["predicate_embeddings"] is True
    assert body["extra_graphs"]["berant"]["measure"] == "berant"


def test_smoothing_grounds_an_unseen_premise_and_says_so(client: TestClient) -> None:
    # "purchase" is not in the graph; "buy" is: plain binc cannot read the evidence, binc+smooth reads it as buy.
    ask = _ask("Alice Smith", "(buy.1,buy.2)", "Acme Corp", ("person", "organization"), top_k=5)
    plain = client.post("/v1/query", json={**ask, "scorer": "binc"}).json()
    assert plain["evidence_count"] == 1 and plain["score"] == 0.0 and plain["evidence"][0]["match"] == "none"
    smoothed = client.post("/v1/query", json={**ask, "scorer": "binc+smooth"}).json()
    assert smoothed["score"] == 1.0 and smoothed["answer"] is True
    assert smoothed["evidence"][0]["match"] == "smoothed" and smoothed["evidence"][0]["sentence"] == PURCHASE


def test_lm_cosine_ranks_the_paraphrase_first(client: TestClient) -> None:
    ask = _ask("Bob Jones", "bought shares in", "Beta Inc", ("person", "organization"), scorer="lm_cosine", top_k=5)
    body = client.post("/v1/query", json=ask).json()
    first, second = body["evidence"]
    assert first["sentence"] == PARAPHRASE and second["sentence"] == UNRELATED
    assert first["score"] > second["score"] + 0.1 and body["score"] == first["score"]
    assert first["match"] == second["match"] == "lm_cosine"
    # In a batch, shared sentences are embedded once and every answer equals its single query.
    batch = client.post("/v1/query/batch", json={"queries": [{k: v for k, v in ask.items() if k not in
                                                              ("scorer", "top_k")}] * 3, "scorer": "lm_cosine"}).json()
    assert [r["score"] for r in batch["results"]] == [body["score"]] * 3


def test_lm_backoff_keeps_graph_answers_and_orders_the_rest_by_the_lm(client: TestClient) -> None:
    # Smoothing reads "purchase" as buy, and buy -> own is an edge: +lm gives exactly binc+smooth's answer.
    own = _ask("Alice Smith", "(own.1,own.2)", "Acme Corp", ("person", "organization"), top_k=5)
    graph = client.post("/v1/query", json={**own, "scorer": "binc+smooth"}).json()
    backed = client.post("/v1/query", json={**own, "scorer": "binc+smooth+lm"}).json()
    assert graph["score"] > 0.05 and backed["score"] == graph["score"] and backed["answer"] is True
    assert backed["evidence"][0]["match"] == graph["evidence"][0]["match"] == "smoothed"
    # Nothing in the graphs links Bob Jones's two sentences to "acquire": binc says 0, +lm orders by the LM
    # cosine, scaled far below any graph score, and the answer stays false even at threshold 0.
    acquire = _ask("Bob Jones", "(acquire.1,acquire.2)", "Beta Inc", ("person", "organization"), top_k=5)
    assert client.post("/v1/query", json={**acquire, "scorer": "binc"}).json()["score"] == 0.0
    lm = client.post("/v1/query", json={**acquire, "scorer": "lm_cosine"}).json()
    backed = client.post("/v1/query", json={**acquire, "scorer": "binc+lm", "threshold": 0.0}).json()
    assert 0.0 < backed["score"] < 1e-8 and backed["answer"] is False
    assert backed["score"] == pytest.approx(1e-9 * lm["score"], rel=1e-5)
    assert [e["match"] for e in backed["evidence"]] == ["lm_backoff", "lm_backoff"]
    assert [e["sentence"] for e in backed["evidence"]] == [e["sentence"] for e in lm["evidence"]]
    # A batch without evidence to explain (as the evaluator asks) scores the same.
    batch = client.post("/v1/query/batch", json={"queries": [{k: v for k, v in q.items() if k != "top_k"}
                                                             for q in (own, acquire)], "scorer": "binc+smooth+lm",
                                                 "top_k": 0}).json()
    assert batch["results"][0]["score"] == graph["score"]
    assert batch["results"][1]["score"] == pytest.approx(backed["score"], rel=1e-5)


def test_berant_scores_a_known_rule(client: TestClient) -> None:
    # Berant: <contain::fruit::metal> -> <be find in::metal::fruit>; the evidence says apples contain iron.
    # The API takes egqa's own argument types, so the rule is reached through cross-graph backoff.
    ask = _ask("iron", "(find.2,find.in.2)", "apple", ("thing", "thing"), top_k=5)
    berant = client.post("/v1/query", json={**ask, "scorer": "berant"}).json()
    assert berant["score"] == 1.0 and berant["evidence"][0]["predicate"] == "(contain.1,contain.2)"
    assert berant["evidence"][0]["match"] == "backoff"
    assert client.post("/v1/query", json={**ask, "scorer": "binc"}).json()["score"] == 0.0


def test_entailment_reports_smoothed_scores(client: TestClient) -> None:
    body = client.get("/v1/entailment", params={"premise": "(purchase.1,purchase.2)", "hypothesis": "(own.1,own.2)",
                                                "types": "person#organization"}).json()
    assert body["scores"]["binc"]["forward_match"] == "none"
    assert body["scores"]["binc+smooth"]["forward_match"] == "smoothed"
    assert body["scores"]["binc+smooth"]["forward"] > 0.5
    assert not any(name.endswith("+lm") for name in body["scores"])  # no sentences here: +lm adds nothing


def test_unavailable_scorers_say_what_to_install(lm_build: dict[str, Any]) -> None:
    store = open_store(lm_build["store"], create=False)
    try:
        no_lm = ScoringEngine(GraphSet.load(lm_build["graphs"]), store)
        with pytest.raises(InputError, match=r"lm_cosine.*unavailable.*`lm` extra"):
            no_lm.check_scorer("lm_cosine")
        with pytest.raises(InputError, match=r"binc\+lm.*unavailable.*`lm` extra"):
            no_lm.check_scorer("binc+lm")
        with pytest.raises(InputError, match=r"unknown scorer 'nope\+lm'"):
            no_lm.check_scorer("nope+lm")
        no_embeddings = ScoringEngine(GraphSet.load(lm_build["berant"]), store, encoder=encoder_or_skip())
        with pytest.raises(InputError, match=r"no predicate embeddings.*egqa graph embed"):
            no_embeddings.check_scorer("berant+smooth")
        with pytest.raises(InputError, match="clashes"):
            ScoringEngine(GraphSet.load(lm_build["graphs"]), store, extra_graphs={"binc": GraphSet.load(lm_build["berant"])})
    finally:
        store.close()


@pytest.fixture(scope="module")
def server(settings: Settings) -> Iterator[str]:
    """The service on a loopback port, as `egqa serve` runs it."""
    with serve_in_thread(settings) as url:
        yield url


def test_evaluator_runs_every_scorer_side_by_side(server: str, tmp_path: Path) -> None:
    entries = [
        {"id": "buy", "label": 1, "subj": "alice smith", "obj": "acme corp", "predicate": "(buy.1,buy.2)"},
        {"id": "visit", "label": 0, "subj": "alice smith", "obj": "acme corp", "predicate": "(visit.1,visit.2)"},
        {"id": "stake", "label": 1, "subj": "bob jones", "obj": "beta inc", "predicate": "(own.1,own.2)"},
    ]
    entries = [{**e, "subj_type": "person", "obj_type": "organization", "window": 0} for e in entries]
    scorers = ("binc", "binc+smooth", "lm_cosine", "berant", "exact", "binc+smooth+lm")
    result = evaluate(entries, server, tmp_path, EvalConfig(scorers, batch_size=2))
    assert set(result.report) == set(scorers) and all(v == 0 for v in result.failed.values())
    lines = {x["id"]: x for x in map(orjson.loads, (tmp_path / "scores.jsonl").read_bytes().splitlines())}
    assert lines["buy"]["binc"] == 0.0 and lines["buy"]["binc+smooth"] == 1.0
    assert 0.0 < lines["buy"]["lm_cosine"] < 1.0
    for line in lines.values():  # the graph scorer's score where it has one, else a scaled LM cosine
        graph, backed = line["binc+smooth"], line["binc+smooth+lm"]
        assert backed == graph if graph > 0 else 0.0 < backed < 1e-8
    with pytest.raises(InputError, match=r"no scorer 'nope'.*binc\+smooth"):
        evaluate(entries, server, tmp_path / "bad", EvalConfig(("binc", "nope")))


def test_serve_reads_extra_graph_sets() -> None:
    from service.commands.serve import parse_extra_graphs

    assert parse_extra_graphs("berant=out/berant, hosseini=out/h") == {"berant": Path("out/berant"),
                                                                       "hosseini": Path("out/h")}
    for bad in ("berant", "=out/b", "berant=", "b=x,b=y"):
        with pytest.raises(InputError, match="--extra-graphs"):
            parse_extra_graphs(bad)
