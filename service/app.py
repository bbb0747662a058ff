"""The FastAPI app: `create_app(settings)` opens graphs and store once (lifespan) and serves thin routes."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Path as PathParam, Query, Request
from fastapi.concurrency import run_in_threadpool

from graph_builder import __version__
from graph_builder.embeddings import SentenceEncoder, load_encoder
from graph_builder.errors import EgqaError, InputError, ModelMissingError, NotFoundError
from graph_builder.graphs.graphset import GraphSet
from graph_builder.graphs.scorers import model_scorers
from graph_builder.windows import window_span
from retrieval.factory import open_store
from service.engine import TYPES_PATTERN, ScoringEngine
from service.errors import (
    ORJSONResponse,
    ServiceNotReady,
    error_response,
    install_error_handlers,
    public_message,
    status_of,
)
from service.guards import OPEN_PATHS, Guard, JSONBodyRoute
from service.ingestion import Ingestion, Record, open_ingestion
from service.reload import GraphSwapper, describe, reload_graphs, reload_on_hangup
from service.schemas import (
    ArticleStatusOut,
    ArticlesRequest,
    ArticlesResponse,
    BatchRequest,
    BatchResponse,
    ErrorBody,
    QueryRequest,
    QueryResponse,
    ReceiptOut,
    ReloadRequest,
    WindowOut,
    answer_json,
    answer_out,
    window_json,
)
from service.settings import Settings, load_settings
from service.web import mount_page

log = logging.getLogger(__name__)


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """Document the standard error body under each status code."""
    return {code: {"model": ErrorBody} for code in codes}


# 401 only when EGQA_API_KEY is set; 500 is a bug, documented because a client must be ready for one.
POST_ERRORS = _errors(400, 401, 404, 413, 415, 422, 500, 503)
GET_ERRORS = _errors(400, 401, 404, 422, 500, 503)
LIST_ERRORS = _errors(401, 500, 503)
INGEST_ERRORS = _errors(400, 401, 413, 415, 422, 429, 500, 503)


TypesParam = Annotated[str, Query(max_length=100, pattern=TYPES_PATTERN, examples=["person#location"],
                                   description="Two argument types joined by '#', e.g. person#location.")]


class StartupFailed(RuntimeError):
    """Strict mode: the graphs or the store failed to open, so the service refuses to start."""


def open_encoder(settings: Settings) -> SentenceEncoder | None:
    """Load the sentence-embedding model when the settings ask for it and the `lm` extra is installed."""
    if not settings.lm:
        return None
    try:
        return load_encoder()
    except ModelMissingError as exc:
        log.warning("LM scorers (%s) not offered: %s", model_scorers(), exc)
        return None


def open_engine(settings: Settings) -> ScoringEngine:
    """Open the graphs and the evidence store named by the settings and build the engine."""
    try:
        graphs = GraphSet.load(settings.graphs_dir)
        extra = {name: GraphSet.load(path) for name, path in sorted(settings.extra_graphs.items())}
    except EgqaError as exc:
        raise ServiceNotReady(f"the entailment graphs failed to load ({exc.code})") from exc
    try:
        store = open_store(settings.store_url, password=settings.store_password(),
                           create=False,  # a wrong path is an error, not an empty store
                           request_timeout=settings.store_timeout, max_connections=settings.store_connections)
    except ValueError as exc:  # the password file cannot be read: its message names the variable, not the path
        raise ServiceNotReady(f"the evidence store failed to open ({exc})") from exc
    except EgqaError as exc:
        raise ServiceNotReady(f"the evidence store failed to open ({exc.code})") from exc
    try:
        engine = ScoringEngine(graphs, store, threshold=settings.threshold, default_scorer=settings.default_scorer,
                               window_days=settings.window_days, max_evidence=settings.max_evidence, extra_graphs=extra,
                               encoder=open_encoder(settings), smooth_k=settings.smooth_k,
                               smooth_min_cosine=settings.smooth_min_cosine, date_days=settings.date_days)
    except EgqaError:
        store.close()
        raise
    engine.graph_set = describe(graphs, 1)
    return engine


def _ingestion(request: Request) -> Ingestion:
    _engine(request)  # no articles before the store is open
    ingestion: Ingestion | None = getattr(request.app.state, "ingestion", None)
    if ingestion is None:
        raise ServiceNotReady("the service is not ready: starting; GET /ready reports when it can answer")
    return ingestion


def _engine(request: Request) -> ScoringEngine:
    engine: ScoringEngine | None = getattr(request.app.state, "engine", None)
    if engine is None:
        raise ServiceNotReady(f"the service is not ready: {request.app.state.startup_error or 'starting'}; "
                              "GET /ready reports when it can answer")
    return engine


def _document_key(app: FastAPI) -> None:
    """Make the app's OpenAPI document say that every route but /health and /ready needs the API key."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()  # caches itself on app.openapi_schema; completed in place below
            schema.setdefault("components", {})["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer"},
                "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}}
            for path, operations in schema["paths"].items():
                for operation in operations.values():
                    if path not in OPEN_PATHS:
                        operation["security"] = [{"bearer": []}, {"apiKey": []}]
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _public_manifest(manifest: Any) -> Any:
    """Return a graph manifest without server paths: every absolute path keeps only its last name."""
    if isinstance(manifest, dict):
        return {k: _public_manifest(v) for k, v in manifest.items()}
    if isinstance(manifest, list):
        return [_public_manifest(v) for v in manifest]
    if isinstance(manifest, str) and manifest.startswith("/"):
        return Path(manifest).name
    return manifest


