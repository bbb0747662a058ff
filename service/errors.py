"""Domain errors and request validation turned into HTTP responses, in one place, with one body."""

from __future__ import annotations

import logging

import orjson

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from graph_builder.errors import EgqaError

log = logging.getLogger(__name__)


class ORJSONResponse(JSONResponse):
    """JSON responses rendered by orjson (dates, numpy-free dataclasses, non-ASCII text as UTF-8)."""

    def render(self, content: object) -> bytes:
        """Serialise with orjson."""
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)


def error_response(status: int, code: str, message: str, details: object | None = None) -> ORJSONResponse:
    """Return the one error body: {"error": {"code", "message", "details"}}."""
    return ORJSONResponse({"error": {"code": code, "message": message, "details": details}}, status_code=status)


class PayloadTooLarge(EgqaError):
    """A request is bigger than the service accepts."""

    status_code = 413
    code = "payload_too_large"


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that give every failure the same body and a 4xx where the client can fix it."""

    @app.exception_handler(EgqaError)
    async def _domain(_: Request, exc: EgqaError) -> ORJSONResponse:
        if exc.status_code >= 500:
            log.error("%s: %s", exc.code, exc)
        return error_response(exc.status_code, exc.code, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> ORJSONResponse:
        problems = [{"where": ".".join(str(p) for p in e.get("loc", ())), "problem": e.get("msg", "")}
                    for e in exc.errors()]
        message = "; ".join(f"{p['where']}: {p['problem']}" for p in problems[:5]) or "invalid request"
        return error_response(422, "invalid_request", message, problems)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> ORJSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error_response(exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> ORJSONResponse:
        log.exception("unexpected error")
        return error_response(500, "internal_error", f"unexpected {type(exc).__name__}; see the service log")
