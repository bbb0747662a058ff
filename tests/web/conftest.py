"""The web page's fixtures: a small news build written for these tests, live services, and a real Chromium.

The news (tests/data/web/news.jsonl) is made up: fictional companies buy, acquire and take over one another,
fictional ministers visit and travel to cities, over three 3-day windows of March 2021. `fixture_build`
(tests/conftest.py) extracts it, builds it into graphs and indexes it by the library's own functions, once for
the session and for the service's tests too, so the page meets real artefacts of a real build.

The browser: Debian's Chromium driven by Playwright for Python, installed by `scripts/browser.sh setup` (run
here when something is missing, as the container stage runs `scripts/containers.sh setup`). Where it cannot
be installed the browser tests skip saying why; with CI=true they fail instead.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from service.app import create_app
from service.settings import Settings
from tests.conftest import Build
from tests.service.live import live_server

REPO = Path(__file__).resolve().parents[2]
AXE = Path(__file__).resolve().parent / "vendor" / "axe-4.14.1.min.js"
SCRIPT = REPO / "scripts" / "browser.sh"
SCREENSHOTS = REPO / "out" / "screenshots"
KEY = "web-page-test-key-0123456789"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
# A question the fixture answers through an entailment edge: the window holds "acquired" and "took over".
QUESTION = "Norvale Mining bought Castellan Bank."
DATE = "2021-03-04"
REPORT: dict[str, str] = {}  # what the browser tests measured, printed at the end of the run (not asserted)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the web page's measurements: time from Enter to answer, page weight, the accessibility check."""
    if REPORT:
        terminalreporter.write_sep("-", "web page, measured in Chromium")
        for what, value in REPORT.items():
            terminalreporter.write_line(f"{what}: {value}")


@dataclass(frozen=True)
class WebBuild:
    """The fixture's graphs and evidence store."""

    graphs: Path
    store_url: str


@pytest.fixture(scope="session")
def web_build(fixture_build: Build) -> WebBuild:
    """The made-up news, extracted, built into graphs and indexed in SQLite once for the session (tests/conftest.py)."""
    return WebBuild(fixture_build.graphs, fixture_build.sqlite_url)


def web_settings(build: WebBuild, **overrides: Any) -> Settings:
    """Settings for a service on the fixture; no sentence-embedding model (a fast, deterministic start)."""
    return Settings(graphs_dir=build.graphs, store_url=build.store_url, lm=False, **overrides)


@pytest.fixture(scope="session")
def web_url(web_build: WebBuild) -> Iterator[str]:
    """The service on the fixture, served by uvicorn on a loopback port for the whole session."""
    with live_server(create_app(web_settings(web_build))) as (host, port):
        yield f"http://{host}:{port}"


# -- the browser ----------------------------------------------------------------------------------------------
def _unavailable(reason: str) -> None:
    """Fail in CI (the browser stage must run there), skip elsewhere."""
    if IN_CI:
        pytest.fail(f"CI=true but the browser tests cannot run: {reason}", pytrace=False)
    pytest.skip(f"{reason}; install with: scripts/browser.sh setup (as root)")


def _chromium() -> str | None:
    """The Chromium binary: $EGQA_CHROMIUM, else Debian's (`scripts/browser.sh path`)."""
    given = os.environ.get("EGQA_CHROMIUM")
    if given:
        return given if os.access(given, os.X_OK) else None
    found = subprocess.run(["bash", str(SCRIPT), "path"], capture_output=True, text=True, check=False)
    if found.returncode != 0:
        return None
    return found.stdout.strip() or None