def _untyped_summary(untyped: GraphSet | None) -> dict[str, Any] | None:
    """The untyped set the `+untyped` scorers back off to (`egqa graph build --untyped`): its measures, nodes and
    edges per measure; None when the graph set has none."""
    if untyped is None:
        return None
    totals = untyped.manifest.get("totals", {})
    return {"measures": untyped.measures, "nodes": totals.get("nodes"), "edges": totals.get("edges")}


def _window(engine: ScoringEngine, window_id: int) -> WindowOut:
    span = window_span(window_id, engine.window_days)
    return WindowOut(id=span.id, start=span.start, end=span.end)


def create_app(settings: Settings | None = None, engine: ScoringEngine | None = None) -> FastAPI:
    """Build the app; graphs and store are opened once at start-up unless an engine is given."""
    settings = settings or load_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.settings = settings
        app.state.engine = engine
        app.state.startup_error = None
        if engine is None:
            try:
                app.state.engine = await run_in_threadpool(open_engine, settings)
            except EgqaError as exc:
                cause = exc.__cause__ or exc
                log.error("service not ready: %s: %s", exc, cause)  # the log gets the paths, clients do not
                if settings.strict:
                    raise StartupFailed(f"EGQA_STRICT is set and {exc}: {cause}") from exc
                app.state.startup_error = str(exc)
        app.state.swapper = GraphSwapper(settings)
        app.state.ingestion = None
        if app.state.engine is not None:
            if settings.preload_parser:
                from graph_builder.extraction import load_pipeline
                await run_in_threadpool(load_pipeline)  # parse free-text questions without a first-call delay
            if app.state.engine.graph_set is None:
                app.state.engine.graph_set = describe(app.state.engine.graphs, 1)
            app.state.ingestion = await run_in_threadpool(open_ingestion, app, settings, app.state.engine)
            reload_on_hangup(app)
        yield
        if app.state.ingestion is not None:
            await run_in_threadpool(app.state.ingestion.close)
        if app.state.engine is not None and engine is None:
            app.state.engine.store.close()

    app = FastAPI(title="egqa", version=__version__, default_response_class=ORJSONResponse, lifespan=lifespan,
                  description="Judges propositions about the news by entailment graphs over a window's evidence. "
                  "When the service runs with an API key, send it as `Authorization: Bearer KEY` or "
                  "`X-API-Key: KEY` on every route but /health and /ready.")
    app.state.settings = settings  # read by the guards before the lifespan has run
    # Batches judged side by side in threads share one interpreter lock: they take longer together than one
    # after another (docs/benchmarks.md), so a batch waits for its turn, blocked and idle, in its worker thread
    # (unless its scorer runs the sentence model, which works outside the lock).
    app.state.batch_gate = threading.BoundedSemaphore(settings.batch_concurrency)
    app.router.route_class = JSONBodyRoute
    install_error_handlers(app)
    key = settings.api_key.get_secret_value() if settings.api_key is not None else None
    app.add_middleware(Guard, max_body_bytes=settings.max_body_bytes, api_key=key)
    if key is not None:
        _document_key(app)

    @app.get("/health", tags=["ops"], responses=_errors(500))
    def health() -> dict[str, str]:
        """Liveness: the process answers (it may not be ready to; see /ready)."""
        return {"status": "ok", "version": __version__}

    @app.head("/health", tags=["ops"], responses=_errors(500), operation_id="health_head")
    def health_head() -> None:
        """Liveness for probes that send HEAD: the status alone."""

    @app.get("/ready", tags=["ops"], responses=_errors(500, 503))
    def ready(request: Request) -> Any:
        """Readiness: graphs loaded and the evidence store answering; 503 with the reason otherwise."""
        if request.app.state.engine is None:
            return error_response(503, "not_ready", request.app.state.startup_error or "starting")
        try:
            stats = request.app.state.engine.store.stats()
        except EgqaError as exc:
            log.error("not ready: %s", exc)
            status = status_of(exc)
            return error_response(status if status >= 500 else 503, exc.code, public_message(exc))
        return {"status": "ready", "graphs": len(request.app.state.engine.graphs.graphs),
                "store": {"backend": stats.backend, "triples": stats.triples, "windows": stats.windows}}

    @app.post("/v1/query", response_model=QueryResponse, responses=POST_ERRORS, tags=["qa"])
    def query(body: QueryRequest, request: Request) -> QueryResponse:
        """Judge one proposition in its window and explain the answer with evidence."""
        engine = _engine(request)
        answer = engine.judge([body.to_input()], body.to_options())[0]
        return answer_out(answer, _window(engine, answer.hypothesis.window))

    @app.post("/v1/query/batch", response_model=BatchResponse, responses=POST_ERRORS, tags=["qa"])
    def query_batch(body: BatchRequest, request: Request) -> ORJSONResponse:
        """Judge many propositions with the same options; results come back in request order."""
        engine = _engine(request)  # the batch size limit is checked on the raw body (service.guards)
        # EGQA_BATCH_CONCURRENCY batches at a time; the others wait, idle. A scorer that runs the sentence model
        # computes mostly without the interpreter lock: its batches go side by side.
        gate = nullcontext() if engine.runs_model(body.scorer) else request.app.state.batch_gate
        with gate:
            answers = engine.judge([q.to_input() for q in body.queries], body.to_options())
            # The BatchResponse body, written directly: validating what the engine built costs more than judging it.
            windows = {w: window_json(window_span(w, engine.window_days)) for w in {a.hypothesis.window for a in answers}}
            return ORJSONResponse({"results": [answer_json(a, windows[a.hypothesis.window]) for a in answers]})

    @app.get("/v1/entailment", responses=GET_ERRORS, tags=["graphs"])
    def entailment(request: Request, premise: Annotated[str, Query(max_length=300)],
                   hypothesis: Annotated[str, Query(max_length=300)], types: TypesParam) -> dict[str, Any]:
        """Entailment scores premise -> hypothesis and back, under every graph scorer (measures, +smooth, extra sets)."""
        engine = _engine(request)
        return {"premise": premise, "hypothesis": hypothesis, "types": types,
                "scores": engine.entailment(premise, hypothesis, types)}

    @app.get("/v1/predicates/neighbours", responses=GET_ERRORS, tags=["graphs"])
    def neighbours(request: Request, predicate: Annotated[str, Query(max_length=300)],
                   types: TypesParam, measure: Annotated[str | None, Query(max_length=50)] = None,
                   limit: Annotated[int, Query(ge=1, le=1000)] = 20) -> dict[str, Any]:
        """What a typed predicate entails and what entails it, best first."""
        engine = _engine(request)
        measure = engine.graphs.check_measure(measure)
        return {"predicate": predicate, "types": types, "measure": measure,
                "entails": engine.graphs.edges(predicate, types, measure, "entails", limit),
                "entailed_by": engine.graphs.edges(predicate, types, measure, "entailed_by", limit)}

    @app.get("/v1/graphs", responses=LIST_ERRORS, tags=["graphs"])
    def graphs(request: Request) -> dict[str, Any]:
        """The loaded graphs: type pairs, node and edge counts, manifests."""
        engine = _engine(request)
        items = [{"name": g.name, "types": list(g.types), "nodes": len(g.nodes),
                  "edges": {m: int(len(mat[0])) for m, mat in sorted(g.matrices.items())}, "manifest": _public_manifest(g.manifest)}
                 for g in engine.graphs.graphs.values()]
        return {"graph_set": engine.graph_set.to_dict() if engine.graph_set else None,
                "measures": engine.graphs.measures, "scorers": engine.scorers,
                "default_scorer": engine.default_scorer, "graphs": items,
                "predicate_embeddings": engine.graphs.embeddings is not None,
                "extra_graphs": {name: {"measure": g.default_measure, "predicate_embeddings": g.embeddings is not None}
                                 for name, g in engine.extra_graphs.items()},
                "untyped_set": _untyped_summary(engine.graphs.untyped)}

    @app.get("/v1/windows", responses=LIST_ERRORS, tags=["qa"])
    def windows(request: Request) -> dict[str, Any]:
        """Every window that holds news, with its dates and article and triple counts."""
        engine = _engine(request)
        return {"window_days": engine.window_days,
                "windows": [{"id": w.id, "start": w.start, "end": w.end, "articles": w.articles, "triples": w.triples}
                            for w in engine.store.windows()]}

    @app.post("/v1/articles", response_model=ArticlesResponse, status_code=202, responses=INGEST_ERRORS,
              tags=["ingest"])
    def post_articles(body: ArticlesRequest, request: Request) -> ArticlesResponse:
        """Queue articles for extraction into the store: answered once they are durably queued, one receipt per
        article in request order (`accepted`, `duplicate` or `rejected`); a full queue answers 429 with Retry-After."""
        receipts = _ingestion(request).submit([Record(a.id, a.date, a.title, a.text, a.split) for a in body.articles])
        return ArticlesResponse(articles=[ReceiptOut(id=r.id, status=r.status, reason=r.reason) for r in receipts])

    @app.get("/v1/articles/{article_id}", response_model=ArticleStatusOut, responses=GET_ERRORS, tags=["ingest"])
    def get_article(request: Request, article_id: Annotated[str, PathParam(max_length=200)]) -> ArticleStatusOut:
        """An article received over POST /v1/articles: `queued`, `indexed` (with its triple count) or `rejected`."""
        state = _ingestion(request).state(article_id)
        if state is None:
            raise NotFoundError(f"no article {article_id!r} was received by POST /v1/articles")
        return ArticleStatusOut(id=state.id, status=state.status, triples=state.triples, reason=state.reason)

    @app.post("/v1/admin/reload", responses=_errors(400, 401, 409, 415, 422, 500, 503), tags=["ops"])
    async def reload(request: Request, body: ReloadRequest | None = None) -> dict[str, Any]:
        """Load a graph set (the live one's folder again, or `graphs_dir` beside it), validate it in full (manifests,
        checksums) and make it live at once; a set that fails is refused with 409 and the live set kept."""
        engine = await run_in_threadpool(reload_graphs, request.app, body.graphs_dir if body else None)
        return {"status": "reloaded", "graph_set": engine.graph_set.to_dict() if engine.graph_set else None}

    mount_page(app)
    return app


def app_from_env() -> FastAPI:
    """Factory for `uvicorn --factory service.app:app_from_env`: settings from the environment."""
    try:
        return create_app(load_settings())
    except ValueError as exc:
        raise InputError(f"invalid EGQA_* settings: {exc}") from exc
