"""`egqa ingest`: stream JSON Lines articles into a running service, or straight into a store (thin wrapper)."""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Annotated

import typer
from tqdm import tqdm

from graph_builder.errors import InputError
from graph_builder.windows import DEFAULT_WINDOW_DAYS
from retrieval.factory import open_store
from service.ingestion.feed import FeedSummary, count_lines, post_records, read_records, store_records
from service.settings import store_password_option


def ingest(
    source: Annotated[str, typer.Argument(metavar="FILE|-", help="JSON Lines articles (id, date, title, text, "
                                          "optional split), or - for standard input.")],
    url: Annotated[str, typer.Option(help="The running service to send the articles to.")] = "http://127.0.0.1:8000",
    api_key: Annotated[str | None, typer.Option(envvar="EGQA_API_KEY", help="The service's API key (EGQA_API_KEY).",
                                                show_default=False)] = None,
    store: Annotated[str | None, typer.Option("--store", help="Write to this store directly instead (sqlite:///path.db "
                                              "or http(s)://host:port[/prefix]; made if absent); no service needed.")]
    = None,
    batch_size: Annotated[int, typer.Option(min=1, help="Articles per request (per extraction task with --store).")] = 100,
    workers: Annotated[int, typer.Option(min=1, help="Extraction processes (with --store).")] = 1,
    window_days: Annotated[int, typer.Option(min=1, help="Window length of the store (with --store).")]
    = DEFAULT_WINDOW_DAYS,
    wait: Annotated[bool, typer.Option("--wait", help="Return only once every accepted article is indexed or "
                                       "rejected.")] = False,
    store_password_file: Annotated[Path | None, typer.Option(envvar="EGQA_STORE_PASSWORD_FILE",
                                                             help="File holding the password of the user the "
                                                                  "--store URL names (http://user@host:port).")] = None,
) -> None:
    """Ingest news articles: into a running service (POST /v1/articles), or with --store straight into a store.
    Re-running the same file adds nothing twice."""
    summary = FeedSummary()
    with ExitStack() as stack:
        handle: IO[bytes]
        if source == "-":
            handle, total = sys.stdin.buffer, None
        else:
            path = Path(source)
            if not path.is_file():
                raise InputError(f"{path}: no such file (give a JSON Lines file, or - for standard input)")
            handle = stack.enter_context(path.open("rb"))
            total = count_lines(handle)
        bar = stack.enter_context(tqdm(total=total, desc="ingest", unit="article", dynamic_ncols=True))
        records = read_records(handle, summary, bar.update)
        if store is not None:
            target = stack.enter_context(open_store(store, password=store_password_option(store_password_file),
                                                    **({"window_days": window_days}
                                                       if store.startswith("sqlite:") else {})))
            # A SQLite store knows its window length; a new one is made with --window-days.
            days = int(getattr(target, "window_days", window_days))
            store_records(records, target, workers=workers, batch_size=min(batch_size, 64), window_days=days,
                          summary=summary, progress=bar.update)
        else:
            post_records(records, url, api_key=api_key, batch_size=batch_size, summary=summary, progress=bar.update,
                         wait=wait)
    typer.echo(f"read {summary.read:,}  accepted {summary.accepted:,}  duplicate {summary.duplicate:,}  "
               f"rejected {summary.rejected:,}  invalid {summary.invalid:,}"
               + (f"  (waited out {summary.waits} busy answers)" if summary.waits else ""))
    if summary.store is not None:
        s = summary.store
        typer.echo(f"store: {s.articles:,} articles extracted, triples {s.triples_read:,} read, {s.triples_added:,} "
                   f"new, in {s.seconds:.1f}s")
    elif wait:
        typer.echo(f"indexed {summary.indexed:,} of {summary.accepted:,} accepted")
    for example in summary.examples:
        typer.echo(f"  not ingested: {example}")


def register(app: typer.Typer) -> None:
    """Add the ingest command to the CLI."""
    app.command()(ingest)
