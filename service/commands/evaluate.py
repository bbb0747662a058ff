"""`egqa evaluate`: score a benchmark through a running egqa service and report its metrics per scorer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import orjson
import typer
from tqdm import tqdm

from benchmark.build import read_jsonl
from service.evaluate import (EvalConfig, compare_runs, compare_scores, evaluate, format_comparison,
                              format_run_comparison, format_table)


def evaluate_cli(
    dataset: Annotated[Path, typer.Argument(help="Benchmark JSON Lines file (from `egqa benchmark build`).")],
    url: Annotated[str, typer.Option(help="Base URL of the egqa service.")] = "http://127.0.0.1:8000",
    scorer: Annotated[str, typer.Option(help="Comma-separated scorers, e.g. binc,weeds,lin,cos,exact.")] = "binc",
    out: Annotated[Path, typer.Option(help="Output folder (scores.jsonl, report.json, pr_curves.png).")] = Path("out/eval"),
    batch_size: Annotated[int, typer.Option(help="Propositions per HTTP request.")] = 200,
    concurrency: Annotated[int, typer.Option(help="Requests in flight at once.")] = 4,
    retries: Annotated[int, typer.Option(help="Retries per request on connection errors and 5xx.")] = 5,
    exclude_same_predicate: Annotated[bool, typer.Option(help="Also drop evidence with the hypothesis' own predicate.")] = False,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples of bundles for the 95% intervals (0: none).")]
    = 1000,
) -> None:
    """Evaluate scorers on a benchmark over HTTP (resumes an interrupted run in the same --out)."""
    entries = read_jsonl(dataset)
    config = EvalConfig(tuple(s.strip() for s in scorer.split(",") if s.strip()), batch_size, concurrency, retries,
                        exclude_same_predicate=exclude_same_predicate, resamples=resamples)
    with tqdm(total=len(entries) * len(config.scorers), desc="evaluate", unit="prop", dynamic_ncols=True) as bar:
        result = evaluate(entries, url, out, config, progress=bar.update, title=dataset.name)
    typer.echo(format_table(result.report))
    typer.echo(f"{len(entries)} propositions x {len(config.scorers)} scorers in {result.seconds:.1f}s; "
               f"scores: {out / 'scores.jsonl'}  report: {out / 'report.json'}  figure: {out / 'pr_curves.png'}")


def compare_cli(
    scores: Annotated[Path, typer.Argument(help="An `egqa evaluate` output folder (or its scores.jsonl).")],
    baseline: Annotated[str, typer.Option(help="The scorer every other one is set against.")] = "binc",
    scorer: Annotated[str | None, typer.Option(help="Comma-separated scorers to compare (default: all in the run).")]
    = None,
    resamples: Annotated[int, typer.Option(min=1, help="Bootstrap resamples of bundles, shared by both scorers.")]
    = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap draws.")] = 0,
    out: Annotated[Path | None, typer.Option("--out", help="Also write the comparison to this JSON file.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
    against: Annotated[Path | None, typer.Option(
        help="Another `egqa evaluate` run on the same benchmark (a build against the one before): set each scorer "
             "against the same scorer there, paired, instead of against --baseline.")] = None,
) -> None:
    """Compare scorers of a finished evaluation: paired differences with 95% intervals, bundle by bundle."""
    wanted = [s.strip() for s in scorer.split(",") if s.strip()] if scorer else None
    comparison = compare_runs(scores, against, wanted, resamples, seed) if against is not None \
        else compare_scores(scores, baseline, wanted, resamples, seed)
    document = orjson.dumps(comparison, option=orjson.OPT_INDENT_2)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(document)
    if as_json:
        typer.echo(document.decode())
        return
    typer.echo(format_run_comparison(comparison) if against is not None else format_comparison(comparison))
    if out is not None:
        typer.echo(f"comparison: {out}")


def register(app: typer.Typer) -> None:
    """Add the evaluate and compare commands to the CLI."""
    app.command("evaluate")(evaluate_cli)
    app.command("compare")(compare_cli)
