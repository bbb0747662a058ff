"""Request guards in front of the routes: API key, body size, JSON decoding, and a last-resort 500.

`Guard` is a plain ASGI middleware, so it answers 401 and 413 before any body is read or parsed, and
turns an unexpected exception into a complete 500 response instead of re-raising it (a re-raised
error makes the server drop the keep-alive connection, failing the client's next request too).
`JSONBodyRoute` decodes request bodies with orjson in a worker thread, so a large body never blocks
the event loop, and says exactly what is wrong with a body it cannot read.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from fastapi.concurrency import run_in_threadpool
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.errors import InvalidBody, PayloadTooLarge, UnsupportedMediaType, error_response
from service.web import is_page_path

log = logging.getLogger(__name__)

OPEN_PATHS = frozenset({"/health", "/ready"})
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_INLINE_DECODE_BYTES = 64 * 1024


class Guard:
    """ASGI middleware: optional API key, request body limit, and no exception escaping to the server."""

    def __init__(self, app: ASGIApp, *, max_body_bytes: int, api_key: str | None = None) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self._key = api_key.encode() if api_key else None

    def _authorised(self, scope: Scope) -> bool:
        """Return True when no key is configured or the request presents it (constant-time compare)."""
        if self._key is None or scope["path"] in OPEN_PATHS or is_page_path(scope["path"]):
            return True  # the page holds no data: it asks for the key and sends it with each API call
        headers = dict(scope["headers"])
        given = headers.get(b"x-api-key", b"")
        scheme, _, token = headers.get(b"authorization", b"").partition(b" ")
        if scheme.lower() == b"bearer":
            given = token.strip()
        return hmac.compare_digest(given, self._key)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not self._authorised(scope):
            response = error_response(401, "unauthorized", "missing or wrong API key: send it as "
                                      "`Authorization: Bearer KEY` or `X-API-Key: KEY`")
            response.headers["WWW-Authenticate"] = "Bearer"
            await response(scope, receive, send)
            return
        if scope["method"] in _BODY_METHODS:
            body = await self._read_body(scope, receive, send)
            if body is None:
                return
            receive = _replay(body, receive)
        await self._run(scope, receive, send)

    async def _read_body(self, scope: Scope, receive: Receive, send: Send) -> bytes | None:
        """Return the whole body, or answer 413 and return None as soon as it is known to be too big."""
        declared = dict(scope["headers"]).get(b"content-length")
        too_big = error_response(413, "payload_too_large", f"request body over {self.max_body_bytes} bytes: "
                                 "send smaller batches")
        too_big.headers["Connection"] = "close"  # the unread rest of the body must not be taken for a request
        if declared is not None:
            if not declared.isdigit():
                await error_response(400, "bad_request", "Content-Length is not a number")(scope, receive, send)
                return None
            if int(declared) > self.max_body_bytes:
                await too_big(scope, receive, send)
                return None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                await too_big(scope, receive, send)
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _run(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app; an exception it lets through becomes a 500 with the standard body."""
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:  # the last line of defence: log it, answer, keep the connection usable
            log.exception("unexpected error on %s %s", scope["method"], scope["path"])
            if not started:
                await error_response(500, "internal_error", f"unexpected {type(exc).__name__}; "
                                     "see the service log")(scope, receive, send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """Return a `receive` that yields the already read `body` once, then passes on to the real one."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # e.g. the client's disconnect

    return replay


def decode_json(body: bytes) -> Any:
    """Decode a UTF-8 JSON body, or raise InvalidBody saying what to fix."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidBody(f"the body is not valid UTF-8 (bad byte at offset {exc.start}): "
                          "send JSON encoded as UTF-8") from None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc):
            raise InvalidBody("the JSON body is nested too deeply (over 1024 levels); "
                              "request bodies nest at most 4 levels") from None
        if body[exc.pos:exc.pos + 3] in (b"NaN", b"Inf", b"-In") or "infinity" in str(exc):
            raise InvalidBody(f"NaN, Infinity and numbers beyond a double's range are not accepted (at offset "
                              f"{exc.pos}): send a finite number") from None
        raise InvalidBody(f"the body is not valid JSON: {exc}") from None


def _is_json(content_type: str) -> bool:
    """Return True for application/json and application/*+json (parameters such as charset allowed)."""
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _check_batch(payload: Any, max_batch: int, max_articles: int) -> None:
    """Refuse an oversized batch before its items are validated one by one (on the event loop)."""
    queries = payload.get("queries") if isinstance(payload, dict) else None
    if isinstance(queries, list) and len(queries) > max_batch:
        raise PayloadTooLarge(f"batch of {len(queries)} propositions; the limit is {max_batch}: "
                              "split it into smaller batches")
    articles = payload.get("articles") if isinstance(payload, dict) else None
    if isinstance(articles, list) and len(articles) > max_articles:
        raise PayloadTooLarge(f"{len(articles)} articles in one request; the limit is {max_articles}: "
                              "send smaller batches")


class JSONBodyRoute(APIRoute):
    """A route whose JSON body is decoded once (a big one off the event loop), with clear errors for unreadable ones."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """Wrap FastAPI's handler: check the content type and decode the body before validation."""
        handler = super().get_route_handler()
        if self.body_field is None:
            return handler

        async def route(request: Request) -> Response:
            body = await request.body()
            if body:
                content_type = request.headers.get("content-type", "")
                if not _is_json(content_type):
                    sent = f"not {content_type!r}" if content_type else "the request has none"
                    raise UnsupportedMediaType(f"the body must be JSON sent with `Content-Type: application/json` "
                                               f"({sent})")
                # Small bodies decode in microseconds; only big ones are worth a worker thread.
                payload = decode_json(body) if len(body) < _INLINE_DECODE_BYTES else await run_in_threadpool(
                    decode_json, body)
                settings = request.app.state.settings
                _check_batch(payload, settings.max_batch, settings.ingest_max_articles)
                # Starlette's Request.json() returns this cached value, so FastAPI does not parse again.
                request._json = payload
            return await handler(request)

        return route
