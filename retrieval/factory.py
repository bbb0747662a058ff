"""`open_store(url)`: pick an evidence-store backend from the URL scheme via one registry."""

from __future__ import annotations

import importlib
from urllib.parse import urlsplit

from graph_builder.errors import InputError
from retrieval.protocol import EvidenceStore

# scheme -> "module:Class". Backends are imported only when chosen, so the Elasticsearch client is
# needed only by those who use it.
BACKENDS: dict[str, str] = {
    "sqlite": "retrieval.backends.sqlite:SQLiteStore",
    "http": "retrieval.backends.elasticsearch:ElasticsearchStore",
    "https": "retrieval.backends.elasticsearch:ElasticsearchStore",
}
DEFAULT_STORE_URL = "sqlite:///evidence.db"


def valid_schemes() -> str:
    """Return the valid URL forms, built from the registry."""
    return ", ".join(f"{scheme}://..." for scheme in BACKENDS)


def backend_class(url: str) -> type:
    """Return the store class that serves `url`, or raise InputError naming the valid schemes."""
    scheme = urlsplit(url).scheme.lower() if "://" in url else ""
    if scheme not in BACKENDS:
        raise InputError(f"unknown evidence store URL {url!r}: use one of {valid_schemes()} "
                         "(e.g. sqlite:///data/evidence.db or http://127.0.0.1:9200)")
    module_name, _, class_name = BACKENDS[scheme].partition(":")
    return getattr(importlib.import_module(module_name), class_name)  # type: ignore[no-any-return]


def open_store(url: str, password: str | None = None, **options: object) -> EvidenceStore:
    """Open the evidence store at `url` (`sqlite:///path` or `http(s)://[user@]host:port[/prefix]`); `password`
    is the URL's user's, for backends that log in (`accepts_password`), and ignored by the others."""
    cls = backend_class(url)
    if password is not None and getattr(cls, "accepts_password", False):
        options["password"] = password
    return cls.from_url(url, **options)  # type: ignore[no-any-return]
