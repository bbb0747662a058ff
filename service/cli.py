"""The `egqa` command line: one thin command per pipeline stage (also `python -m service`)."""

from __future__ import annotations

import logging
import re
from typing import Any

import typer
from pydantic import ValidationError
from typer.core import TyperArgument, TyperGroup, TyperOption

from graph_builder.errors import EgqaError

# Commands in the order `_register_commands` adds them: the pipeline's (Typer would list groups last).
_ORDER: list[str] = []


class _PipelineGroup(TyperGroup):
    """The root command: lists its commands in pipeline order and turns egqa's errors into one line and exit 2."""

    def list_commands(self, ctx: Any) -> list[str]:
        """Every command, in the order the pipeline runs them."""
        names = list(super().list_commands(ctx))
        return sorted(names, key=lambda name: _ORDER.index(name) if name in _ORDER else len(_ORDER))

    def invoke(self, ctx: Any) -> Any:
        """Run the command; a domain error or an invalid value is one line on stderr and exit code 2."""
        try:
            return super().invoke(ctx)
        except EgqaError as exc:
            message = str(exc)
        except ValidationError as exc:
            message = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}"
                                for e in exc.errors(include_input=False, include_url=False))
        typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
        raise typer.Exit(2)


app = typer.Typer(
    name="egqa",
    cls=_PipelineGroup,
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
    # Imported here so `egqa --help` lists every group; each module registers its own commands, in pipeline order.
    from service.commands import benchmark, demo, evaluate, extract, graph, index, ingest, serve

    for module in (demo, extract, graph, index, ingest, serve, benchmark, evaluate):
        module.register(app)
        added = [info.name or info.callback.__name__ for info in app.registered_commands]  # type: ignore[union-attr]
        added += [info.name for info in app.registered_groups if info.name]
        _ORDER.extend(name for name in added if name not in _ORDER)


_register_commands()

# Help names a value's kind as a user reads it, not as Python spells it (newer Typer prints `<list[Path]>`,
# `<str>`, `<int range>`); Typer has no setting for it, so its one formatting method is wrapped.
_KINDS = {"str": "text", "int": "integer", "float": "number", "int range": "integer", "float range": "number",
          "Path": "path", "PosixPath": "path"}


def _value_kind(label: str) -> str:
    inner = label[1:-1]
    if (listed := re.fullmatch(r"list\[(.+)\]", inner)) is not None:
        return f"<{_KINDS.get(listed.group(1), listed.group(1))}>..."
    return f"<{_KINDS.get(inner, inner)}>"


for _param in (TyperArgument, TyperOption):
    _shown = getattr(_param, "display_type", None)
    if _shown is not None:  # Typer versions that print Python types
        def _display_type(self: Any, ctx: Any, _shown: Any = _shown) -> str:
            return _value_kind(_shown(self, ctx))

        _param.display_type = _display_type  # type: ignore[method-assign]


def main() -> None:
    """Run the CLI (domain errors become a one-line message and exit code 2)."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per HTTP request drowns the progress bars
    logging.getLogger("elastic_transport").setLevel(logging.WARNING)  # likewise one line per Elasticsearch call
    app()


if __name__ == "__main__":  # `python -m service.cli` as well as `python -m service`
    main()
