"""A JSON Lines feed of articles into a running service (POST /v1/articles) or straight into a store.

Both read the corpus JSON Lines shape, check each record with the API's own schema (a bad line is counted and
named, never sent), and keep going after what a service answers when busy (429: wait Retry-After, then send the
same batch again). Sending a file twice adds nothing twice: the service answers `duplicate`, a store skips the
triple ids it holds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO

import httpx
import orjson
from pydantic import ValidationError

from graph_builder.corpus import Article
from graph_builder.live import prepare, text_key
from retrieval.ingest import ArticleSummary, ingest_articles
from retrieval.protocol import EvidenceStore
from service.errors import ServiceUnreachable
from service.schemas import ArticleIn

log = logging.getLogger(__name__)
MAX_EXAMPLES = 5
CONNECT_RETRIES = 5
RECEIPT_STATUSES = ("accepted", "duplicate", "rejected")


@dataclass
class FeedSummary:
    """What a feed run did: records read, and each one's fate."""

    read: int = 0
    accepted: int = 0
    duplicate: int = 0
    rejected: int = 0
    invalid: int = 0
    waits: int = 0  # 429 answers waited out
    indexed: int = 0  # with --wait: accepted articles indexed before the command ended
    examples: list[str] = field(default_factory=list)  # a few invalid or rejected records and why
    store: ArticleSummary | None = None

    def note(self, text: str) -> None:
        """Keep a few examples of records not ingested."""
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(text)


def read_records(lines: Iterable[bytes], summary: FeedSummary,
                 progress: Callable[[int], object] | None = None) -> Iterator[ArticleIn]:
    """The valid records of a JSON Lines stream; each invalid line is counted (and shown as progress) and a few
    are named."""
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        summary.read += 1
        try:
            yield ArticleIn.model_validate(orjson.loads(raw))
        except orjson.JSONDecodeError as exc:
            summary.invalid += 1
            summary.note(f"line {number}: not JSON ({exc})")
            if progress is not None:
                progress(1)
        except ValidationError as exc:
            summary.invalid += 1
            first = exc.errors(include_url=False)[0]
            summary.note(f"line {number}: {'.'.join(str(p) for p in first['loc']) or 'record'}: {first['msg']}")
            if progress is not None:
                progress(1)


def count_lines(handle: IO[bytes]) -> int:
    """Non-empty lines of a seekable file (for the progress bar's total); the file is rewound."""
    total = sum(1 for line in handle if line.strip())
    handle.seek(0)
    return total


def _batches(records: Iterable[ArticleIn], size: int) -> Iterator[list[ArticleIn]]:
    batch: list[ArticleIn] = []
    for record in records:
        batch.append(record)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def post_records(records: Iterable[ArticleIn], url: str, *, api_key: str | None = None, batch_size: int = 100,
                 summary: FeedSummary, progress: Callable[[int], object] | None = None, wait: bool = False,
                 timeout: float = 60.0) -> FeedSummary:
    """Send records to the service at `url` in batches, waiting out 429s; with `wait`, poll until every accepted
    article is indexed or rejected."""
    headers = {"X-API-Key": api_key} if api_key else {}
    accepted: list[str] = []
    with httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout) as client:
        for n, batch in enumerate(_batches(records, batch_size)):
            body = orjson.dumps({"articles": [r.model_dump(mode="json", exclude_none=True) for r in batch]})
            response = _send(client, body, summary, retries=CONNECT_RETRIES if n else 0)
            for receipt in response.json()["articles"]:
                status = receipt["status"]
                if status in RECEIPT_STATUSES:
                    setattr(summary, status, getattr(summary, status) + 1)
                if receipt["status"] == "accepted":
                    accepted.append(receipt["id"])
                elif receipt["status"] == "rejected":
                    summary.note(f"{receipt['id']}: {receipt['reason']}")
            if progress is not None:
                progress(len(batch))
        if wait:
            summary.indexed, rejected = _wait_indexed(client, accepted)
            summary.rejected += rejected
    return summary


def _send(client: httpx.Client, body: bytes, summary: FeedSummary, retries: int) -> httpx.Response:
    """POST one batch: wait out 429 (Retry-After) and up to `retries` connection failures (a service restarting
    mid-feed; the first batch gets none: no service there is said at once); any other failure raises."""
    failures = 0
    while True:
        try:
            response = client.post("/v1/articles", content=body, headers={"Content-Type": "application/json"})
        except httpx.TransportError as exc:
            failures += 1
            if failures > retries:
                raise ServiceUnreachable(f"{client.base_url}: no answer ({type(exc).__name__}: {exc}) after "
                                         f"{retries} retries; is `egqa serve` running there?") from exc
            time.sleep(min(2 ** failures, 30))
            continue
        if response.status_code == 429:
            summary.waits += 1
            time.sleep(float(response.headers.get("Retry-After", "5")))
            continue
        if response.status_code != 202:
            try:
                message = response.json()["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = response.text[:300]
            raise ServiceUnreachable(f"{client.base_url} answered {response.status_code}: {message}")
        return response


def _wait_indexed(client: httpx.Client, ids: list[str], poll: float = 0.2) -> tuple[int, int]:
    """Wait for the accepted articles one by one, in the order sent (the queue's order, so one GET usually finds
    the next done too); return (indexed, rejected)."""
    indexed = rejected = 0
    for article_id in ids:
        while True:
            status = client.get(f"/v1/articles/{article_id}").json().get("status")
            if status != "queued":
                break
            time.sleep(poll)
        indexed += status == "indexed"
        rejected += status == "rejected"
    return indexed, rejected


def store_records(records: Iterable[ArticleIn], store: EvidenceStore, *, workers: int = 1, batch_size: int = 32,
                  window_days: int = 3, summary: FeedSummary,
                  progress: Callable[[int], object] | None = None) -> FeedSummary:
    """Extract records in worker processes straight into `store` (no service): duplicates within the input (same
    id, same cleaned text) are dropped, and triple ids the store holds are skipped."""
    seen_ids: set[str] = set()
    seen_texts: set[str] = set()

    def usable() -> Iterator[Article]:
        for record in records:
            prepared = prepare(record.id, record.date, record.title, record.text, record.split, window_days)
            if record.id in seen_ids or (prepared.text_key is not None and prepared.text_key in seen_texts):
                summary.duplicate += 1
                if progress is not None:
                    progress(1)
                continue
            seen_ids.add(record.id)
            if prepared.article is None:
                summary.rejected += 1
                summary.note(f"{record.id}: {prepared.reason}")
                if progress is not None:
                    progress(1)
                continue
            seen_texts.add(text_key(prepared.article.text))
            summary.accepted += 1
            yield prepared.article

    summary.store = ingest_articles(usable(), store, workers=workers, batch_size=batch_size, window_days=window_days,
                                    progress=progress)
    summary.indexed = summary.store.articles
    return summary
