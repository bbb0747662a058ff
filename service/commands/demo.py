"""`egqa demo`: the whole loop on a corpus, end to end (the README's main command)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

from service.demo import format_example, run_demo
from service.evaluate import format_table


_UNITS = {"read": "record", "extract": "article", "evaluate": "prop"}


def demo(
    corpus: Annotated[Path | None, typer.Argument(help="Corpus file or folder; else $EGQA_CORPUS; else Reuters-21578 is downloaded.")] = None,
    out: Annotated[Path, typer.Option(help="Folder for every artefact of the run.")] = Path("out/demo"),
) -> None:
    """Extract -> build graphs -> index -> serve -> build benchmark -> evaluate over HTTP -> report."""
    bars: list[tqdm] = []

    def progress(name: str, total: int | None) -> Callable[[int], None]:
        while bars:  # one bar at a time: the previous step is over
            bars.pop().close()
        bars.append(tqdm(desc=f"   {name}", total=total, unit=_UNITS.get(name, "it"), dynamic_ncols=True))
        return bars[-1].update

    def say(text: str) -> None:
        while bars:
            bars.pop().close()
        typer.echo(text)

    try:
        with logging_redirect_tqdm():  # log lines printed above the bars, never through them
            result = run_demo(corpus, out, say=say, progress_factory=progress)
    finally:
        while bars:
            bars.pop().close()
    typer.echo("\nThe benchmark (BoOQA-style, built from this corpus):")
    typer.echo(result.benchmark_stats.table())
    typer.echo("")
    typer.echo(format_table(result.evaluation.report))
    typer.echo(f"\nprecision-recall figure: {out / 'eval' / 'pr_curves.png'}")
    typer.echo(f"scores: {out / 'eval' / 'scores.jsonl'}   report: {out / 'eval' / 'report.json'}")
    for source, header in (("benchmark", "true test propositions answered through an entailment edge "
                                         "(the same predicate left out)"),
                           ("graph", "questions only an entailment edge answers (evidence with the question's "
                                     "own predicate left out)")):
        shown = [e for e in result.examples if e.get("source", "benchmark") == source]
        if shown:
            typer.echo(f"\n{_count(len(shown))} {header}:")
            for example in shown:
                typer.echo(format_example(example))
    if result.why_tie:
        typer.echo(f"\n{result.why_tie}")
    typer.echo(f"\nAsk your own: egqa serve --graphs {out / 'graphs'} --store sqlite:///{out / 'evidence.db'}, then\n"
               f"  curl -s localhost:8000/v1/query -H 'content-type: application/json' "
               f"-d '{{\"text\": \"...\", \"date\": \"YYYY-MM-DD\"}}'")
    typer.echo(f"or open the web page (ask, see why, walk the graphs):\n  http://127.0.0.1:8000/{result.page_query}")


def _count(n: int) -> str:
    """`One`, `Two`, `Three`, else the figure."""
    return {1: "One", 2: "Two", 3: "Three"}.get(n, str(n))


def register(app: typer.Typer) -> None:
    """Add the demo command to the CLI."""
    app.command()(demo)
