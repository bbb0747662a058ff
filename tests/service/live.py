"""A real uvicorn server in a thread of the test process, for what TestClient cannot show (sockets, keep-alive)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from service.demo import free_port
from service.protocol import HttpLimits, ServingConfig


@contextmanager
def live_server(app: FastAPI, lifespan: str = "on", limits: HttpLimits | None = None) -> Iterator[tuple[str, int]]:
    """Serve `app` on a loopback port; yield (host, port) once it accepts connections, stop it afterwards.

    Pass lifespan="off" for an app already started elsewhere (its shutdown would close its store), and
    `limits` to serve it as `egqa serve` does, behind the service's HTTP protocol (service.protocol).
    """
    port = free_port()
    options = {"host": "127.0.0.1", "port": port, "log_level": "warning", "lifespan": lifespan}
    config = uvicorn.Config(app, **options) if limits is None else ServingConfig(app, limits=limits, **options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield "127.0.0.1", port
    finally:
        server.should_exit = True
        thread.join(timeout=15)
