"""The container stage's timings, printed after the test run (the stage's commands and how long each took)."""

from __future__ import annotations

import pytest

# (step, command, seconds), appended by tests/deploy/test_containers.py as the stage runs.
TIMINGS: list[tuple[str, str, float]] = []
# What the stage measured besides time (image sizes, the query's answer), one line each.
FACTS: list[str] = []


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print each container-stage step with its command and wall time, then what else it measured."""
    if not TIMINGS:
        return
    terminalreporter.section("container stage timings")
    for step, command, seconds in TIMINGS:
        terminalreporter.write_line(f"{seconds:8.1f} s  {step:<34} {command}")
    terminalreporter.write_line(f"{sum(s for _, _, s in TIMINGS):8.1f} s  total")
    for fact in FACTS:
        terminalreporter.write_line(fact)
