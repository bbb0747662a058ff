"""`egqa ingest FILE|-` into a running service and `egqa ingest --store URL FILE` straight into a store:
every article once, however often the file is sent, and bad lines counted and named."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
from fastapi.testclient import TestClient

from service.app import create_app
from tests.service.articles import articles
from tests.service.live import live_server
from tests.service.test_ingest import REPO, live_settings


def egqa(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    run = subprocess.run([sys.executable, "-m", "service", *args], capture_output=True, timeout=600, cwd=REPO,
                         input=stdin, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "HOME": "/tmp"})
    return subprocess.CompletedProcess(run.args, run.returncode, run.stdout.decode(), run.stderr.decode())


def feed(path: Path, records: list[dict[str, str]], bad_lines: tuple[bytes, ...] = ()) -> Path:
    path.write_bytes(b"\n".join([*(orjson.dumps(r) for r in records), *bad_lines]) + b"\n")
    return path


def store_counts(db: Path) -> tuple[int, int, int]:
    with sqlite3.connect(db) as conn:
        return (conn.execute("SELECT count(*) FROM triples").fetchone()[0],
                conn.execute("SELECT count(DISTINCT triple_id) FROM triples").fetchone()[0],
                conn.execute("SELECT count(*) FROM articles").fetchone()[0])


def test_ingest_into_a_store_twice_adds_nothing_the_second_time(tmp_path: Path) -> None:
    records = articles(30)
    path = feed(tmp_path / "feed.jsonl", [*records, records[3]], (b'{"id": "no-date", "text": "Acme Corp grew."}',
                                                                   b"not json"))
    db = tmp_path / "new" / "evidence.db"
    first = egqa("ingest", "--store", f"sqlite:///{db}", "--workers", "2", str(path))
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0] == "read 33  accepted 30  duplicate 1  rejected 0  invalid 2"
    triples, distinct, stored_articles = store_counts(db)
    assert triples == distinct > 30 and stored_articles == 30
    assert f"store: 30 articles extracted, triples {triples:,} read, {triples:,} new" in lines[1]
    assert "  not ingested: line 32: date: Field required" in lines
    assert any(line.startswith("  not ingested: line 33: not JSON") for line in lines)
    second = egqa("ingest", "--store", f"sqlite:///{db}", str(path))
    assert second.returncode == 0, second.stderr
    assert f"triples {triples:,} read, 0 new" in second.stdout
    assert store_counts(db) == (triples, triples, 30)


def test_ingest_into_a_running_service_from_a_file_and_from_stdin(tmp_path: Path) -> None:
    records = articles(12)
    path = feed(tmp_path / "feed.jsonl", records[:8])
    settings = live_settings(tmp_path, ingest_max_pending=5)  # smaller than the feed: the command waits out 429s
    app = create_app(settings)
    with TestClient(app), live_server(app, lifespan="off") as (host, port):
        url = f"http://{host}:{port}"
        run = egqa("ingest", "--url", url, "--batch-size", "4", "--wait", str(path))
        assert run.returncode == 0, run.stderr
        assert run.stdout.splitlines()[0].startswith("read 8  accepted 8  duplicate 0  rejected 0  invalid 0")
        assert "indexed 8 of 8 accepted" in run.stdout
        again = egqa("ingest", "--url", url, str(path))
        assert again.stdout.splitlines()[0] == "read 8  accepted 0  duplicate 8  rejected 0  invalid 0"
        piped = egqa("ingest", "--url", url, "--wait", "-", stdin=b"\n".join(orjson.dumps(r) for r in records[6:]))
        assert piped.stdout.splitlines()[0] == "read 6  accepted 4  duplicate 2  rejected 0  invalid 0"
        assert "indexed 4 of 4 accepted" in piped.stdout
    triples, distinct, stored_articles = store_counts(tmp_path / "evidence.db")
    assert triples == distinct and stored_articles == 12


def test_ingest_into_a_service_that_is_not_there_is_one_line_and_exit_2(tmp_path: Path) -> None:
    run = egqa("ingest", "--url", "http://127.0.0.1:9", str(feed(tmp_path / "f.jsonl", articles(1))))
    assert run.returncode == 2
    assert "is `egqa serve` running there?" in run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("error: http://127.0.0.1:9: no answer (ConnectError")
