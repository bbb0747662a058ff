"""Domain errors and request validation turned into HTTP responses, in one place, with one body."""

from __future__ import annotations

import logging
import re

import orjson

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from graph_builder.errors import (ArtefactError, EgqaError, InputError, ModelMissingError, NotFoundError,
                                  StoreError)

log = logging.getLogger(__name__)
_UNION_BRANCH = re.compile(r"^(none|[a-z]+-[a-z-]+(\[.*\])?)$")


class ORJSONResponse(JSONResponse):
    """JSON responses rendered by orjson (dates, numpy-free dataclasses, non-ASCII text as UTF-8)."""

    def render(self, content: object) -> bytes:
        """Serialise with orjson."""
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)


def error_body(code: str, message: str, details: object | None = None) -> dict[str, object]:
    """Return the one error body: {"error": {"code", "message", "details"}}."""
    return {"error": {"code": code, "message": message, "details": details}}


def error_bytes(code: str, message: str) -> bytes:
    """The error body as JSON bytes, for answers written below the ASGI app (service.protocol)."""
    return orjson.dumps(error_body(code, message))


def error_response(status: int, code: str, message: str, details: object | None = None) -> ORJSONResponse:
    """Return a response with the one error body."""
    return ORJSONResponse(error_body(code, message, details), status_code=status)


class PayloadTooLarge(EgqaError):
    """A request is bigger than the service accepts."""

    code = "payload_too_large"


class InvalidBody(EgqaError):
    """A request body that is not UTF-8 JSON the API can read."""

    code = "invalid_json"


class UnsupportedMediaType(EgqaError):
    """A request body sent with a content type other than JSON."""

    code = "unsupported_media_type"


class ServiceNotReady(EgqaError):
    """The graphs or the evidence store failed to open, so data routes cannot answer."""

    code = "not_ready"


class QueueFull(EgqaError):
    """The ingestion queue holds as many articles as it may: the client should retry after `retry_after` s."""

    code = "queue_full"

    def __init__(self, message: str, retry_after: int = 5) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.headers = {"Retry-After": str(retry_after)}


class IngestionUnavailable(EgqaError):
    """The service cannot take articles (its ingestion queue failed to open)."""

    code = "ingestion_unavailable"


class ServiceUnreachable(EgqaError):
    """`egqa ingest` got no usable answer from the service it feeds."""

    code = "service_unreachable"


class GraphSetRefused(EgqaError):
    """A graph set offered for a reload failed validation; the loaded set stays live."""

    code = "graph_set_refused"


# Each kind of error and the status it answers with; a kind not listed takes its nearest listed base's.
HTTP_STATUS: dict[type[EgqaError], int] = {
    EgqaError: 400, InputError: 400, NotFoundError: 404, PayloadTooLarge: 413, UnsupportedMediaType: 415,
    InvalidBody: 422, ArtefactError: 500, ModelMissingError: 503, StoreError: 503, ServiceNotReady: 503,
    QueueFull: 429, IngestionUnavailable: 503, GraphSetRefused: 409,
}


def status_of(exc: EgqaError) -> int:
    """The HTTP status of an error: that of its class, else of its nearest base in HTTP_STATUS."""
    return next(HTTP_STATUS[k] for k in type(exc).__mro__ if k in HTTP_STATUS)


# What a client is told about server-side failures: the details (paths, addresses) go to the log only.
PUBLIC_MESSAGES: dict[str, str] = {
    "store_unavailable": "the evidence store did not answer in time or is unreachable; retry shortly",
    "store_corrupted": "the evidence store is corrupted: its data cannot be read, and retrying will not help; "
                       "see the service log (rebuild it with `egqa index`)",
    "model_missing": "a language resource the service needs is not installed; see the service log",
    "artefact_error": "a graph artefact could not be read; see the service log",
}


def public_message(exc: EgqaError) -> str:
    """Return what the client may read about `exc`: its message for 4xx, a path-free summary for 5xx."""
    if status_of(exc) < 500 or isinstance(exc, ServiceNotReady | IngestionUnavailable):
        return str(exc)
    return PUBLIC_MESSAGES.get(exc.code, "the service failed to answer; see the service log")


def _record(body: object, loc: tuple[object, ...]) -> dict[str, object]:
    """The id of the body's list item a validation error is in (`articles.3` -> {"record": "its id"}), if it has one."""
    found: dict[str, object] = {}
    node = body
    for part in loc[1:] if loc[:1] == ("body",) else ():
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            if isinstance(node, dict) and isinstance(node.get("id"), str | int) and not isinstance(node["id"], bool):
                found = {"record": str(node["id"])}
        elif isinstance(node, dict) and isinstance(part, str):
            node = node.get(part)
        else:
            break
    return found


def _named(problem: dict[str, object]) -> str:
    return f" (id {problem['record']!r})" if "record" in problem else ""


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that give every failure the same body and a 4xx where the client can fix it."""

    @app.exception_handler(EgqaError)
    async def _domain(_: Request, exc: EgqaError) -> ORJSONResponse:
        status = status_of(exc)
        if status >= 500:
            log.error("%s: %s", exc.code, exc)
        response = error_response(status, exc.code, public_message(exc))
        response.headers.update(getattr(exc, "headers", {}))  # 429 carries `Retry-After`
        return response

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> ORJSONResponse:
        # An optional field is a union with None: its "should be None" branch is noise, and the
        # union's branch names (constrained-int, ...) are no place a client can find in its body.
        body = getattr(request, "_json", None)
        problems = [{"where": ".".join(str(p) for p in e.get("loc", ()) if not _UNION_BRANCH.match(str(p))),
                     "problem": e.get("msg", "").removeprefix("Value error, "),
                     **_record(body, e.get("loc", ()))}
                    for e in exc.errors() if e.get("type") != "none_required"]
        message = "; ".join(f"{p['where']}{_named(p)}: {p['problem']}" for p in problems[:5]) or "invalid request"
        return error_response(422, "invalid_request", message, problems)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> ORJSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        response = error_response(exc.status_code, code, str(exc.detail))
        response.headers.update(exc.headers or {})  # 405 carries `Allow`
        return response
