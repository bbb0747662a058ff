"""Elasticsearch failure behaviour: a clear StoreError within bounded time, and recovery afterwards."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import pytest

from graph_builder.errors import StoreError
from retrieval.factory import open_store
from tests.retrieval.rows import triple
from tests.retrieval.test_store_contract import MAR4, TRIPLES, W1


def free_port() -> int:
    """Return a loopback port nothing listens on (at the time of asking)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TcpProxy:
    """A loopback TCP forwarder we can cut and restore, standing in for a server that goes away."""

    def __init__(self, target: tuple[str, int], port: int) -> None:
        self.target, self.port = target, port
        self._conns: list[socket.socket] = []
        self._server: socket.socket | None = None

    def start(self) -> None:
        """Listen on the proxy port and forward every connection to the target."""
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", self.port))
        server.listen(16)
        self._server = server
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def stop(self) -> None:
        """Close the listener and every open connection (the 'server' is gone)."""
        if self._server is not None:
            try:
                self._server.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept(); close() alone does not
            except OSError:
                pass
            self._server.close()
            self._server = None
        for conn in self._conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()
        self._conns.clear()


def test_closed_port_raises_store_error_fast() -> None:
    """Nothing listening: every call fails with StoreError naming the server, in well under a second."""
    store = open_store(f"http://127.0.0.1:{free_port()}/egqa-nothing", request_timeout=2.0)
    for call in (lambda: store.evidence(W1, "john", "ikea"), store.windows, store.stats,
                 lambda: store.add_triples(TRIPLES)):
        start = time.monotonic()
        with pytest.raises(StoreError, match="unreachable"):
            call()
        assert time.monotonic() - start < 2.0


def test_silent_server_times_out_within_request_timeout() -> None:
    """A server that accepts but never answers costs one request timeout, not a hang."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    try:
        store = open_store(f"http://127.0.0.1:{silent.getsockname()[1]}/egqa-silent", request_timeout=1.0)
        start = time.monotonic()
        with pytest.raises(StoreError, match="unreachable"):
            store.evidence(W1, "john", "ikea")
        assert time.monotonic() - start < 4.0
    finally:
        silent.close()


def test_store_recovers_when_server_comes_back(es_url: str) -> None:
    """Server gone -> StoreError quickly; server back -> the very next call on the same store works."""
    target = urlsplit(es_url)
    proxy = TcpProxy((target.hostname or "127.0.0.1", target.port or 9200), free_port())
    proxy.start()
    store: Any = open_store(f"http://127.0.0.1:{proxy.port}/egqa-test-recovery", request_timeout=3.0)
    try:
        store.add_triples(TRIPLES)
        assert len(store.evidence(W1, "john", "ikea")) == 3
        proxy.stop()
        start = time.monotonic()
        with pytest.raises(StoreError):
            store.evidence(W1, "john", "ikea")
        with pytest.raises(StoreError):
            store.add_triples([triple(50, MAR4, "john", "ikea")])
        assert time.monotonic() - start < 10.0
        proxy.start()
        assert len(store.evidence(W1, "john", "ikea")) == 3
        assert store.add_triples([triple(50, MAR4, "john", "ikea")]) == 1
        assert len(store.evidence(W1, "john", "ikea")) == 4
    finally:
        proxy.stop()
        open_store(f"{es_url}/egqa-test-recovery").drop()  # type: ignore[attr-defined]
