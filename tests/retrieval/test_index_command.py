"""`egqa index` loads a triples dataset folder into a store, idempotently, with a summary."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from graph_builder.triples import ARTICLE_SCHEMA, article_shard_path, shard_path, write_shard
from retrieval.backends.sqlite import SQLiteStore
from retrieval.ingest import index_dataset
from service.cli import app
from tests.retrieval.test_store_contract import ARTICLES, TRIPLES, W1, W2, W3


def make_dataset(folder: Path) -> Path:
    """Write the contract fixture as a two-shard triples dataset with its article table."""
    folder.mkdir()
    write_shard(TRIPLES[:4], shard_path(folder, "00000"))
    write_shard(TRIPLES[4:], shard_path(folder, "00001"))
    write_shard(ARTICLES, article_shard_path(folder, "00000"), schema=ARTICLE_SCHEMA)
    return folder


def test_index_dataset_loads_triples_and_articles(store: object, tmp_path: Path) -> None:
    """Every backend gets all triples and the article table; a second run adds nothing."""
    data = make_dataset(tmp_path / "triples")
    first = index_dataset(data, store, batch_size=3)  # type: ignore[arg-type]
    assert (first.triples_read, first.triples_added, first.articles) == (8, 8, 5)
    again = index_dataset(data, store)  # type: ignore[arg-type]
    assert (again.triples_added, again.triples_skipped) == (0, 8)
    counts = [(w.id, w.articles, w.triples) for w in store.windows()]  # type: ignore[attr-defined]
    assert counts == [(W1, 3, 7), (W2, 1, 1), (W3, 1, 0)]


def test_cli_index_prints_summary_and_builds_sqlite_store(tmp_path: Path) -> None:
    """`egqa index DATA --store sqlite:///...` reports the counts and leaves a usable store."""
    data = make_dataset(tmp_path / "triples")
    db = tmp_path / "evidence.db"
    result = CliRunner().invoke(app, ["index", str(data), "--store", f"sqlite:///{db}"])
    assert result.exit_code == 0, result.output
    assert "triples read 8  added 8  already stored 0  articles 5" in result.output
    assert "3 windows (2090..2092)" in result.output
    found = SQLiteStore(db, create=False).evidence(W1, "ikea", "john")
    assert [e.triple_id for e in found] == ["t0002", "t0001", "t0003"]
    rerun = CliRunner().invoke(app, ["index", str(data), "--store", f"sqlite:///{db}"])
    assert "added 0  already stored 8" in rerun.output


def test_cli_index_rejects_unknown_store_scheme(tmp_path: Path) -> None:
    """A bad --store URL is a one-line error naming the valid schemes."""
    data = make_dataset(tmp_path / "triples")
    result = CliRunner().invoke(app, ["index", str(data), "--store", "mongodb://x"])
    assert result.exit_code != 0
    assert "sqlite://" in str(result.exception) and "http://" in str(result.exception)
