"""The Elasticsearch evidence store: yearly indices behind an alias, core features only.

Layout for prefix `p`: triples of a window go to `p-triples-<year of the window's first day>`, article
rows to `p-articles-<year>`; index templates give every such index the explicit mapping and put it
behind the aliases `p-triples` / `p-articles`, so a growing archive just adds indices. A window never
spans two indices, so an evidence lookup searches one index. Documents use triple_id (article_id) as
`_id` and are written with op `create`, which makes re-ingest idempotent; ids already stored are
looked up first (one ids query per page) and not sent again, so re-running an ingest is cheap.
Queries use term/terms/ids/bool, count and composite/terms aggregations only (all in the server core
of the integ-test-zip).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar
from urllib.parse import parse_qs, unquote, urlsplit

from graph_builder.errors import InputError, NotFoundError, StoreError
from graph_builder.extras import require
from graph_builder.windows import DEFAULT_WINDOW_DAYS, Days, window_span
from retrieval.protocol import (
    ARTICLE_FIELDS,
    TRIPLE_FIELDS,
    Alias,
    ArticleRows,
    Evidence,
    EvidenceQuery,
    COMMON_NOUN_TYPE,
    NAME_RULES,
    WINDOW_NAMES,
    NameMatch,
    PredicateCount,
    StoreStats,
    TripleRows,
    TypeCount,
    WindowInfo,
    as_date,
    lookup_windows,
    rows_to_columns,
    summarise,
)

require("elasticsearch", "elasticsearch", "the Elasticsearch evidence store")  # a readable error when it is missing

import elastic_transport  # noqa: E402  (installed with the client)
from elasticsearch import ApiError, Elasticsearch, helpers  # noqa: E402
from elasticsearch import NotFoundError as EsNotFoundError  # noqa: E402
from elasticsearch.serializer import OrjsonSerializer  # noqa: E402

log = logging.getLogger(__name__)
T = TypeVar("T")

MAPPING_VERSION = "egqa.es-store.v1"
_UNINDEXED = {"type": "keyword", "index": False, "doc_values": False}
TRIPLE_MAPPING: dict[str, Any] = {
    "dynamic": "strict",
    "_meta": {"egqa": MAPPING_VERSION},
    "properties": {
        "triple_id": {"type": "keyword"},
        "article_id": {"type": "keyword"},
        "sentence_id": {"type": "keyword"},
        "date": {"type": "date", "format": "strict_date"},
        "window": {"type": "integer"},
        "split": {"type": "keyword"},
        "subj": {"type": "keyword"},
        "subj_text": _UNINDEXED,
        "subj_type": {"type": "keyword"},
        "obj": {"type": "keyword"},
        "obj_text": _UNINDEXED,
        "obj_type": {"type": "keyword"},
        "predicate": {"type": "keyword"},
        "predicate_text": _UNINDEXED,
        "negated": {"type": "boolean"},
        "sentence": _UNINDEXED,
    },
}
ALIAS_MAPPING: dict[str, Any] = {
    "dynamic": "strict",
    "_meta": {"egqa": MAPPING_VERSION},
    "properties": {"alias": {"type": "keyword"}, "type": {"type": "keyword"}, "canonical": {"type": "keyword"},
                   "mentions": {"type": "long"}},
}
ARTICLE_MAPPING: dict[str, Any] = {
    "dynamic": "strict",
    "_meta": {"egqa": MAPPING_VERSION},
    "properties": {
        "article_id": {"type": "keyword"},
        "date": {"type": "date", "format": "strict_date"},
        "window": {"type": "integer"},
        "split": {"type": "keyword"},
        "title": _UNINDEXED,
        "sentences": {"type": "integer"},
        "tokens": {"type": "integer"},
        "triples": {"type": "integer"},
    },
}
_PREFIX_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,100}$")
_MSEARCH_CHUNK = 200
_HIT_FIELDS = ["hits.hits._source", "hits.hits.sort"]  # smaller responses, less JSON to parse
# `status` keeps every item of an _msearch answer, so responses stay aligned with their queries.
_MSEARCH_FIELDS = ["responses.status", "responses.error", *(f"responses.{f}" for f in _HIT_FIELDS)]


class ElasticsearchStore:
    """Evidence store on an Elasticsearch 8.x cluster (for archives beyond one machine's file)."""

    backend = "elasticsearch"
    accepts_password = True  # open_store passes the password of the URL's user

    def __init__(self, hosts: str, *, prefix: str = "egqa", create: bool = True,
                 window_days: int = DEFAULT_WINDOW_DAYS, request_timeout: float = 10.0,
                 bulk_timeout: float = 120.0, chunk_size: int = 2000, page_size: int = 10000,
                 replicas: int = 0, window_cache_seconds: float = 10.0, max_connections: int = 10,
                 basic_auth: tuple[str, str] | None = None) -> None:
        """Connect lazily to `hosts`, one node's URL or several joined by commas (as `basic_auth` = (user,
        password) when given); indices are named `<prefix>-triples-<year>` / `<prefix>-articles-<year>` and get
        `replicas` replica shards each."""
        if not _PREFIX_RE.match(prefix):
            raise InputError(f"bad Elasticsearch index prefix {prefix!r}: use lowercase letters, digits, - _ .")
        self.hosts = hosts
        self.prefix = prefix
        self.create = create
        self.window_days = window_days
        self.request_timeout = request_timeout
        self.bulk_timeout = bulk_timeout
        self.chunk_size = chunk_size
        self.page_size = min(page_size, 10000)  # index.max_result_window
        self.replicas = replicas
        self.triples_alias = f"{prefix}-triples"
        self.articles_alias = f"{prefix}-articles"
        self.meta_index = f"{prefix}-meta"
        self.aliases_index = f"{prefix}-aliases"
        self._templates_ready = False
        self.window_cache_seconds = window_cache_seconds
        self._window_cache: tuple[float, dict[int, WindowInfo]] = (-1e18, {})
        # One retry on a refused connection (on the next node, when there are several); a timeout is not
        # retried, so a dead server costs at most ~request_timeout per call. The node pool revives a dead
        # node on a later call.
        self.client = Elasticsearch(hosts.split(","), request_timeout=request_timeout, max_retries=1,
                                    retry_on_timeout=False, retry_on_status=(502, 503, 504),
                                    connections_per_node=max_connections, serializer=OrjsonSerializer(),
                                    basic_auth=basic_auth)

    @classmethod
    def from_url(cls, url: str, password: str | None = None, **options: Any) -> ElasticsearchStore:
        """Open `http(s)://[user[:password]@]host:port[,host:port...][/prefix][?timeout=seconds&replicas=n]`;
        several hosts are nodes of one cluster, `replicas` the replica shards of each new index (default 0, for
        a single node). `password` is the user's when the URL names a user without one (read from a secret
        file, so it is in no URL or environment). Credentials are kept out of `hosts`, which error messages name."""
        parts = urlsplit(url)
        nodes = _nodes(url, parts.scheme, parts.netloc.rpartition("@")[2])
        if parts.username is not None:
            secret = unquote(parts.password) if parts.password is not None else password
            if secret is None:
                raise InputError(f"the Elasticsearch URL names user {unquote(parts.username)!r} but no password: "
                                 "put it in a file named by EGQA_STORE_PASSWORD_FILE")
            options["basic_auth"] = (unquote(parts.username), secret)
        prefix = parts.path.strip("/") or options.pop("prefix", "egqa")
        query = parse_qs(parts.query)
        if "timeout" in query:
            try:
                options.setdefault("request_timeout", float(query["timeout"][0]))
            except ValueError:
                raise InputError(f"bad timeout in {_without_password(url)!r}: expected seconds") from None
        if "replicas" in query:
            replicas = query["replicas"][0]
            if not replicas.isdigit():
                raise InputError(f"bad replicas in {_without_password(url)!r}: expected a whole number >= 0")
            options.setdefault("replicas", int(replicas))
        return cls(",".join(nodes), prefix=prefix, **options)

    def close(self) -> None:
        """Close the HTTP connections."""
        self.client.close()

    def __enter__(self) -> ElasticsearchStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers -------------------------------------------------------------------------------

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        """Run one client call, turning transport and server failures into StoreError."""
        try:
            return fn()
        except elastic_transport.TransportError as exc:  # refused, timed out, TLS, ...
            raise StoreError(f"Elasticsearch at {self.hosts} unreachable during {what}: "
                             f"{type(exc).__name__}: {exc}") from exc
        except ApiError as exc:
            raise StoreError(f"Elasticsearch at {self.hosts} refused {what}: {exc.meta.status} {exc}") from exc
        except helpers.BulkIndexError as exc:
            raise StoreError(f"Elasticsearch at {self.hosts} rejected documents during {what}: "
                             f"{exc.errors[:1]}") from exc

    def _index_for(self, kind: str, window: int) -> str:
        """Return the time-based index that holds `kind` rows of `window`."""
        return f"{self.prefix}-{kind}-{window_span(window, self.window_days).start.year:04d}"

    def _indices_for(self, q: EvidenceQuery) -> str:
        """The triples indices a lookup reads (comma-separated: days may cross a year)."""
        return ",".join(sorted({self._index_for("triples", w) for w in lookup_windows(q, self.window_days)}))

    def _ensure_templates(self) -> None:
        """Install the index templates (idempotent) so each new yearly index gets mapping and alias."""
        if self._templates_ready:
            return
        for kind, mapping in (("triples", TRIPLE_MAPPING), ("articles", ARTICLE_MAPPING)):
            body = {
                "index_patterns": [f"{self.prefix}-{kind}-*"],
                "priority": 200,
                "_meta": {"egqa": MAPPING_VERSION},
                "template": {
                    "settings": {"number_of_shards": 1, "number_of_replicas": self.replicas,
                                 # add_* refresh explicitly when a batch is in; no periodic refresh needed
                                 "refresh_interval": "30s"},
                    "mappings": mapping,
                    "aliases": {f"{self.prefix}-{kind}": {}},
                },
            }
            self._call("template install", lambda k=kind, b=body: self.client.indices.put_index_template(
                name=f"{self.prefix}-{k}", **b))
        self._templates_ready = True

    def _bulk(self, what: str, actions: Iterable[dict[str, Any]]) -> tuple[int, int]:
        """Stream `actions` in chunks with retries on 429; return (written, already_present)."""
        written = present = 0
        failures: list[Any] = []
        client = self.client.options(request_timeout=self.bulk_timeout)

        def run() -> None:
            nonlocal written, present
            for ok, item in helpers.streaming_bulk(
                    client, actions, chunk_size=self.chunk_size, max_chunk_bytes=20 * 1024 * 1024,
                    max_retries=8, initial_backoff=1, max_backoff=30,
                    raise_on_error=False, raise_on_exception=True, yield_ok=True):
                result = next(iter(item.values()))
                if ok:
                    written += 1
                elif result.get("status") == 409:  # `create` of a document we already hold
                    present += 1
                else:
                    failures.append(result)

        self._call(what, run)
        if failures:
            raise StoreError(f"Elasticsearch rejected {len(failures)} documents during {what}, "
                             f"first: {failures[0].get('error')}")
        self._call("refresh", lambda: self.client.indices.refresh(
            index=f"{self.prefix}-*", ignore_unavailable=True, allow_no_indices=True))
        self._window_cache = (-1e18, {})
        return written, present

    # -- writes --------------------------------------------------------------------------------

    def add_triples(self, rows: TripleRows) -> int:
        """Add triples, skipping any whose triple_id is already stored; return how many were new."""
        cols = rows_to_columns(rows, TRIPLE_FIELDS)
        n = len(cols["triple_id"])
        if n == 0:
            return 0
        self._ensure_templates()
        cols["date"] = [as_date(d).isoformat() for d in cols["date"]]
        cols["negated"] = [bool(x) for x in cols["negated"]]
        cols["window"] = [int(w) for w in cols["window"]]  # type: ignore[call-overload]

        known = self._existing_ids(cols["triple_id"])  # type: ignore[arg-type]

        def actions() -> Iterator[dict[str, Any]]:
            for i in range(n):
                if cols["triple_id"][i] in known:
                    continue
                doc = {f: cols[f][i] for f in TRIPLE_FIELDS}
                yield {"_op_type": "create", "_index": self._index_for("triples", doc["window"]),
                       "_id": doc["triple_id"], "_source": doc}

        added, _ = self._bulk("add_triples", actions())
        # Articles known only from their triples still count in their window (an article row from
        # add_articles later overwrites the stub).
        stubs: dict[str, tuple[str, int]] = {}
        for aid, date, window in zip(cols["article_id"], cols["date"], cols["window"], strict=True):
            stubs.setdefault(str(aid), (str(date), int(window)))  # type: ignore[call-overload]
        self._bulk("add_triples (article stubs)", (
            {"_op_type": "create", "_index": self._index_for("articles", w), "_id": aid,
             "_source": {"article_id": aid, "date": d, "window": w}}
            for aid, (d, w) in sorted(stubs.items())))
        return added

    def _existing_ids(self, triple_ids: list[str]) -> set[str]:
        """Return which of `triple_ids` are stored already (an ids query per page, no documents)."""
        known: set[str] = set()
        for start in range(0, len(triple_ids), self.page_size):
            page = triple_ids[start:start + self.page_size]
            body = {"query": {"ids": {"values": page}}, "_source": False, "size": len(page),
                    "track_total_hits": False}
            resp = self._call("add_triples (known ids)", lambda b=body: self.client.search(
                index=self.triples_alias, ignore_unavailable=True, allow_no_indices=True,
                filter_path=["hits.hits._id"], **b))
            known.update(h["_id"] for h in resp.get("hits", {}).get("hits", []))
        return known

    def add_articles(self, rows: ArticleRows) -> int:
        """Add or update article rows; return how many rows were written."""
        cols = rows_to_columns(rows, ARTICLE_FIELDS)
        n = len(cols["article_id"])
        if n == 0:
            return 0
        self._ensure_templates()
        cols["date"] = [as_date(d).isoformat() for d in cols["date"]]

        def actions() -> Iterator[dict[str, Any]]:
            for i in range(n):
                doc = {f: cols[f][i] for f in ARTICLE_FIELDS}
                index = self._index_for("articles", int(doc["window"]))  # type: ignore[call-overload]
                yield {"_op_type": "index", "_index": index, "_id": doc["article_id"], "_source": doc}

        written, _ = self._bulk("add_articles", actions())
        return written

    # -- reads ---------------------------------------------------------------------------------

    def _evidence_query(self, q: EvidenceQuery) -> dict[str, Any]:
        """Return the bool query for one evidence lookup."""
        pairs = [(q.arg_a, q.arg_b)] if q.arg_a == q.arg_b else [(q.arg_a, q.arg_b), (q.arg_b, q.arg_a)]
        scope: list[dict[str, Any]] = [{"term": {"window": q.window}}] if q.days is None else [
            {"terms": {"window": lookup_windows(q, self.window_days)}},
            {"range": {"date": {"gte": q.days[0].isoformat(), "lte": q.days[1].isoformat()}}}]
        query: dict[str, Any] = {"bool": {"filter": [
            *scope,
            {"bool": {"should": [{"bool": {"filter": [{"term": {"subj": s}}, {"term": {"obj": o}}]}}
                                 for s, o in pairs], "minimum_should_match": 1}},
        ]}}
        if q.exclude_sentence_ids:
            query["bool"]["must_not"] = [{"terms": {"sentence_id": sorted(set(q.exclude_sentence_ids))}}]
        return query

    def _search_body(self, q: EvidenceQuery, after: list[Any] | None = None, got: int = 0,
                     source: list[str] | None = None) -> dict[str, Any]:
        """Return the search body for the page after `got` hits of one evidence lookup (`source`: fields to return)."""
        size = self.page_size if q.limit is None else min(q.limit - got, self.page_size)
        body: dict[str, Any] = {"query": self._evidence_query(q), "size": size, "track_total_hits": False,
                                "sort": [{"date": "asc"}, {"triple_id": "asc"}]}
        if after is not None:
            body["search_after"] = after
        if source is not None:
            body["_source"] = source
        return body

    @staticmethod
    def _to_evidence(source: dict[str, Any], arg_a: str) -> Evidence:
        """Turn one stored document into an Evidence item."""
        values = {f: source[f] for f in TRIPLE_FIELDS}
        values["date"] = dt.date.fromisoformat(source["date"])
        return Evidence(**values, aligned=source["subj"] == arg_a)

    def _finish(self, q: EvidenceQuery, hits: list[dict[str, Any]],
                source: list[str] | None = None) -> list[dict[str, Any]]:
        """Page on with search_after while pages come back full; return every hit of the lookup."""
        while hits and len(hits) % self.page_size == 0 and (q.limit is None or len(hits) < q.limit):
            body = self._search_body(q, after=hits[-1]["sort"], got=len(hits), source=source)
            more = self._call("evidence lookup", lambda b=body: self.client.search(
                index=self._indices_for(q), ignore_unavailable=True, filter_path=_HIT_FIELDS,
                **b)).get("hits", {}).get("hits", [])
            if not more:
                break
            hits.extend(more)
        return hits

    def evidence(self, window: int, arg_a: str, arg_b: str, exclude_sentence_ids: Iterable[str] = (),
                 limit: int | None = None) -> list[Evidence]:
        """Return the window's triples about the pair (a, b) in either order, by (date, triple_id)."""
        q = EvidenceQuery(window, arg_a, arg_b, tuple(exclude_sentence_ids), limit)
        if limit is not None and limit <= 0:
            return []
        body = self._search_body(q)
        resp = self._call("evidence lookup", lambda: self.client.search(
            index=self._index_for("triples", window), ignore_unavailable=True, filter_path=_HIT_FIELDS, **body))
        hits = resp.get("hits", {}).get("hits", [])
        return [self._to_evidence(h["_source"], q.arg_a) for h in self._finish(q, hits)]

    def _hits_many(self, queries: Sequence[EvidenceQuery], source: list[str] | None) -> list[list[dict[str, Any]]]:
        """Run many evidence lookups with _msearch; every hit of each, in query order."""
        results: list[list[dict[str, Any]]] = []
        for start in range(0, len(queries), _MSEARCH_CHUNK):
            chunk = queries[start:start + _MSEARCH_CHUNK]
            searches: list[dict[str, Any]] = []
            for q in chunk:
                searches.append({"index": self._indices_for(q), "ignore_unavailable": True})
                searches.append(self._search_body(q, source=source) if q.limit is None or q.limit > 0 else
                                {"query": {"match_none": {}}, "size": 0})
            response = self._call("evidence lookup (batch)", lambda s=searches: self.client.msearch(
                searches=s, filter_path=_MSEARCH_FIELDS))
            for q, r in zip(chunk, response["responses"], strict=True):
                if "error" in r:
                    raise StoreError(f"Elasticsearch failed an evidence lookup: {r['error']}")
                hits = r.get("hits", {}).get("hits", [])
                results.append(self._finish(q, hits, source) if q.limit is None or q.limit > 0 else [])
        return results

    def evidence_many(self, queries: Sequence[EvidenceQuery]) -> list[list[Evidence]]:
        """Answer many evidence lookups with _msearch, one result list per query, in query order."""
        return [[self._to_evidence(h["_source"], q.arg_a) for h in hits]
                for q, hits in zip(queries, self._hits_many(queries, None), strict=True)]

    def evidence_summary(self, queries: Sequence[EvidenceQuery]) -> list[list[PredicateCount]]:
        """Per query, its evidence grouped by (predicate, aligned) and counted (only two fields come back)."""
        return [summarise((h["_source"]["predicate"], h["_source"]["subj"] == q.arg_a) for h in hits)
                for q, hits in zip(queries, self._hits_many(queries, ["predicate", "subj"]), strict=True)]

    def _window_buckets(self, alias: str, query: dict[str, Any] | None = None) -> dict[int, int]:
        """Return {window: doc count} over `alias`, paging a composite aggregation."""
        counts: dict[int, int] = {}
        after: dict[str, Any] | None = None
        while True:
            composite: dict[str, Any] = {"size": 1000, "sources": [{"w": {"terms": {"field": "window"}}}]}
            if after is not None:
                composite["after"] = after
            body: dict[str, Any] = {"size": 0, "aggs": {"w": {"composite": composite}}}
            if query is not None:
                body["query"] = query
            resp = self._call("window counts", lambda b=body: self.client.search(
                index=alias, ignore_unavailable=True, allow_no_indices=True, **b))
            agg = resp.get("aggregations", {}).get("w")
            if not agg or not agg["buckets"]:
                return counts
            for bucket in agg["buckets"]:
                counts[int(bucket["key"]["w"])] = int(bucket["doc_count"])
            after = agg.get("after_key")
            if after is None:
                return counts

    def _windows(self, query: dict[str, Any] | None = None) -> list[WindowInfo]:
        """Return WindowInfo for every window matching `query`, by id."""
        articles = self._window_buckets(self.articles_alias, query)
        triples = self._window_buckets(self.triples_alias, query)
        out = []
        for w in sorted(articles.keys() | triples.keys()):
            span = window_span(w, self.window_days)
            out.append(WindowInfo(w, span.start, span.end, articles.get(w, 0), triples.get(w, 0)))
        return out

    def windows(self) -> list[WindowInfo]:
        """Return every window that holds an article or a triple, by id."""
        found = self._windows()
        self._window_cache = (time.monotonic(), {w.id: w for w in found})
        return found

    def window(self, window_id: int) -> WindowInfo:
        """Return one window's counts; raise NotFoundError when the store holds nothing for it."""
        # The service checks the window of every query: answer from a short-lived snapshot of windows()
        # (two aggregations) instead of two searches per query.
        stamp, cached = self._window_cache
        if time.monotonic() - stamp > self.window_cache_seconds:
            self.windows()
            stamp, cached = self._window_cache
        if window_id in cached:
            return cached[window_id]
        found = self._windows({"term": {"window": window_id}})
        if not found:
            raise NotFoundError(f"window {window_id} holds no articles or triples in this store")
        return found[0]

    def argument_types(self, arg: str) -> list[TypeCount]:
        """Return the types an argument was seen with, most frequent first (ties by type name)."""
        body = {"size": 0, "query": {"bool": {"should": [{"term": {"subj": arg}}, {"term": {"obj": arg}}]}},
                "aggs": {side: {"filter": {"term": {side: arg}},
                                "aggs": {"t": {"terms": {"field": f"{side}_type", "size": 1000}}}}
                         for side in ("subj", "obj")}}
        resp = self._call("argument types", lambda: self.client.search(
            index=self.triples_alias, ignore_unavailable=True, allow_no_indices=True, **body))
        counts: dict[str, int] = {}
        for side in ("subj", "obj"):
            for bucket in resp.get("aggregations", {}).get(side, {}).get("t", {}).get("buckets", []):
                counts[bucket["key"]] = counts.get(bucket["key"], 0) + int(bucket["doc_count"])
        return [TypeCount(t, n) for t, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]

    def add_aliases(self, aliases: Iterable[Alias]) -> int:
        """Add or replace alias rows (one document per alias and type); return how many were written."""
        rows = list(aliases)
        if not rows:
            return 0
        if not self._call("aliases index check", lambda: self.client.indices.exists(index=self.aliases_index)):
            self._call("aliases index create", lambda: self.client.indices.create(
                index=self.aliases_index, mappings=ALIAS_MAPPING,
                settings={"number_of_shards": 1, "number_of_replicas": self.replicas}))
        written, _ = self._bulk("add_aliases", (
            {"_op_type": "index", "_index": self.aliases_index, "_id": f"{a.alias}#{a.type}",
             "_source": {"alias": a.alias, "type": a.type, "canonical": a.canonical, "mentions": int(a.mentions)}}
            for a in rows))
        return written

    def names_for(self, name: str, limit: int = 50, rules: Sequence[str] = NAME_RULES) -> list[NameMatch]:
        """Names the store holds that `name` may stand for: aliases first, then by prefix and suffix words."""
        out: list[NameMatch] = []
        if "alias" in rules:
            resp = self._call("alias lookup", lambda: self.client.search(
                index=self.aliases_index, ignore_unavailable=True, allow_no_indices=True, size=limit,
                query={"term": {"alias": name}}))
            for hit in resp.get("hits", {}).get("hits", []):
                doc = hit["_source"]
                # The canonical name held under any type (a surname typed a company, merged into a person).
                held = sum(t.count for t in self.argument_types(doc["canonical"]))
                if doc["canonical"] != name and held:
                    out.append(NameMatch(doc["canonical"], doc["type"], held, "alias"))
            out.sort(key=lambda m: (-m.count, m.name, m.type))
        escaped = re.sub(r"([*?\\])", r"\\\1", name)
        for how, clause in (("prefix", lambda side: {"prefix": {side: name + " "}}),
                            ("suffix", lambda side: {"wildcard": {side: {"value": "* " + escaped}}})):
            if how not in rules:
                continue
            body = {"size": 0, "query": {"bool": {"should": [clause("subj"), clause("obj")]}},
                    "aggs": {side: {"filter": clause(side), "aggs": {"n": {
                        "terms": {"field": side, "size": limit},
                        "aggs": {"t": {"terms": {"field": f"{side}_type", "size": 100}}}}}}
                        for side in ("subj", "obj")}}
            found = self._call(f"name {how} lookup", lambda b=body: self.client.search(
                index=self.triples_alias, ignore_unavailable=True, allow_no_indices=True, **b))
            counts: dict[tuple[str, str], int] = {}
            for side in ("subj", "obj"):
                for bucket in found.get("aggregations", {}).get(side, {}).get("n", {}).get("buckets", []):
                    for sub in bucket["t"]["buckets"]:
                        key = (bucket["key"], sub["key"])
                        counts[key] = counts.get(key, 0) + int(sub["doc_count"])
            ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
            out.extend(NameMatch(n, t, c, how) for (n, t), c in ranked)
        return out

    def window_names(self, window: int, days: Days | None = None, limit: int = WINDOW_NAMES) -> list[NameMatch]:
        """The names of the window's triples (or of those dated in `days`), most named first (see the protocol)."""
        if limit <= 0:
            return []
        q = EvidenceQuery(window, "", "", days=days)
        scope = self._evidence_query(q)["bool"]["filter"][:-1]  # the lookup's window or days, without its pair
        body = {"size": 0, "query": {"bool": {"filter": scope}},
                "aggs": {side: {"filter": {"bool": {"must_not": [{"term": {f"{side}_type": COMMON_NOUN_TYPE}}]}},
                                "aggs": {"n": {"terms": {"field": side, "size": limit},
                                               "aggs": {"t": {"terms": {"field": f"{side}_type", "size": 100}}}}}}
                         for side in ("subj", "obj")}}
        found = self._call("window names lookup", lambda: self.client.search(
            index=self._indices_for(q), ignore_unavailable=True, allow_no_indices=True, **body))
        counts: dict[tuple[str, str], int] = {}
        for side in ("subj", "obj"):
            for bucket in found.get("aggregations", {}).get(side, {}).get("n", {}).get("buckets", []):
                for sub in bucket["t"]["buckets"]:  # the filter above left common nouns out
                    key = (bucket["key"], sub["key"])
                    counts[key] = counts.get(key, 0) + int(sub["doc_count"])
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        return [NameMatch(n, t, c, "window") for (n, t), c in ranked]

    def _count(self, alias: str) -> int:
        """Return the number of documents behind `alias` (0 when it does not exist yet)."""
        resp = self._call("count", lambda: self.client.count(
            index=alias, ignore_unavailable=True, allow_no_indices=True))
        return int(resp["count"])

    def stats(self) -> StoreStats:
        """Return the store's totals."""
        ids = [w.id for w in self._windows()]
        return StoreStats(self.backend, f"{self.hosts}/{self.prefix}", self._count(self.triples_alias),
                          self._count(self.articles_alias), len(ids), ids[0] if ids else None,
                          ids[-1] if ids else None)

    def ping(self) -> None:
        """Raise StoreError unless the cluster answers with status yellow or green within the timeout."""
        self._call("health check", lambda: self.client.cluster.health(
            wait_for_status="yellow", timeout=f"{max(1, int(self.request_timeout))}s"))

    def dataset(self) -> str | None:
        """The identity of the dataset this store was filled from (a document of `<prefix>-meta`), or None."""
        try:
            doc = self.client.get(index=self.meta_index, id="dataset")
        except EsNotFoundError:
            return None
        except (ApiError, elastic_transport.TransportError) as exc:
            raise StoreError(f"Elasticsearch at {self.hosts} unreachable reading the store's dataset: {exc}") from exc
        return str(doc["_source"]["identity"])

    def mark_dataset(self, identity: str) -> None:
        """Record the identity of the dataset being added."""
        self._call("recording the dataset", lambda: self.client.index(
            index=self.meta_index, id="dataset", document={"identity": identity}, refresh=True))

    def drop(self) -> None:
        """Delete this prefix's indices, templates and recorded dataset (by their concrete names)."""
        for index in (self.meta_index, self.aliases_index):
            try:
                self.client.indices.delete(index=index)
            except EsNotFoundError:
                pass
            except (ApiError, elastic_transport.TransportError) as exc:
                raise StoreError(f"Elasticsearch at {self.hosts} refused drop: {exc}") from exc
        for kind in ("triples", "articles"):
            try:
                names = sorted(self._call("drop", lambda k=kind: self.client.indices.get(
                    index=f"{self.prefix}-{k}-*", allow_no_indices=True, ignore_unavailable=True)).keys())
            except StoreError:
                names = []
            for name in names:
                self._call("drop", lambda n=name: self.client.indices.delete(index=n))
            try:
                self.client.indices.delete_index_template(name=f"{self.prefix}-{kind}")
            except EsNotFoundError:
                pass
            except (ApiError, elastic_transport.TransportError) as exc:
                raise StoreError(f"Elasticsearch at {self.hosts} refused drop: {exc}") from exc
        self._templates_ready = False
        self._window_cache = (-1e18, {})


def _nodes(url: str, scheme: str, hostinfo: str) -> list[str]:
    """Return `scheme://host:port` for each comma-separated node of a store URL's host part, or raise InputError."""
    nodes = []
    for node in hostinfo.split(","):
        try:
            ok = bool(node) and urlsplit(f"{scheme}://{node}").hostname is not None
            urlsplit(f"{scheme}://{node}").port  # noqa: B018 (raises ValueError on a bad port)
        except ValueError:
            ok = False
        if not ok:
            raise InputError(f"bad Elasticsearch URL {_without_password(url)!r}: expected "
                             "http://host:port[,host:port...][/prefix]")
        nodes.append(f"{scheme}://{node}")
    return nodes


def _without_password(url: str) -> str:
    """Return `url` with any password in it replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)
