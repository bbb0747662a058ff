"""Nothing accepted is lost: a real server killed with SIGKILL mid-ingestion resumes its queue on restart and
indexes every accepted article exactly once, with the triple ids an offline extraction gives; and live
extraction names and types an article as the offline pipeline does within it."""

from __future__ import annotations

import datetime as dt
import os
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import orjson

from graph_builder.corpus import Article
from graph_builder.live import extract_articles, prepare
from graph_builder.pipeline import extract_corpus
from graph_builder.triples import read_articles, read_triples
from retrieval.backends.sqlite import SQLiteStore
from service.demo import service_process
from service.ingestion.queue import IngestQueue
from tests.service.articles import articles
from tests.service.test_ingest import GRAPHS


@contextmanager
def server(store: Path, log: Path, graphs: Path = GRAPHS) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`egqa serve` over `store` in its own process; yield its URL and process."""
    env = {"EGQA_LM": "false", "EGQA_INGEST_WORKERS": "1"}
    with service_process(graphs, f"sqlite:///{store}", log, timeout=120, env=env) as served:
        yield served.url, served.process


def test_a_server_killed_mid_ingestion_indexes_every_accepted_article_exactly_once_after_restart(tmp_path: Path) -> None:
    records = articles(400)
    store = tmp_path / "evidence.db"
    SQLiteStore(store).close()
    log = tmp_path / "server.log"
    with server(store, log) as (url, proc):
        with httpx.Client(base_url=url, timeout=60) as client:
            for start in range(0, len(records), 100):
                receipts = client.post("/v1/articles", json={"articles": records[start:start + 100]}).json()["articles"]
                assert {r["status"] for r in receipts} == {"accepted"}
        os.kill(proc.pid, signal.SIGKILL)  # acknowledged, and the server dies without a word
        assert proc.wait(30) == -signal.SIGKILL
    at_kill = IngestQueue(tmp_path / "evidence.ingest.db")
    left = at_kill.counts()
    at_kill.close()
    assert left["queued"] + left["working"] > 0, f"all indexed before the kill: the test proved nothing ({left})"
    assert sum(left.values()) == len(records)

    with server(store, log) as (url, _), httpx.Client(base_url=url, timeout=60) as client:
        deadline = time.monotonic() + 300
        while True:
            states = {r["id"]: client.get(f"/v1/articles/{r['id']}").json() for r in records}
            if all(s["status"] == "indexed" for s in states.values()) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    assert Counter(s["status"] for s in states.values()) == {"indexed": len(records)}

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(b"\n".join(orjson.dumps(r) for r in records))
    extract_corpus([corpus], tmp_path / "offline", workers=1)
    offline = read_triples(tmp_path / "offline", columns=["triple_id", "article_id"])
    with sqlite3.connect(store) as conn:
        live_ids = [row[0] for row in conn.execute("SELECT triple_id FROM triples ORDER BY triple_id")]
        live_articles = conn.execute("SELECT count(*), sum(triples) FROM articles").fetchone()
    assert live_ids == offline["triple_id"].to_pylist()  # the same ids, each once (ids are unique in the store)
    per_article = Counter(offline["article_id"].to_pylist())
    assert {i: s["triples"] for i, s in states.items()} == {r["id"]: per_article[r["id"]] for r in records}
    assert live_articles == (len(records), len(live_ids))
    assert read_articles(tmp_path / "offline").num_rows == len(records)


def test_live_extraction_gives_one_article_the_rows_an_offline_extraction_of_it_gives(tmp_path: Path) -> None:
    text = ("Barack Obama visited Paris on Monday. Obama met Angela Merkel in Berlin on Tuesday. "
            "Acme Corp said it bought Globex Inc for $5 million. Acme also hired Merkel as an adviser.")
    prepared = prepare("one", dt.date(2024, 3, 5), "Obama in Europe", text)
    assert isinstance(prepared.article, Article)
    live = extract_articles([prepared.article])[0]
    corpus = tmp_path / "one.jsonl"
    corpus.write_bytes(orjson.dumps({"id": "one", "date": "2024-03-05", "title": "Obama in Europe", "text": text}))
    extract_corpus([corpus], tmp_path / "offline", workers=1)
    offline = read_triples(tmp_path / "offline").to_pylist()
    assert [dict(r) for r in live.triples] == offline
    assert "barack obama" in {r["subj"] for r in offline}  # the surname rule ran in both
    assert live.article == read_articles(tmp_path / "offline").to_pylist()[0]