def _playwright_importable() -> bool:
    importlib.invalidate_caches()  # packages pip just installed become importable in this process
    try:
        importlib.import_module("playwright.sync_api")
    except ImportError:
        return False
    return True


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's Chromium and Playwright, installed by scripts/browser.sh setup when missing."""
    given = os.environ.get("EGQA_CHROMIUM")
    if given and not os.access(given, os.X_OK):
        _unavailable(f"EGQA_CHROMIUM={given} is not an executable file")
    if _chromium() is None or not _playwright_importable():
        if _chromium() is None and (os.geteuid() != 0 or shutil.which("apt-get") is None):
            _unavailable("no Chromium found, and installing Debian's needs root and apt-get")
        setup = subprocess.run(["bash", str(SCRIPT), "setup"], capture_output=True, text=True, check=False,
                               timeout=900)
        if setup.returncode != 0:
            _unavailable(f"scripts/browser.sh setup failed: {setup.stderr.strip()[-2000:]}")
    path = _chromium()
    if path is None or not _playwright_importable():
        _unavailable("Chromium or Playwright missing after scripts/browser.sh setup")
    return path  # type: ignore[return-value]


@pytest.fixture(scope="session")
def chromium(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the session (Playwright adds --headless, --no-sandbox as root)."""
    from playwright.sync_api import sync_playwright

    home = tmp_path_factory.mktemp("chromium-home")  # Chromium writes $HOME/.config even with a fresh profile
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path, env={**os.environ, "HOME": str(home)})
        yield launched
        launched.close()


@dataclass
class Console:
    """What the browser console and the page's network said while a test ran."""

    errors: list[str] = field(default_factory=list)  # console.error calls and uncaught exceptions
    http_errors: list[str] = field(default_factory=list)  # "STATUS URL" of responses >= 400
    requests: list[str] = field(default_factory=list)

    def assert_clean(self, expected_statuses: tuple[int, ...] = ()) -> None:
        """No error of the page's own; an HTTP error only where the test provoked one (Chromium logs each
        as `Failed to load resource: ... status of NNN`, which is the browser's line, not the page's)."""
        own = [e for e in self.errors if not _network_line(e, expected_statuses)]
        assert own == [], own
        assert all(int(line.split()[0]) in expected_statuses for line in self.http_errors), self.http_errors


def _network_line(text: str, statuses: tuple[int, ...]) -> bool:
    """Chromium's own console line for an HTTP error response with one of `statuses`."""
    return any(text.startswith(f"Failed to load resource: the server responded with a status of {s} ")
               for s in statuses)


@dataclass
class Tab:
    """A page in a fresh browser context, with its console record."""

    page: Any
    console: Console
    base: str

    def open(self, path: str = "/") -> None:
        """Load `path` and wait until the page has read the service (or shown why it could not)."""
        self.page.goto(self.base + path)
        self.page.wait_for_selector("body[data-ready]")

    def shot(self, name: str) -> Path:
        """Save a full-page screenshot under out/screenshots/ (a test artefact, not committed)."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def shot_region(self, name: str, top: str, bottom: str) -> Path:
        """Save the page from element `top` down to element `bottom` (docs/images/web-*.png are two of these)."""
        first, last = self.page.locator(top).bounding_box(), self.page.locator(bottom).bounding_box()
        width = self.page.viewport_size["width"]
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True, clip={
            "x": 0, "y": first["y"] - 10, "width": width, "height": last["y"] + last["height"] - first["y"] + 20})
        return path


def open_tab(browser: Any, base: str, **context: Any) -> Tab:
    """A new context (its own sessionStorage) and page that records console errors, page errors and requests."""
    page = browser.new_context(viewport={"width": 1000, "height": 800}, **context).new_page()
    console = Console()
    page.on("console", lambda m: console.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: console.errors.append(f"uncaught: {exc}"))
    page.on("request", lambda r: console.requests.append(r.url))
    page.on("response", lambda r: console.http_errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    return Tab(page, console, base)


@pytest.fixture
def tab(chromium: Any, web_url: str) -> Iterator[Tab]:
    """A fresh page on the fixture's service; its console must stay clean unless the test says otherwise."""
    opened = open_tab(chromium, web_url)
    yield opened
    opened.page.context.close()
