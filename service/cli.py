"""The `egqa` command line: one thin command per pipeline stage (also `python -m service`)."""

from __future__ import annotations

import logging
import sys

import typer

from graph_builder.errors import EgqaError

app = typer.Typer(
    name="egqa",
    help="Entailment-graph question answering over dated news.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback(invoke_without_command=True)
def _root(
    context: typer.Context,
    version: bool = typer.Option(False, "--version", is_eager=True, help="Print egqa's version and exit."),
) -> None:
    """Entailment-graph question answering over dated news."""
    if version:
        from graph_builder import __version__

        typer.echo(f"egqa {__version__}")
        raise typer.Exit()
    if context.invoked_subcommand is None:
        typer.echo(context.get_help())
        raise typer.Exit(2)


def _register_commands() -> None:
    # Imported here so `egqa --help` lists every group; each module registers its own commands.
    from service.commands import benchmark, demo, evaluate, extract, graph, index, ingest, serve

    for module in (demo, extract, graph, index, ingest, serve, benchmark, evaluate):
        module.register(app)


_register_commands()


def main() -> None:
    """Run the CLI, turning egqa's domain errors into a one-line message and exit code 2."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per HTTP request drowns the progress bars
    logging.getLogger("elastic_transport").setLevel(logging.WARNING)  # likewise one line per Elasticsearch call
    try:
        app()
    except EgqaError as exc:
        typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
        sys.exit(2)


if __name__ == "__main__":  # `python -m service.cli` as well as `python -m service`
    main()
