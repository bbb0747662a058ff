"""What the benchmarks and tests read of a running process (through psutil): memory, CPU time, open files."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import psutil

_MB = 2**20


def rss_mb(pid: int) -> float:
    """Return the resident set size of process `pid` in MB."""
    return psutil.Process(pid).memory_info().rss / _MB


def cpu_seconds(pid: int) -> float:
    """Return the user plus system CPU seconds process `pid` has used so far."""
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def rss_breakdown(pid: int, places: Mapping[str, Path]) -> dict[str, float]:
    """Return the resident memory of process `pid` in MB by what it holds: anonymous (Python objects, caches,
    SQLite page caches), each of `places` (files mapped from under that folder, e.g. graph artefacts), shared
    libraries, and other files."""
    out = {"anonymous": 0.0, **{name: 0.0 for name in places}, "libraries": 0.0, "other files": 0.0}
    roots = {name: str(Path(path).resolve()) for name, path in places.items()}
    for mapping in psutil.Process(pid).memory_maps(grouped=True):
        if not mapping.path.startswith("/"):
            where = "anonymous"  # heap, stack, anonymous maps and [vdso]-like pseudo files
        else:
            where = next((name for name, root in roots.items() if mapping.path.startswith(root)),
                         "libraries" if ".so" in mapping.path else "other files")
        out[where] += mapping.rss / _MB
    return out


def open_files(pid: int, path: Path) -> int:
    """Return how many descriptors of process `pid` point at `path` (one per SQLite connection)."""
    return sum(Path(f.path) == path for f in psutil.Process(pid).open_files())


def descriptors(pid: int) -> int:
    """Return how many file descriptors process `pid` holds open (files, sockets, pipes)."""
    return psutil.Process(pid).num_fds()
