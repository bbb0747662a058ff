"""The web page at `/`: one HTML file and its scripts and styles, shipped in the package and served by the API's app.

The page is static: it holds no data and no key, and reads everything from the JSON API with `fetch`. It is
served without the API key (the page itself asks for one when the API answers 401), under a Content Security
Policy that lets it load and call nothing but this host.
"""

from __future__ import annotations

import os
from os import PathLike
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

STATIC_DIR = Path(__file__).resolve().parent / "static"
PAGE_PATH = "/"
ASSETS_PREFIX = "/static/"
# Everything from this host only: no CDN, no request leaving it; `data:` for the empty favicon.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def is_page_path(path: str) -> bool:
    """True for the page and its assets, which are served without the API key (they hold no data)."""
    return path == PAGE_PATH or path.startswith(ASSETS_PREFIX)


class _Assets(StaticFiles):
    """Static files with the page's security headers."""

    def file_response(self, full_path: PathLike[str] | str, stat_result: os.stat_result, scope: Scope,
                      status_code: int = 200) -> Response:
        """Serve a file as StaticFiles does, adding PAGE_HEADERS."""
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers.update(PAGE_HEADERS)
        return response


def mount_page(app: FastAPI) -> None:
    """Serve the page at `/` and its assets under `/static/` (left out of the OpenAPI document)."""
    app.mount(ASSETS_PREFIX.rstrip("/"), _Assets(directory=STATIC_DIR), name="static")

    @app.get(PAGE_PATH, include_in_schema=False)
    def page() -> FileResponse:
        """The page: ask, see why, walk the graphs."""
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)
