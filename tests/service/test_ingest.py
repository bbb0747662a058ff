"""POST /v1/articles and GET /v1/articles/{id}: articles queued durably, extracted by worker processes into
the store, and every failure path (duplicate, rejected, invalid record, too large, full queue, API key)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from retrieval.backends.sqlite import SQLiteStore
from service.app import create_app
from service.ingestion.queue import DispatchLock, IngestQueue
from service.settings import Settings
from tests.retrieval.conftest import es_url  # noqa: F401  (the real Elasticsearch fixture)
from tests.service.articles import article, articles

REPO = Path(__file__).resolve().parents[2]
GRAPHS = REPO / "tests" / "data" / "graphs" / "built-float64"
KEY = "k" * 32


def live_settings(tmp: Path, **overrides: object) -> Settings:
    """Settings of a service over an empty SQLite store in `tmp` and the small test graphs."""
    SQLiteStore(tmp / "evidence.db").close()
    return Settings(graphs_dir=GRAPHS, store_url=f"sqlite:///{tmp / 'evidence.db'}", lm=False, **overrides)


def wait_done(client: TestClient, ids: list[str], timeout: float = 180.0, headers: dict[str, str] | None = None
              ) -> dict[str, dict[str, object]]:
    """Poll GET /v1/articles/{id} until no article is queued; return the last states."""
    deadline = time.monotonic() + timeout
    while True:
        states = {i: client.get(f"/v1/articles/{i}", headers=headers).json() for i in ids}
        if all(s["status"] != "queued" for s in states.values()) or time.monotonic() > deadline:
            return states
        time.sleep(0.1)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[TestClient]:
    """The service over an empty store, taking articles."""
    with TestClient(create_app(live_settings(tmp_path))) as client:
        yield client


def test_an_accepted_article_is_indexed_into_a_new_window_and_answers_a_question(live: TestClient) -> None:
    record = {"id": "merkel-1", "date": "2024-03-06", "title": "Merkel meets Macron",
              "text": "Angela Merkel met Emmanuel Macron in Berlin on Wednesday. Merkel praised Macron."}
    assert live.get("/v1/windows").json()["windows"] == []
    response = live.post("/v1/articles", json={"articles": [record]})
    assert response.status_code == 202
    assert response.json() == {"articles": [{"id": "merkel-1", "status": "accepted", "reason": None}]}
    state = wait_done(live, ["merkel-1"])["merkel-1"]
    assert state["status"] == "indexed" and state["triples"] >= 2
    windows = live.get("/v1/windows").json()["windows"]
    assert [(w["start"], w["end"], w["articles"], w["triples"]) for w in windows] == [
        ("2024-03-06", "2024-03-08", 1, state["triples"])]
    answer = live.post("/v1/query", json={"subject": "Angela Merkel", "predicate": "met", "object": "Emmanuel Macron",
                                          "date": "2024-03-07"}).json()
    assert answer["answer"] is True
    assert {e["article_id"] for e in answer["evidence"]} == {"merkel-1"}
    assert "Angela Merkel met Emmanuel Macron in Berlin on Wednesday." in {e["sentence"] for e in answer["evidence"]}


def test_receipts_come_in_request_order_with_duplicates_by_id_and_by_cleaned_text(live: TestClient) -> None:
    first = article(1)
    same_id = {**article(2), "id": first["id"]}
    # The same story with a dateline: cleaned as news, its text is the first one's.
    same_text = {**first, "id": "copy-of-1", "text": "BERLIN (Reuters) - " + first["text"]}
    fresh = article(3)
    body = {"articles": [first, same_id, same_text, fresh, fresh]}
    receipts = live.post("/v1/articles", json=body).json()["articles"]
    assert [(r["id"], r["status"]) for r in receipts] == [
        (first["id"], "accepted"), (first["id"], "duplicate"), ("copy-of-1", "duplicate"),
        (fresh["id"], "accepted"), (fresh["id"], "duplicate")]
    assert receipts[1]["reason"] == "same id as an article received before"
    assert receipts[2]["reason"] == f"same text as article {first['id']!r}"
    states = wait_done(live, [first["id"], fresh["id"]])
    counts = {i: s["triples"] for i, s in states.items()}
    assert all(s["status"] == "indexed" for s in states.values())
    # Sent again after indexing: still duplicates, and the store holds each article's triples once.
    again = live.post("/v1/articles", json={"articles": [first, fresh]}).json()["articles"]
    assert [r["status"] for r in again] == ["duplicate", "duplicate"]
    assert live.get("/v1/articles/copy-of-1").status_code == 404
    assert sum(w["triples"] for w in live.get("/v1/windows").json()["windows"]) == sum(counts.values())


def test_a_date_whose_window_leaves_the_calendar_is_rejected(live: TestClient) -> None:
    receipts = live.post("/v1/articles", json={"articles": [{**article(1), "id": "last", "date": "9999-12-31"},
                                                             {**article(2), "id": "first", "date": "0001-01-01"}]})
    assert [(r["status"], r["reason"].split(":")[0]) for r in receipts.json()["articles"]] == [
        ("rejected", "date_out_of_range"), ("rejected", "date_out_of_range")]
    assert live.get("/v1/windows").json()["windows"] == []


def test_a_record_with_nothing_to_extract_is_rejected_with_its_reason_and_may_be_sent_again(live: TestClient) -> None:
    headline = {"id": "headline-1", "date": "2024-03-04", "title": "Acme Corp buys Globex", "text": "  \n "}
    receipts = live.post("/v1/articles", json={"articles": [headline, article(5)]}).json()["articles"]
    assert receipts[0] == {"id": "headline-1", "status": "rejected",
                           "reason": "headline_only: the text is empty once cleaned"}
    assert receipts[1]["status"] == "accepted"
    state = live.get("/v1/articles/headline-1").json()
    assert state == {"id": "headline-1", "status": "rejected", "triples": None,
                     "reason": "headline_only: the text is empty once cleaned"}
    fixed = {**headline, "text": "Acme Corp said on Monday it bought Globex Inc for $5 million in Paris."}
    assert live.post("/v1/articles", json={"articles": [fixed]}).json()["articles"][0]["status"] == "accepted"
    assert wait_done(live, ["headline-1"])["headline-1"]["status"] == "indexed"


@pytest.mark.parametrize(("record", "where", "problem"), [
    ({"id": "b", "title": "t", "text": "Acme Corp bought Globex Inc."}, "body.articles.1.date", "Field required"),
    ({"id": "b", "date": "06/03/2024", "text": "Acme Corp bought Globex Inc."}, "body.articles.1.date", "YYYY-MM-DD"),
    ({"id": "b", "date": "2024-03-06"}, "body.articles.1.text", "Field required"),
    ({"id": "", "date": "2024-03-06", "text": "Acme Corp bought Globex Inc."}, "body.articles.1.id", "at least 1"),
])
def test_a_record_that_breaks_the_schema_makes_the_request_422_naming_the_record_and_field(
        live: TestClient, record: dict[str, str], where: str, problem: str) -> None:
    response = live.post("/v1/articles", json={"articles": [article(7), record]})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    named = " (id 'b')" if record["id"] else " (id '')"
    assert error["message"].startswith(f"{where}{named}: ") and problem in error["message"]
    assert [(d["where"], d["record"]) for d in error["details"]] == [(where, record["id"])]
    # Nothing of a refused request is queued, the valid record included.
    assert live.get(f"/v1/articles/{article(7)['id']}").status_code == 404


def test_an_unknown_article_is_404(live: TestClient) -> None:
    response = live.get("/v1/articles/never-sent")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_too_many_articles_or_too_many_bytes_is_413(tmp_path: Path) -> None:
    settings = live_settings(tmp_path, ingest_max_articles=3, max_body_bytes=20_000)
    with TestClient(create_app(settings)) as client:
        many = client.post("/v1/articles", json={"articles": articles(4)})
        assert many.status_code == 413
        assert many.json()["error"]["message"] == "4 articles in one request; the limit is 3: send smaller batches"
        big = client.post("/v1/articles", json={"articles": [{**article(1), "text": "Acme Corp grew. " * 2000}]})
        assert big.status_code == 413 and big.json()["error"]["code"] == "payload_too_large"
        assert client.get(f"/v1/articles/{article(1)['id']}").status_code == 404


def test_a_full_queue_answers_429_with_retry_after_and_queues_nothing_of_that_request(tmp_path: Path) -> None:
    settings = live_settings(tmp_path, ingest_max_pending=3)
    queue_file = tmp_path / "evidence.ingest.db"
    IngestQueue(queue_file).close()
    other = DispatchLock(queue_file)
    assert other.acquire()  # another process is the dispatcher and is stalled: nothing leaves the queue
    try:
        with TestClient(create_app(settings)) as client:
            first = client.post("/v1/articles", json={"articles": articles(3)})
            assert [r["status"] for r in first.json()["articles"]] == ["accepted"] * 3
            full = client.post("/v1/articles", json={"articles": articles(2, first=3)})
            assert full.status_code == 429
            assert full.json()["error"]["code"] == "queue_full"
            assert int(full.headers["Retry-After"]) >= 1
            assert client.get(f"/v1/articles/{article(3)['id']}").status_code == 404
            # Duplicates and rejections take no room: they are answered even now.
            assert client.post("/v1/articles", json={"articles": [article(0)]}).json()["articles"][0]["status"] \
                == "duplicate"
            other.release()  # the stalled dispatcher goes away: this service takes over and drains the queue
            states = wait_done(client, [a["id"] for a in articles(3)])
            assert {s["status"] for s in states.values()} == {"indexed"}
            retried = client.post("/v1/articles", json={"articles": articles(2, first=3)})
            assert retried.status_code == 202
    finally:
        other.release()


def test_the_ingestion_routes_need_the_api_key_when_one_is_set(tmp_path: Path) -> None:
    with TestClient(create_app(live_settings(tmp_path, api_key=KEY))) as client:
        body = {"articles": [article(1)]}
        assert client.post("/v1/articles", json=body).status_code == 401
        assert client.post("/v1/articles", json=body, headers={"X-API-Key": "w" * 32}).status_code == 401
        assert client.get(f"/v1/articles/{article(1)['id']}").status_code == 401
        assert client.post("/v1/admin/reload").status_code == 401
        headers = {"Authorization": f"Bearer {KEY}"}
        assert client.post("/v1/articles", json=body, headers=headers).status_code == 202
        assert wait_done(client, [article(1)["id"]], headers=headers)[article(1)["id"]]["status"] == "indexed"


def test_an_elasticsearch_store_without_a_queue_file_takes_no_articles_and_says_why(tmp_path: Path) -> None:
    from service.ingestion import queue_path

    class Remote:
        backend = "elasticsearch"

    assert queue_path(None, Remote()) is None  # type: ignore[arg-type]
    assert queue_path(tmp_path / "q.db", Remote()) == tmp_path / "q.db"  # type: ignore[arg-type]
    assert queue_path(None, SQLiteStore(tmp_path / "e.db")) == tmp_path / "e.ingest.db"


@pytest.mark.elasticsearch
def test_on_elasticsearch_an_indexed_article_is_searchable_and_without_a_queue_file_none_is_taken(
        tmp_path: Path, es_url: str) -> None:
    from retrieval.factory import open_store

    url = f"{es_url}/egqa-ingest-{tmp_path.name[-12:].lower().replace('_', '-')}"
    store = open_store(url)
    try:
        settings = Settings(graphs_dir=GRAPHS, store_url=url, lm=False)
        with TestClient(create_app(settings)) as client:
            refused = client.post("/v1/articles", json={"articles": [article(1)]})
            assert refused.status_code == 503
            assert "set EGQA_INGEST_QUEUE" in refused.json()["error"]["message"]
        with TestClient(create_app(settings.model_copy(update={"ingest_queue": tmp_path / "queue.db"}))) as client:
            record = {"id": "es-merkel", "date": "2024-03-06",
                      "text": "Angela Merkel met Emmanuel Macron in Berlin on Wednesday. Merkel praised Macron."}
            assert client.post("/v1/articles", json={"articles": [record]}).json()["articles"][0]["status"] == "accepted"
            state = wait_done(client, ["es-merkel"])["es-merkel"]
            assert state["status"] == "indexed" and state["triples"] >= 2
            # Asked the moment it is indexed: Elasticsearch was refreshed before the article was marked so.
            answer = client.post("/v1/query", json={"subject": "Angela Merkel", "predicate": "met",
                                                    "object": "Emmanuel Macron", "date": "2024-03-06"}).json()
            assert answer["answer"] is True and {e["article_id"] for e in answer["evidence"]} == {"es-merkel"}
            assert [w["triples"] for w in client.get("/v1/windows").json()["windows"]] == [state["triples"]]
    finally:
        store.drop()  # type: ignore[attr-defined]
        store.close()


def test_a_name_asked_about_before_its_article_arrives_is_found_once_the_article_is_indexed(live: TestClient) -> None:
    first = {"id": "w-1", "date": "2024-03-06", "text": "Angela Merkel visited Paris on Wednesday."}
    assert live.post("/v1/articles", json={"articles": [first]}).json()["articles"][0]["status"] == "accepted"
    assert wait_done(live, ["w-1"])["w-1"]["status"] == "indexed"
    ask = {"subject": "Angela Merkel", "predicate": "met", "object": "Vladimir Putin", "date": "2024-03-06",
           "subject_type": "person", "object_type": "person"}
    before = live.post("/v1/query", json=ask).json()
    assert before["answer"] is False and before["hypothesis"]["names"][1] == "vladimir putin (unknown)"
    second = {"id": "w-2", "date": "2024-03-07", "text": "Angela Merkel met Vladimir Putin in Moscow on Thursday."}
    assert live.post("/v1/articles", json={"articles": [second]}).json()["articles"][0]["status"] == "accepted"
    assert wait_done(live, ["w-2"])["w-2"]["status"] == "indexed"
    after = live.post("/v1/query", json=ask).json()  # the resolver's cached "unknown" was dropped on the write
    assert after["answer"] is True and after["hypothesis"]["names"][1] == "vladimir putin (exact)"
    assert {e["article_id"] for e in after["evidence"]} == {"w-2"}


def test_the_service_and_a_direct_store_ingest_write_one_sqlite_store_at_once_while_it_answers(tmp_path: Path) -> None:
    """One writer at a time, many readers: the service's dispatcher and `egqa ingest --store` in another process
    write the same SQLite file while questions are answered; no request fails, nothing is written twice."""
    import sqlite3
    import subprocess
    import sys
    import threading

    import orjson

    feed = tmp_path / "direct.jsonl"
    feed.write_bytes(b"\n".join(orjson.dumps(a) for a in articles(80, first=1000)))
    with TestClient(create_app(live_settings(tmp_path))) as client:
        client.post("/v1/articles", json={"articles": [article(0)]})
        wait_done(client, [article(0)["id"]])
        window = client.get("/v1/windows").json()["windows"][0]["id"]
        failures: list[str] = []
        stop = threading.Event()

        def ask() -> None:
            while not stop.is_set():
                response = client.post("/v1/query", json={"subject": "Angela Merkel", "predicate": "met",
                                                          "object": "Emmanuel Macron", "window": window})
                if response.status_code not in (200, 404):
                    failures.append(response.text)

        askers = [threading.Thread(target=ask) for _ in range(3)]
        for thread in askers:
            thread.start()
        try:
            direct = subprocess.Popen([sys.executable, "-m", "service", "ingest", "--store",
                                       f"sqlite:///{tmp_path / 'evidence.db'}", str(feed)], cwd=REPO,
                                      env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "HOME": "/tmp"},
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            served = articles(80, first=1)
            for start in range(0, len(served), 20):
                response = client.post("/v1/articles", json={"articles": served[start:start + 20]})
                assert response.status_code == 202, response.text
            states = wait_done(client, [a["id"] for a in served])
            out, err = direct.communicate(timeout=600)
        finally:
            stop.set()
            for thread in askers:
                thread.join()
        assert direct.returncode == 0, err.decode()
        assert "database is locked" not in err.decode()
        assert failures == []
        assert {s["status"] for s in states.values()} == {"indexed"}
    with sqlite3.connect(tmp_path / "evidence.db") as conn:
        total, distinct = conn.execute("SELECT count(*), count(DISTINCT triple_id) FROM triples").fetchone()
        stored = conn.execute("SELECT count(*) FROM articles").fetchone()[0]
    assert total == distinct and stored == 1 + 80 + 80
