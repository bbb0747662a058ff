"""`egqa index`: load a triples dataset into an evidence store (thin wrapper over retrieval.ingest)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from tqdm import tqdm

from retrieval.factory import DEFAULT_STORE_URL, open_store
from retrieval.ingest import DEFAULT_BATCH_SIZE, count_triples, index_dataset
from service.settings import store_password_option


def index(
    triples: Annotated[Path, typer.Argument(help="Triples dataset folder (from `egqa extract`).")],
    store: Annotated[str, typer.Option("--store", help="Store URL: sqlite:///path.db or http(s)://host:port[,host:port...][/prefix][?replicas=n].")]
    = DEFAULT_STORE_URL,
    batch_size: Annotated[int, typer.Option(help="Triples per write batch.")] = DEFAULT_BATCH_SIZE,
    split: Annotated[str | None, typer.Option(help="Only these corpus splits, comma-separated (e.g. TEST: an "
                                                   "evaluation store without the graph-induction period).")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Empty the store first (after a re-extraction: a "
                                                            "store filled from another dataset is refused).")]
    = False,
    store_password_file: Annotated[Path | None, typer.Option(envvar="EGQA_STORE_PASSWORD_FILE",
                                                             help="File holding the password of the user the "
                                                                  "store URL names (http://user@host:port).")] = None,
) -> None:
    """Add every triple of a dataset to an evidence store (re-running adds nothing twice)."""
    total = count_triples(triples)
    splits = tuple(x.strip() for x in split.split(",") if x.strip()) if split else None
    password = store_password_option(store_password_file)
    with open_store(store, password=password) as target, tqdm(total=total, desc="index", unit="triple", dynamic_ncols=True) as bar:
        summary = index_dataset(triples, target, batch_size=batch_size, progress=bar.update, splits=splits,
                                replace=replace)
    s = summary.stats
    typer.echo(f"triples read {summary.triples_read:,}  added {summary.triples_added:,}  "
               f"already stored {summary.triples_skipped:,}  articles {summary.articles:,}  "
               f"in {summary.seconds:.1f}s ({summary.rate:,.0f} triples/s)")
    typer.echo(f"store {s.backend} {s.location}: {s.triples:,} triples, {s.articles:,} articles, "
               f"{s.windows:,} windows ({s.first_window}..{s.last_window})")


def register(app: typer.Typer) -> None:
    """Add the index command to the CLI."""
    app.command()(index)
