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


def test_http_url_with_several_hosts_opens_one_store_on_every_node() -> None:
    """`http://user@h1:port,h2:port/prefix?replicas=1`: one client over both nodes, the user's password kept
    out of the hosts that messages name, and new indices made with one replica each."""
    store = open_store("http://elastic@es01:9200,es02:9201/archive?replicas=1&timeout=3", password="pw")
    nodes = sorted((n.host, n.port) for n in store.client.transport.node_pool.all())  # type: ignore[attr-defined]
    assert nodes == [("es01", 9200), ("es02", 9201)]
    assert store.hosts == "http://es01:9200,http://es02:9201"  # type: ignore[attr-defined]
    assert (store.prefix, store.replicas, store.request_timeout) == ("archive", 1, 3.0)  # type: ignore[attr-defined]
    single = open_store("http://127.0.0.1:9")
    assert [n.port for n in single.client.transport.node_pool.all()] == [9]  # type: ignore[attr-defined]
    assert single.replicas == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize("url", ["http://es01:9200,", "http://es01:9200,:9201", "http://es01:9200,es02:port",
                                 "http://elastic:pw@es01:9200,es02:x/p", "http://es01:9200?replicas=-1",
                                 "http://es01:9200?replicas=one"])
def test_malformed_cluster_url_is_an_input_error_without_the_password(url: str) -> None:
    """An empty node, a bad port or a bad replica count is refused before any connection, password masked."""
    with pytest.raises(InputError) as err:
        open_store(url)
    assert "pw" not in str(err.value) and ("host:port" in str(err.value) or "replicas" in str(err.value))
