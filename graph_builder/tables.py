"""Plain-text tables for terminals and logs, laid out by rich: one look for every table egqa prints."""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.table import Column, Table
from rich.text import Text


def table(columns: Sequence[str], right: Iterable[str] = (), rows: Iterable[Sequence[object]] = ()) -> Table:
    """Return a table with these column headers (those named in `right` right-aligned) and these rows."""
    aligned = set(right)
    out = Table(*(Column(Text(name), justify="right" if name in aligned else "left", no_wrap=True)
                  for name in columns), box=None, pad_edge=False, show_edge=False, header_style="")
    for row in rows:
        add_row(out, *row)
    return out


def add_row(table_: Table, *cells: object) -> None:
    """Add a row of cells shown as they are (brackets in them are text, never rich markup)."""
    table_.add_row(*(Text(str(cell)) for cell in cells))


def render(table_: Table, width: int = 400) -> str:
    """Return the table as plain text (no colour, no trailing spaces)."""
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None, force_terminal=False, highlight=False,
            emoji=False).print(table_)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())
