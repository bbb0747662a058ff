"""`egqa index` loads a triples dataset folder into a store, idempotently, with a summary."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graph_builder.errors import InputError

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


def with_manifest(folder: Path, extractor: str) -> Path:
    """Give the dataset the manifest `egqa extract` writes, naming `extractor`."""
    (folder / "manifest.json").write_text(json.dumps({
        "format": "egqa.triples.v1", "extractor": extractor, "model": "en_core_web_sm", "window_days": 3,
        "corpus_fingerprint": "56060ee36574fa3f53ed", "eval_from": None}))
    return folder


def test_a_store_refuses_another_dataset_unless_replaced(store: object, tmp_path: Path) -> None:
    """After a re-extraction the triple ids repeat: adding it would keep the old rows, so it is refused."""
    old = with_manifest(make_dataset(tmp_path / "old"), "egqa.spacy-dep.v2")
    new = with_manifest(make_dataset(tmp_path / "new"), "egqa.spacy-dep.v3")
    index_dataset(old, store)  # type: ignore[arg-type]
    assert "egqa.spacy-dep.v2" in store.dataset()  # type: ignore[attr-defined]
    assert index_dataset(old, store).triples_added == 0  # type: ignore[arg-type]  # the same dataset: fine
    with pytest.raises(InputError, match=r"another dataset \(egqa.triples.v1 egqa.spacy-dep.v2.*--replace"):
        index_dataset(new, store)  # type: ignore[arg-type]
    replaced = index_dataset(new, store, replace=True)  # type: ignore[arg-type]
    assert (replaced.triples_added, replaced.triples_skipped) == (8, 0)
    assert "egqa.spacy-dep.v3" in store.dataset()  # type: ignore[attr-defined]
    assert store.stats().triples == 8  # type: ignore[attr-defined]


def test_a_store_indexed_before_datasets_were_recorded_warns(store: object, tmp_path: Path,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    index_dataset(make_dataset(tmp_path / "bare"), store)  # type: ignore[arg-type]  # no manifest: nothing recorded
    assert store.dataset() is None  # type: ignore[attr-defined]
    with caplog.at_level(logging.WARNING):
        index_dataset(with_manifest(make_dataset(tmp_path / "new"), "v3"), store)  # type: ignore[arg-type]
    assert "no record of their dataset" in caplog.text and "--replace" in caplog.text


def test_cli_index_replace_empties_the_store_first(tmp_path: Path) -> None:
    db = tmp_path / "evidence.db"
    old = with_manifest(make_dataset(tmp_path / "old"), "egqa.spacy-dep.v2")
    new = with_manifest(make_dataset(tmp_path / "new"), "egqa.spacy-dep.v3")
    assert CliRunner().invoke(app, ["index", str(old), "--store", f"sqlite:///{db}"]).exit_code == 0
    refused = CliRunner().invoke(app, ["index", str(new), "--store", f"sqlite:///{db}"])
    assert refused.exit_code == 2
    error = refused.stderr.splitlines()[-1]  # after the progress bar
    assert error.startswith("error: ") and error.endswith("or pass --replace to empty this one first")
    result = CliRunner().invoke(app, ["index", str(new), "--store", f"sqlite:///{db}", "--replace"])
    assert result.exit_code == 0, result.output
    assert "added 8  already stored 0" in result.output


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
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1].startswith(
        "error: unknown evidence store URL 'mongodb://x': use one of sqlite://..., http://..., https://...")
