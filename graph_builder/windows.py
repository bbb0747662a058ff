"""Disjoint context windows of `window_days` days, counted from a fixed epoch.

Window `w` covers the dates `EPOCH + w*window_days ... EPOCH + (w+1)*window_days - 1`, so a window id
means the same dates in every corpus built with the same `window_days`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
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


Days = tuple[dt.date, dt.date]  # the first and last date (inclusive) whose news a question reads


def days_around(date: dt.date, window_days: int = DEFAULT_WINDOW_DAYS) -> Days | None:
    """The `window_days` days centred on `date` (3: the day before, the day, the day after), wherever the
    disjoint windows fall: a question about the 12th finds the 11th's news, which the window of the 12th
    (12th .. 14th) does not hold. None for one-day windows, where the window is the day."""
    _check_days(window_days)
    if window_days == 1:
        return None
    try:
        first = date - dt.timedelta(days=(window_days - 1) // 2)
        return first, first + dt.timedelta(days=window_days - 1)
    except OverflowError:  # at the calendar's ends (year 1 or 9999): the window of the date
        return None


def days_of_window(date: dt.date, window_days: int = DEFAULT_WINDOW_DAYS) -> Days | None:
    """None: a question reads the disjoint window holding `date`, as a benchmark entry does."""
    _check_days(window_days)
    return None


# How a question given by `date` chooses its days (`EGQA_DATE_DAYS`); a question given by `window` reads that window.
DATE_DAYS: dict[str, Callable[[dt.date, int], Days | None]] = {"centred": days_around, "window": days_of_window}
DEFAULT_DATE_DAYS = "centred"


def windows_of(days: Days, window_days: int = DEFAULT_WINDOW_DAYS) -> list[int]:
    """The ids of the windows that hold any of `days`, in order."""
    return list(range(window_of(days[0], window_days), window_of(days[1], window_days) + 1))


def parse_date(value: str) -> dt.date:
    """Parse an ISO date (`YYYY-MM-DD`, optionally followed by a time) or raise InputError."""
    text = value.strip()
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        raise InputError(f"not a date: {value!r} (expected YYYY-MM-DD)") from None
