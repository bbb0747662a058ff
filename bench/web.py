"""The web page on a demo build, in Debian's Chromium: time from pressing Enter to the answer on screen.

Starts `egqa serve` on the build (as the demo does), opens the page headless, asks the question `--repeat` times
by typing it and pressing Enter, and prints the first time (a fresh page) and the median and slowest of the
rest, measured two ways: by this script (Enter pressed -> verdict seen, Playwright's polling included) and by
the page's own clock (form submitted -> answer drawn). Needs `scripts/browser.sh setup`.
Usage: python bench/web.py [--build out/demo] [--question "south korea ran surplus."] [--date 1987-06-01]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/service.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from service.demo import running_service  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def chromium_path() -> str:
    """The Chromium binary scripts/browser.sh finds."""
    found = subprocess.run(["bash", str(REPO / "scripts" / "browser.sh"), "path"], capture_output=True, text=True,
                           check=True)
    return found.stdout.strip()


def measure(url: str, question: str, date: str, repeat: int) -> list[tuple[float, float]]:
    """(script ms, page ms) for each of `repeat` questions asked on one page."""
    from playwright.sync_api import sync_playwright

    times: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as home, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), env={**os.environ, "HOME": home})
        page = browser.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"{url}/")
        page.wait_for_selector("body[data-ready=yes]")
        page.fill("#q", question)
        page.fill("#date", date)
        for _ in range(repeat):
            page.focus("#q")
            page.evaluate("() => delete document.getElementById('answer').dataset.ms")
            started = time.perf_counter()
            page.keyboard.press("Enter")
            page.wait_for_selector("#answer[data-ms] #verdict")
            times.append(((time.perf_counter() - started) * 1000, float(page.get_attribute("#answer", "data-ms") or 0)))
        print(f"answer: {page.inner_text('#verdict')}, {page.inner_text('#score-line')}; "
              f"{page.locator('#evidence > li').count()} evidence items shown; console errors: {len(errors)}")
        browser.close()
    return times


def main() -> None:
    """Parse the arguments, serve the build, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, default=REPO / "out" / "demo")
    parser.add_argument("--question", default="south korea ran surplus.")
    parser.add_argument("--date", default="1987-06-01")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, running_service(
            args.build / "graphs", f"sqlite:///{(args.build / 'evidence.db').resolve()}", Path(tmp) / "service.log") as url:
        times = measure(url, args.question, args.date, args.repeat)
    first, rest = times[0], times[1:]
    print(f"{args.question!r} on {args.date}, build {args.build}")
    print(f"first answer: {first[0]:.0f} ms (page's clock {first[1]:.0f} ms)")
    if rest:
        script, own = [t[0] for t in rest], [t[1] for t in rest]
        print(f"next {len(rest)}: median {statistics.median(script):.0f} ms, slowest {max(script):.0f} ms "
              f"(page's clock: median {statistics.median(own):.0f} ms, slowest {max(own):.0f} ms)")


if __name__ == "__main__":
    main()
