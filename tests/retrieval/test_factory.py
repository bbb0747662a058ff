"""open_store picks the backend from the URL scheme and names the valid schemes otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_builder.errors import InputError, StoreError
from retrieval.backends.sqlite import SQLiteStore
from retrieval.factory import BACKENDS, open_store


def test_sqlite_url_opens_embedded_store_at_path(tmp_path: Path) -> None:
    """sqlite:/// + absolute path creates the single store file there."""
    store = open_store(f"sqlite:///{tmp_path}/sub/evidence.db")
    assert isinstance(store, SQLiteStore) and (tmp_path / "sub" / "evidence.db").is_file()
    store.close()


def test_http_url_opens_elasticsearch_with_prefix_from_path() -> None:
    """http(s)://host:port[/prefix] picks Elasticsearch; the path names the index prefix."""
    store = open_store("http://127.0.0.1:9/archive")
    assert store.backend == "elasticsearch"
    aliases = (store.triples_alias, store.articles_alias)  # type: ignore[attr-defined]
    assert aliases == ("archive-triples", "archive-articles")
    assert open_store("https://es.example:9243").prefix == "egqa"  # type: ignore[attr-defined]


@pytest.mark.parametrize("url", ["evidence.db", "mysql://h/db", "ftp://x", "", "sqlite:///"])
def test_unknown_or_malformed_url_is_an_input_error_naming_valid_schemes(url: str) -> None:
    """The message lists every registered scheme (built from the registry, not by hand)."""
    with pytest.raises(InputError) as err:
        open_store(url)
    if url != "sqlite:///":
        assert all(f"{scheme}://" in str(err.value) for scheme in BACKENDS)


def test_opening_missing_store_without_create_is_a_store_error(tmp_path: Path) -> None:
    """The service opens with create=False so a wrong path fails loudly instead of serving nothing."""
    with pytest.raises(StoreError, match="egqa index"):
        open_store(f"sqlite:///{tmp_path}/missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


def test_a_file_that_is_not_a_store_is_a_store_error(tmp_path: Path) -> None:
    """A random file at the path is reported, not overwritten."""
    bad = tmp_path / "bad.db"
    bad.write_text("not sqlite at all, just text that is long enough to be a header" * 10)
    with pytest.raises(StoreError):
        open_store(f"sqlite:///{bad}")
