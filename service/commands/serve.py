"""`egqa serve`: run the REST service with uvicorn, settings from EGQA_* variables and options."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from graph_builder.errors import InputError
from service.settings import load_settings


def serve(
    graphs: Annotated[Path | None, typer.Option(help="Graph artefacts folder (EGQA_GRAPHS_DIR).")] = None,
    store: Annotated[str | None, typer.Option(help="Evidence store URL (EGQA_STORE_URL).")] = None,
    host: Annotated[str | None, typer.Option(help="Bind address (EGQA_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (EGQA_PORT).")] = None,
    extra_graphs: Annotated[str | None, typer.Option(help="More graph sets as scorers, name=folder[,name=folder] "
                                                          "(EGQA_EXTRA_GRAPHS, JSON), e.g. berant=out/berant.")] = None,
) -> None:
    """Serve the egqa REST API (OpenAPI docs at /docs)."""
    import uvicorn

    extra = parse_extra_graphs(extra_graphs) if extra_graphs is not None else None
    overrides = {k: v for k, v in {"graphs_dir": graphs, "store_url": store, "host": host, "port": port,
                                   "extra_graphs": extra}.items() if v is not None}
    settings = load_settings(**overrides)
    if settings.workers > 1:
        # Each worker process builds its own app from the environment, so overrides travel as EGQA_* vars.
        for key, value in overrides.items():
            text = json.dumps({k: str(v) for k, v in value.items()}) if isinstance(value, dict) else str(value)
            os.environ[f"EGQA_{key.upper()}"] = text
        uvicorn.run("service.app:app_from_env", factory=True, host=settings.host, port=settings.port,
                    workers=settings.workers, log_level=settings.log_level)
        return
    from service.app import create_app

    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level=settings.log_level)


def parse_extra_graphs(text: str) -> dict[str, Path]:
    """Read `name=folder,name=folder` into a mapping, refusing empty or repeated names."""
    out: dict[str, Path] = {}
    for item in (x.strip() for x in text.split(",") if x.strip()):
        name, sep, folder = item.partition("=")
        if not sep or not name.strip() or not folder.strip():
            raise InputError(f"--extra-graphs wants name=folder items, got {item!r}")
        if name.strip() in out:
            raise InputError(f"--extra-graphs names {name.strip()!r} twice")
        out[name.strip()] = Path(folder.strip())
    return out


def register(app: typer.Typer) -> None:
    """Add the serve command to the CLI."""
    app.command()(serve)
