"""`egqa serve`: run the REST service with uvicorn, settings from EGQA_* variables and options."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

from graph_builder.errors import InputError
from service.settings import Settings


def serve(
    graphs: Annotated[Path | None, typer.Option(help="Graph artefacts folder (EGQA_GRAPHS_DIR).")] = None,
    store: Annotated[str | None, typer.Option(help="Evidence store URL (EGQA_STORE_URL).")] = None,
    host: Annotated[str | None, typer.Option(help="Bind address (EGQA_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (EGQA_PORT).")] = None,
) -> None:
    """Serve the egqa REST API (OpenAPI docs at /docs)."""
    import uvicorn

    overrides = {k: v for k, v in {"graphs_dir": graphs, "store_url": store, "host": host, "port": port}.items()
                 if v is not None}
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        raise InputError(f"invalid settings: {exc}") from exc
    if settings.workers > 1:
        # Each worker process builds its own app from the environment, so overrides travel as EGQA_* vars.
        for key, value in overrides.items():
            os.environ[f"EGQA_{key.upper()}"] = str(value)
        uvicorn.run("service.app:app_from_env", factory=True, host=settings.host, port=settings.port,
                    workers=settings.workers, log_level=settings.log_level)
        return
    from service.app import create_app

    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level=settings.log_level)


def register(app: typer.Typer) -> None:
    """Add the serve command to the CLI."""
    app.command()(serve)
