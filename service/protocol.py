"""HTTP/1.1 limits below the ASGI app: request-line, header count and size, read deadlines, a connection cap.

Uvicorn's httptools protocol has none of these (its h11 protocol bounds the head's size only, and neither
bounds the time a client may take to send a request), and an ASGI middleware runs only once a whole head has
been read, too late to refuse a 500 MB header or a request that never ends. `GuardedHttpProtocol` extends
uvicorn's httptools protocol by its parser callbacks and `data_received`, and answers what it refuses with the
service's JSON error body and `Connection: close`:

- a request line longer than `max_request_line` bytes: 414;
- more than `max_headers` header fields, or a head (request line and headers) over `max_header_bytes`: 431,
  counted as the bytes arrive, so an oversized head is never buffered;
- a head not complete `header_timeout` seconds after the connection opened or the previous response ended,
  or a body not complete `body_timeout` seconds after its head: 408;
- with `max_connections` connections open, a new one closes the oldest connection that is not being served
  (still sending its request, or idle between requests) with 408; if every connection is being served, the
  new one gets 503. A slow or half-open flood thus only ever displaces itself, and a client that sends a
  whole request at once (a health probe) is served.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
import weakref
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import httptools
import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from service.errors import error_bytes

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HttpLimits:
    """What one connection may send, how long it may take, and how many connections a process keeps."""

    max_request_line: int = 8192
    max_headers: int = 100
    max_header_bytes: int = 32768
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 2048


class ServingConfig(uvicorn.Config):
    """Uvicorn's Config carrying the service's `HttpLimits` (a module-level class, so worker processes get it)."""

    def __init__(self, app: Any, *, limits: HttpLimits, **kwargs: Any) -> None:
        super().__init__(app, http=GuardedHttpProtocol, **kwargs)
        self.limits = limits


class _Refused(Exception):
    """A request the protocol refuses: the status, code and message of its answer."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class Phase(enum.Enum):
    """Where a connection is: waiting for or reading a head, reading a body, or being served."""

    HEAD = "head"
    BODY = "body"
    SERVED = "served"


class _Connections:
    """The connections of one server that are not being served, oldest first (the ones a cap may close)."""

    def __init__(self) -> None:
        self.waiting: dict[GuardedHttpProtocol, None] = {}
        self.closed_for_room = 0
        self._warned = 0.0

    def note_closed_for_room(self) -> None:
        """Count a connection closed to admit a newer one; warn at most once a minute."""
        self.closed_for_room += 1
        now = time.monotonic()
        if now - self._warned > 60:
            self._warned = now
            log.warning("connection cap reached: closing the oldest connections still sending their request "
                        "(%d so far)", self.closed_for_room)


LINGER_SECONDS = 2.0

_REGISTRIES: weakref.WeakKeyDictionary[ServerState, _Connections] = weakref.WeakKeyDictionary()


def _registry(state: ServerState) -> _Connections:
    found = _REGISTRIES.get(state)
    if found is None:
        found = _REGISTRIES[state] = _Connections()
    return found


