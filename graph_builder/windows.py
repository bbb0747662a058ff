"""Disjoint context windows of `window_days` days, counted from a fixed epoch.

Window `w` covers the dates `EPOCH + w*window_days ... EPOCH + (w+1)*window_days - 1`, so a window id
means the same dates in every corpus built with the same `window_days`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from graph_builder.errors import InputError

EPOCH = dt.date(1970, 1, 1)
DEFAULT_WINDOW_DAYS = 3


@dataclass(frozen=True)
class Window:
    """A window id with the first and last date it covers (both inclusive)."""

    id: int
    start: dt.date
    end: dt.date


def _check_days(window_days: int) -> None:
    if window_days < 1:
        raise InputError(f"window_days must be a positive number of days, got {window_days}")


def window_of(date: dt.date, window_days: int = DEFAULT_WINDOW_DAYS) -> int:
    """Return the id of the window that contains `date`."""
    _check_days(window_days)
    return (date - EPOCH).days // window_days


def window_span(window_id: int, window_days: int = DEFAULT_WINDOW_DAYS) -> Window:
    """Return the window `window_id` with the dates it covers."""
    _check_days(window_days)
    start = EPOCH + dt.timedelta(days=window_id * window_days)
    return Window(window_id, start, start + dt.timedelta(days=window_days - 1))


def parse_date(value: str) -> dt.date:
    """Parse an ISO date (`YYYY-MM-DD`, optionally followed by a time) or raise InputError."""
    text = value.strip()
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        raise InputError(f"not a date: {value!r} (expected YYYY-MM-DD)") from None
