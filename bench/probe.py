"""Probe: a real `egqa serve` against oversized heads, a half-open request and a flood of half-open connections.

Starts the service on a build (e.g. the demo's out/demo: graphs/, evidence.db), then over raw sockets:
a 1 MB header (the status and how long the answer took), a request line of 100 kB, 500 header fields,
one request that stops half-way through its headers (seconds until the service answers 408 and closes),
and --connections half-open connections opened by --processes child processes while GET /health is timed
every 0.1 s (its worst latency during the flood, and how many flood connections the service closed).
Usage: python bench/probe.py [--build out/demo] [--connections 20000] [--processes 2] [--env EGQA_X=value ...]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import resource
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout: bench._support

import httpx  # noqa: E402

from bench._support import descriptors, rss_mb  # noqa: E402
from service.demo import service_process  # noqa: E402

HALF_HEAD = b"GET /health HTTP/1.1\r\nHost: probe\r\nX-Slow: "


@dataclass(frozen=True)
class RawAnswer:
    """What the service sent back on a raw connection and when it closed it."""

    status: int | None
    body: bytes
    seconds: float


def raw_request(host: str, port: int, data: bytes, wait: float = 60.0) -> RawAnswer:
    """Send `data` (a whole or partial request) and read until the service closes the connection or `wait` s."""
    start = time.monotonic()
    with socket.create_connection((host, port), timeout=wait) as sock:
        try:
            sock.sendall(data)
        except OSError:
            pass  # refused mid-way: the answer is still to be read
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except (TimeoutError, ConnectionResetError):
            pass
    seconds = time.monotonic() - start
    reply = b"".join(chunks)
    head, _, body = reply.partition(b"\r\n\r\n")
    status = int(head.split()[1]) if head.startswith(b"HTTP/1.1 ") else None
    return RawAnswer(status, body, seconds)


def _open_half(host: str, port: int, count: int, hold: float,
               ready: "multiprocessing.Queue[tuple[int, int, int]]") -> None:
    """Child process: open `count` connections that each send half a head, hold them `hold` s, and report how
    many opened, how many failed to connect, and how many the service closed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    async def run() -> tuple[int, int, int]:
        gate = asyncio.Semaphore(256)
        streams: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        failed = 0

        async def one() -> None:
            nonlocal failed
            async with gate:
                try:
                    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 10)
                    writer.write(HALF_HEAD)
                    streams.append((reader, writer))
                except (OSError, asyncio.TimeoutError):
                    failed += 1

        await asyncio.gather(*(one() for _ in range(count)))
        await asyncio.sleep(hold)
        async def answered(reader: asyncio.StreamReader) -> bool:
            try:
                return bool(await asyncio.wait_for(reader.read(64), 0.2))
            except (asyncio.TimeoutError, OSError):
                return False

        closed = sum(await asyncio.gather(*(answered(reader) for reader, _ in streams)))
        for _, writer in streams:
            writer.transport.abort()
        return len(streams), failed, closed

    ready.put(asyncio.run(run()))


@dataclass(frozen=True)
class FloodResult:
    """A flood of half-open connections and /health's latencies during it."""

    attempted: int
    opened: int
    failed: int
    closed: int
    peak_descriptors: int
    health_seconds: list[float]
    health_failures: int
    seconds: float


def half_open_flood(url: str, connections: int, processes: int = 2, hold: float = 5.0,
                    pid: int | None = None) -> FloodResult:
    """Open `connections` half-open connections from `processes` children while timing GET /health every 0.1 s
    (and counting the descriptors of the service process `pid`, when given)."""
    host, port = url.removeprefix("http://").split(":")
    ctx = multiprocessing.get_context("spawn")
    results: multiprocessing.Queue[tuple[int, int, int]] = ctx.Queue()
    share = connections // processes
    children = [ctx.Process(target=_open_half, args=(host, int(port), share, hold, results)) for _ in range(processes)]
    start = time.monotonic()
    for child in children:
        child.start()
    latencies, failures, peak = [], 0, 0
    with httpx.Client(base_url=url, timeout=10.0, limits=httpx.Limits(max_keepalive_connections=0)) as http:
        while any(c.is_alive() for c in children):
            began = time.monotonic()
            try:
                ok = http.get("/health").status_code == 200
            except httpx.HTTPError:
                ok = False
            latencies.append(time.monotonic() - began)
            failures += not ok
            if pid is not None:
                peak = max(peak, descriptors(pid))
            time.sleep(0.1)
    outcomes = [results.get(timeout=30) for _ in children]
    for child in children:
        child.join(timeout=10)
    return FloodResult(attempted=share * processes, opened=sum(o[0] for o in outcomes),
                       failed=sum(o[1] for o in outcomes), closed=sum(o[2] for o in outcomes),
                       peak_descriptors=peak, health_seconds=latencies, health_failures=failures,
                       seconds=time.monotonic() - start)


def main() -> None:
    """Start the service on a build and print each probe's figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, default=Path("out/demo"))
    parser.add_argument("--connections", type=int, default=20000)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--env", nargs="*", default=[], help="extra EGQA_X=value settings for the service")
    args = parser.parse_args()
    env = dict(item.split("=", 1) for item in args.env)
    graphs, db = args.build / "graphs", (args.build / "evidence.db").resolve()
    log = Path(tempfile.mkdtemp()) / "serve.log"
    with service_process(graphs, f"sqlite:///{db}", log, env={"EGQA_LM": "false", **env}) as svc:
        host, port = svc.url.removeprefix("http://").split(":")
        big = raw_request(host, int(port), b"GET /health HTTP/1.1\r\nHost: probe\r\nX-Big: " + b"a" * 1_000_000
                          + b"\r\n\r\n")
        print(f"1 MB header: HTTP {big.status} after {big.seconds:.3f} s")
        line = raw_request(host, int(port), b"GET /health?" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: probe\r\n\r\n")
        print(f"100 kB request line: HTTP {line.status} after {line.seconds:.3f} s")
        many = raw_request(host, int(port), b"GET /health HTTP/1.1\r\n"
                           + b"".join(b"X-%d: a\r\n" % i for i in range(500)) + b"\r\n")
        print(f"500 header fields: HTTP {many.status} after {many.seconds:.3f} s")
        half = raw_request(host, int(port), HALF_HEAD)
        print(f"half-open request: HTTP {half.status}, closed after {half.seconds:.2f} s")
        rss_before = rss_mb(svc.pid)
        flood = half_open_flood(svc.url, args.connections, args.processes, pid=svc.pid)
        worst = max(flood.health_seconds)
        print(f"flood of {flood.attempted} half-open connections over {flood.seconds:.1f} s: {flood.opened} opened, "
              f"{flood.failed} failed to connect, {flood.closed} closed by the service (408) while held; service "
              f"descriptors at most {flood.peak_descriptors}; GET /health {len(flood.health_seconds)} times, "
              f"{flood.health_failures} failures, worst {worst:.3f} s; RSS {rss_before:.0f} -> {rss_mb(svc.pid):.0f} MB")
        after = httpx.get(f"{svc.url}/health", timeout=5)
        print(f"after the flood: /health HTTP {after.status_code}")


if __name__ == "__main__":
    main()