def raw_response(status: int, code: str, message: str, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """An HTTP/1.1 response with the JSON error body that closes the connection, as bytes for the transport."""
    body = error_bytes(code, message)
    head = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n".encode()]
    head += [name + b": " + value + b"\r\n" for name, value in default_headers]
    head += [b"content-type: application/json\r\n", b"content-length: %d\r\n" % len(body),
             b"connection: close\r\n\r\n"]
    return b"".join(head) + body


class GuardedHttpProtocol(HttpToolsProtocol):
    """Uvicorn's httptools protocol with the limits of `HttpLimits` (see the module docstring)."""

    def __init__(self, config: uvicorn.Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.limits: HttpLimits = getattr(config, "limits", HttpLimits())
        self.registry = _registry(server_state)
        self.phase = Phase.HEAD
        self.head_bytes = 0
        self.header_count = 0
        self.deadline: asyncio.TimerHandle | None = None
        self.answered = False

    # -- connection life -------------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Admit the connection (closing the oldest waiting one at the cap) and start its head deadline."""
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections and not self._make_room():
            self._refuse(503, "too_many_connections", f"the service holds {self.limits.max_connections} "
                         "connections, all being served: retry shortly")
            return
        self._wait_for_head()

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the connection and its deadline."""
        self._disarm()
        self.registry.waiting.pop(self, None)
        super().connection_lost(exc)

    def _make_room(self) -> bool:
        """Close the oldest connection not being served, other than this one; False if there is none."""
        for other in self.registry.waiting:
            if other is not self and not other.transport.is_closing():
                other._refuse(408, "request_timeout", "the connection was closed to admit another: the service "
                              "is at its connection cap and this request was not complete")
                self.registry.note_closed_for_room()
                return True
        return False

    def _wait_for_head(self) -> None:
        self.phase, self.head_bytes, self.header_count = Phase.HEAD, 0, 0
        self.registry.waiting[self] = None
        self._arm(self.limits.header_timeout, "request headers")

    # -- deadlines -------------------------------------------------------------------------------------
    def _arm(self, seconds: float, what: str) -> None:
        self._disarm()
        self.deadline = self.loop.call_later(seconds, self._expired, seconds, what)

    def _disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _expired(self, seconds: float, what: str) -> None:
        self.deadline = None
        if self.phase is Phase.BODY and self.cycle is not None and self.cycle.response_started:
            self.transport.close()  # nothing more can be said on this connection
            return
        self._refuse(408, "request_timeout", f"the {what} did not arrive within {seconds:g} s")

    def _refuse(self, status: int, code: str, message: str, linger: bool = False) -> None:
        """Answer with the JSON error body and close the connection. With `linger`, for a client that may still
        be sending, stop writing but read and discard for LINGER_SECONDS first: closing a socket with unread
        input resets it, and the reset can destroy the answer before the client reads it."""
        self._disarm()
        if self.transport.is_closing() or self.answered:
            self.registry.waiting.pop(self, None)
            self.transport.close()
            return
        self.answered = True
        if self.cycle is not None:
            self.cycle.keep_alive = False
            if self.cycle.response_started and self.phase is not Phase.HEAD:
                self.registry.waiting.pop(self, None)
                self.transport.close()  # a response is out or under way: another would be read as its sequel
                return
        self.transport.write(raw_response(status, code, message, self.server_state.default_headers))
        if linger and self.transport.can_write_eof():
            self.transport.write_eof()
            self.loop.call_later(LINGER_SECONDS, self.transport.close)
            return  # stays in `waiting`, first in line to be closed should the cap be reached
        self.registry.waiting.pop(self, None)
        self.transport.close()

    # -- bytes in --------------------------------------------------------------------------------------
    def data_received(self, data: bytes) -> None:
        """Feed the parser, counting a head's bytes before they are buffered; refuse what breaks a limit."""
        self._unset_keepalive_if_required()
        if self.answered:
            return  # lingering after a refusal: what the client still sends is read and dropped
        if self.phase is Phase.SERVED and not self.pipeline and (self.cycle is None or self.cycle.response_complete):
            self._wait_for_head()  # the first byte of the next request on a kept-alive connection
        while data and not self.transport.is_closing():
            if self.phase is Phase.HEAD:
                room = self.limits.max_header_bytes - self.head_bytes
                if room <= 0:
                    self._refuse(431, "headers_too_large", f"the request line and headers are over "
                                 f"{self.limits.max_header_bytes} bytes", linger=True)
                    return
                piece, data = data[:room], data[room:]
                self.head_bytes += len(piece)
            else:
                piece, data = data, b""
            if not self._feed(piece):
                return

    def _feed(self, piece: bytes) -> bool:
        """Feed one piece to the parser; False once the connection is answered and closing."""
        try:
            self.parser.feed_data(piece)
        except httptools.HttpParserCallbackError as exc:
            refused = exc.__context__
            if isinstance(refused, _Refused):
                self._refuse(refused.status, refused.code, refused.message, linger=True)
            else:
                log.warning("invalid HTTP request: %s", exc)
                self._refuse(400, "bad_request", "the request is not valid HTTP/1.1", linger=True)
            return False
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return False
        except httptools.HttpParserError:
            self._refuse(400, "bad_request", "the request is not valid HTTP/1.1", linger=True)
            return False
        return True

    # -- parser callbacks ------------------------------------------------------------------------------
    def on_message_begin(self) -> None:
        """A request starts (pipelined ones included): it waits for its head."""
        super().on_message_begin()
        if self.phase is not Phase.HEAD:
            self._wait_for_head()

    def on_url(self, url: bytes) -> None:
        """Collect the target, refusing one over the request-line limit."""
        super().on_url(url)
        if len(self.url) > self.limits.max_request_line:
            raise _Refused(414, "uri_too_long", f"the request target is over {self.limits.max_request_line} bytes")

    def on_header(self, name: bytes, value: bytes) -> None:
        """Collect a header, refusing one past the header-count limit."""
        self.header_count += 1
        if self.header_count > self.limits.max_headers:
            raise _Refused(431, "headers_too_large", f"more than {self.limits.max_headers} header fields")
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        """The head is in: start the body's deadline (a request without a body completes at once)."""
        self.phase = Phase.BODY
        self._arm(self.limits.body_timeout, "request body")
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        """The request is in: it is being served, so neither a deadline nor the cap may close it."""
        self.phase = Phase.SERVED
        self._disarm()
        self.registry.waiting.pop(self, None)
        super().on_message_complete()

    def on_response_complete(self) -> None:
        """The response is out: an idle kept-alive connection may be closed to admit another."""
        queued = bool(self.pipeline)  # a pipelined request the parent starts now is being served
        super().on_response_complete()
        if not queued and not self.transport.is_closing() and self.phase is Phase.SERVED:
            self.registry.waiting[self] = None


# Descriptors a worker needs besides its connections: graph artefacts, SQLite, the model, logs, the listener.
RESERVED_DESCRIPTORS = 256


def limits_for(max_request_line: int, max_headers: int, max_header_bytes: int, header_timeout: float,
               body_timeout: float, max_connections: int) -> HttpLimits:
    """Return the limits, raising the process's open-file limit so the connection cap can be reached, or
    lowering the cap (with a warning) when the hard limit does not allow it."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = max_connections + RESERVED_DESCRIPTORS
    if soft != resource.RLIM_INFINITY and soft < needed:
        raised = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
        soft = raised
    if soft != resource.RLIM_INFINITY and soft < needed:
        lowered = max(16, soft - RESERVED_DESCRIPTORS)
        log.warning("EGQA_MAX_CONNECTIONS lowered from %d to %d: the process may open only %d files "
                    "(raise `ulimit -n`)", max_connections, lowered, soft)
        max_connections = lowered
    return HttpLimits(max_request_line=max_request_line, max_headers=max_headers, max_header_bytes=max_header_bytes,
                      header_timeout=header_timeout, body_timeout=body_timeout, max_connections=max_connections)
