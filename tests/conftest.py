"""Shared fixtures: where the real third-party data lives (../shared/data beside the repository)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
REUTERS = SHARED_DATA / "reuters21578"


@pytest.fixture(scope="session")
def reuters_dir() -> Path:
    """The Reuters-21578 folder; tests that need it skip with a clear message when it is absent."""
    if not REUTERS.is_dir():
        pytest.skip(f"real data absent: {REUTERS} not found (place ../shared/data beside the repository)")
    return REUTERS
