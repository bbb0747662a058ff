"""`egqa extract` killed with kill -9 must not leave its pool workers running (they hold ~200 MB each)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _children(pid: int) -> list[int]:
    """Return the ids of the live child processes of `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """Return True while `pid` exists and is not a zombie."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_workers_exit_when_extract_is_killed(reuters_dir: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    parent = subprocess.Popen([sys.executable, "-m", "service", "extract", str(reuters_dir / "reut2-000.sgm"),
                               "--out", str(tmp_path / "triples"), "--workers", "2", "--shard-size", "50"],
                              cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(workers) < 2 and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.2)
            workers = _children(parent.pid)
        assert len(workers) == 2, "the extraction never started its two pool workers"
        time.sleep(1.0)  # let the workers get busy parsing
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        survivors = [w for w in workers if _alive(w)]
        assert survivors == [], f"pool workers {survivors} outlived their killed parent"
    finally:
        for pid in [parent.pid, *workers]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
