"""Plain-text tables for terminals and logs, laid out by rich: one look for every table egqa prints."""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.table import Table


def table(columns: Sequence[str], right: Sequence[str] = (), title: str | None = None) -> Table:
    """Return an empty table with these column headers; the columns named in `right` are right-aligned."""
    out = Table(*columns, title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                header_style="", title_style="")
    for column in out.columns:
        if column.header in right:
            column.justify = "right"
    return out


def render(table_: Table, width: int = 160) -> str:
    """Return the table as plain text (no colour, no trailing spaces), at most `width` characters wide."""
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None, force_terminal=False, highlight=False,
            emoji=False).print(table_)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())
