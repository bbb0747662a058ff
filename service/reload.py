"""Swapping the graph set while serving: load and validate the new set aside, then replace the engine at once.

A request takes the engine once, when it starts (`app.state.engine`), so requests in flight finish on the set
they started with; the swap is one assignment, so every later request sees the new set whole. A set that fails
to load (manifest, format version, checksums) or to build scorers is refused and the live set stays.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
from pathlib import Path

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool

from graph_builder.errors import EgqaError
from graph_builder.graphs.artefacts import sha256_file
from graph_builder.graphs.graphset import GraphSet
from service.engine import GraphSetInfo, ScoringEngine
from service.errors import GraphSetRefused, ServiceNotReady
from service.settings import Settings

log = logging.getLogger(__name__)


def describe(graphs: GraphSet, generation: int) -> GraphSetInfo:
    """The identity of a loaded graph set."""
    manifest = Path(graphs.path) / "manifest.json"
    checksum = sha256_file(manifest) if manifest.is_file() else ""
    return GraphSetInfo(Path(graphs.path).name, checksum, time.time(), generation)


def engine_for(settings: Settings, graphs: GraphSet, current: ScoringEngine) -> ScoringEngine:
    """A new engine over `graphs` with everything else (store, extra sets, encoder, options) of `current`."""
    return ScoringEngine(graphs, current.store, threshold=settings.threshold, default_scorer=settings.default_scorer,
                         window_days=current.window_days, max_evidence=current.max_evidence,
                         extra_graphs=current.extra_graphs, encoder=current.encoder, smooth_k=settings.smooth_k,
                         smooth_min_cosine=settings.smooth_min_cosine, date_days=current.date_days)


class GraphSwapper:
    """Loads a graph set and builds its engine, one reload at a time."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.lock = threading.Lock()  # one reload at a time, from reading the live set to swapping in the new one

    def resolve(self, current: ScoringEngine, graphs_dir: str | None) -> Path:
        """The folder to load: the live set's again (None), or a folder beside it (the same parent folder),
        named or given as a path; anything else is refused (a client cannot make the service read elsewhere)."""
        live = Path(current.graphs.path)
        if graphs_dir is None:
            return live
        wanted = Path(graphs_dir)
        path = wanted if wanted.is_absolute() else live.parent / wanted
        if path.resolve().parent != live.resolve().parent:
            raise GraphSetRefused(f"graph set {graphs_dir!r} refused, the live set is kept: name a folder beside "
                                  f"the live set {live.name!r} (in the same parent folder)")
        return path

    def load(self, current: ScoringEngine, graphs_dir: str | None = None) -> ScoringEngine:
        """Return an engine over the set `graphs_dir` (see `resolve`; default: the live set's folder, read again),
        validated in full; raise GraphSetRefused saying why not. The caller swaps it in."""
        path = self.resolve(current, graphs_dir)
        try:
            graphs = GraphSet.load(path, verify=True)
            engine = engine_for(self.settings, graphs, current)
        except (EgqaError, OSError, ValueError) as exc:
            # Neither the client nor the log reads the server's paths: the set is named as in its parent folder.
            reason = str(exc).replace(str(path), path.name)
            log.error("graph set %r refused: %s", path.name, reason)
            raise GraphSetRefused(f"graph set {path.name!r} refused, the live set is kept: {reason}") from exc
        old = current.graph_set
        engine.graph_set = describe(graphs, (old.generation if old is not None else 1) + 1)
        return engine


def reload_graphs(app: FastAPI, graphs_dir: str | None = None) -> ScoringEngine:
    """Load and validate a graph set, then make it live in one assignment (requests in flight keep theirs)."""
    swapper: GraphSwapper = app.state.swapper
    with swapper.lock:
        current: ScoringEngine | None = getattr(app.state, "engine", None)
        if current is None:
            raise ServiceNotReady(f"the service is not ready: {app.state.startup_error or 'starting'}")
        engine = swapper.load(current, graphs_dir)
        app.state.engine = engine
    log.info("graph set %s is live (generation %d)", engine.graph_set.name if engine.graph_set else "?",
             engine.graph_set.generation if engine.graph_set else 0)
    return engine


def reload_on_hangup(app: FastAPI) -> None:
    """SIGHUP reloads the live graph set (where the event loop runs in the main thread, as under `egqa serve`)."""
    running: set[asyncio.Task[None]] = set()  # the loop keeps only weak references to its tasks

    def hangup() -> None:
        async def run() -> None:
            try:
                await run_in_threadpool(reload_graphs, app)
            except EgqaError as exc:
                log.error("SIGHUP reload refused: %s", exc)
        task = asyncio.get_running_loop().create_task(run())
        running.add(task)
        task.add_done_callback(running.discard)

    try:
        asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, hangup)
    except (RuntimeError, ValueError, NotImplementedError):  # not the main thread (tests), or no SIGHUP
        log.debug("SIGHUP reload not installed")
