"""`egqa serve`: run the REST service with uvicorn, settings from EGQA_* variables and options."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from graph_builder.errors import InputError
from service.settings import Settings, load_settings


def serve(
    graphs: Annotated[Path | None, typer.Option(help="Graph artefacts folder (EGQA_GRAPHS_DIR).")] = None,
    store: Annotated[str | None, typer.Option(help="Evidence store URL (EGQA_STORE_URL).")] = None,
    host: Annotated[str | None, typer.Option(help="Bind address (EGQA_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (EGQA_PORT).")] = None,
    extra_graphs: Annotated[str | None, typer.Option(help="More graph sets as scorers, name=folder[,name=folder] "
                                                          "(EGQA_EXTRA_GRAPHS, JSON), e.g. berant=out/berant.")] = None,
) -> None:
    """Serve the egqa REST API (OpenAPI docs at /docs)."""
    extra = parse_extra_graphs(extra_graphs) if extra_graphs is not None else None
    overrides = {k: v for k, v in {"graphs_dir": graphs, "store_url": store, "host": host, "port": port,
                                   "extra_graphs": extra}.items() if v is not None}
    settings = load_settings(**overrides)
    run_server(settings, overrides)


def run_server(settings: Settings, overrides: dict[str, Any]) -> None:
    """Run uvicorn with the service's HTTP limits (service.protocol), in one process or `settings.workers`."""
    from uvicorn import Server

    from service.protocol import ServingConfig
    from service.supervise import serving_options

    if settings.workers > 1:
        # Each worker process builds its own app from the environment, so overrides travel as EGQA_* vars; the
        # supervisor runs in a fresh interpreter without this command line's imports (service/supervise.py).
        for key, value in overrides.items():
            text = json.dumps({k: str(v) for k, v in value.items()}) if isinstance(value, dict) else str(value)
            os.environ[f"EGQA_{key.upper()}"] = text
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, [sys.executable, "-m", "service.supervise"])
    from service.app import create_app

    server = Server(ServingConfig(create_app(settings), **serving_options(settings)))
    server.run()
    if not server.started:
        raise SystemExit(3)  # uvicorn's start-up failure code: the port is taken or the lifespan failed


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
