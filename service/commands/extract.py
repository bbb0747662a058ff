"""`egqa parse` and `egqa extract`: thin wrappers over graph_builder's extraction functions."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import orjson
import typer
from tqdm import tqdm

from graph_builder.entities import ALIASES_FILE, canonicalise
from graph_builder.entity_types import harmonise_types, write_listed
from graph_builder.extraction import DEFAULT_PARSER, PARSERS, ParserName, extract_text
from graph_builder.pipeline import DEFAULT_SHARD_SIZE, collect_listed, extract_corpus
from graph_builder.triples import shard_files
from graph_builder.windows import DEFAULT_WINDOW_DAYS

PARSER_HELP = ("spaCy pipeline the extractor parses with: " + "; ".join(
    f"{spec.name.value} = {spec.description}" for spec in PARSERS.values()) + " (docs/extraction.md compares them).")


def parse(
    text: Annotated[str, typer.Argument(help="Text to parse into typed triples.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list of triples.")] = False,
    parser: Annotated[ParserName, typer.Option(help=PARSER_HELP)] = DEFAULT_PARSER,
) -> None:
    """Print the typed triples egqa extracts from TEXT."""
    triples = extract_text(text, parser.value)
    if as_json:
        keys = ("subject", "predicate", "object", "subject_type", "object_type", "negated")
        typer.echo(orjson.dumps([{k: t[k] for k in keys} for t in triples]).decode())
        return
    for t in triples:
        typer.echo(f"{t['subject']} [{t['subject_type']}]  {t['predicate']}  {t['object']} [{t['object_type']}]"
                   f"    <- {t['predicate_text']!r}")
    if not triples:
        typer.echo("no triples (a triple needs a predicate and two arguments, one a named entity)")


def extract(
    corpus: Annotated[list[Path], typer.Argument(metavar="CORPUS",
                                                 help="Corpus files or folders (.sgm Reuters, .jsonl articles).")],
    out: Annotated[Path, typer.Option("--out", help="Output folder of the triples dataset.")],
    workers: Annotated[int, typer.Option(help="Local worker processes (0 = all cores).")] = 0,
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address, e.g. tcp://host:8786.")] = None,
    window_days: Annotated[int, typer.Option(help="Context window length in days.")] = DEFAULT_WINDOW_DAYS,
    shard_size: Annotated[int, typer.Option(help="Articles per shard.")] = DEFAULT_SHARD_SIZE,
    parser: Annotated[ParserName, typer.Option(help=PARSER_HELP)] = DEFAULT_PARSER,
    overwrite: Annotated[bool, typer.Option(help="Replace a dataset built from another corpus or settings.")] = False,
    eval_from: Annotated[dt.datetime | None, typer.Option(
        formats=["%Y-%m-%d"], metavar="YYYY-MM-DD", help="Label articles without a split of their own TRAIN (graph induction) before this "
        "date and TEST (evaluation) from it on, e.g. 2012-01-01 for reuters_ding2014.")] = None,
    entities: Annotated[bool, typer.Option("--entities/--no-entities", help="End with the canonical-entities pass "
                                           "(`egqa entities`): one name per participant.")] = True,
) -> None:
    """Extract typed triples from a corpus into a Parquet dataset (resumes an interrupted run)."""
    with tqdm(desc="read and clean", unit="record", dynamic_ncols=True) as reading, \
            tqdm(desc="extract", unit="article", dynamic_ncols=True) as bar:
        summary = extract_corpus(corpus, out, workers=workers or None, scheduler=scheduler, model=parser.value,
                                 window_days=window_days, shard_size=shard_size, overwrite=overwrite,
                                 eval_from=eval_from.date() if eval_from else None, progress=bar.update,
                                 total=_set_total(bar), canonical=entities,
                                 reading=reading.update, reading_total=_set_total(reading))
    read = summary.read
    typer.echo(f"articles {summary.articles:,}  sentences {summary.sentences:,}  tokens {summary.tokens:,}  "
               f"triples {summary.triples:,}  in {summary.seconds:.1f}s "
               f"({summary.shards} shards, {summary.shards_resumed} resumed"
               f"{'; the extraction of other settings there replaced' if summary.replaced else ''})")
    typer.echo(f"skipped records: {read['skipped_total']} {read['skipped']}")
    typer.echo(f"argument types: {summary.type_counts}")
    typer.echo(f"types made one per name: {summary.types.get('changed', 0):,} of {summary.types.get('mentions', 0):,} "
               f"mentions changed ({summary.types.get('names', 0):,} names)")
    if summary.entities:
        typer.echo(_entities_line(summary.entities))
    typer.echo(f"dataset: {out}  (report.json has the details)")


def _set_total(bar: tqdm) -> Callable[[int], None]:
    """A callback that gives `bar` its total once it is known."""
    def set_total(n: int) -> None:
        bar.total = n
        bar.refresh()
    return set_total


def _entities_line(report: dict[str, object]) -> str:
    by_rule = report.get("by_rule") or {}
    rules = ", ".join(f"{rule} {n:,}" for rule, n in sorted(by_rule.items(), key=lambda kv: -kv[1]))  # type: ignore[union-attr]
    return (f"canonical entities: {report['changed']:,} of {report['mentions']:,} mentions renamed ({rules}); "
            f"names {report['names_before']:,} -> {report['names_after']:,}; {report['aliases']:,} aliases")


def types(
    triples: Annotated[Path, typer.Argument(help="Triples dataset folder written by `egqa extract`.")],
    corpus: Annotated[list[Path] | None, typer.Option(
        help="Count again the names written before a ticker in these corpus files or folders (repeat the option): "
             "for a dataset extracted before egqa kept them, or to replace them.")] = None,
    workers: Annotated[int, typer.Option(help="Processes reading --corpus (0: one per core).")] = 0,
) -> None:
    """Give every capitalised mention of a name its corpus-wide type (run by `egqa extract` too)."""
    if corpus:
        shard_files(triples)  # a folder without a dataset fails here, before the corpus is read
        with tqdm(desc="read tickers", unit="record", dynamic_ncols=True) as bar:
            listed = collect_listed(corpus, workers=workers or None, progress=bar.update, total=_set_total(bar))
        write_listed(triples, listed)
        typer.echo(f"names written before a ticker: {len({name for name, _ in listed}):,} "
                   f"({sum(listed.values()):,} mentions)")
    report = harmonise_types(triples)
    typer.echo(f"{report.names:,} names ({report.listed:,} organisations by their tickers); {report.changed:,} of "
               f"{report.mentions:,} mentions changed type: "
               f"{dict(sorted(report.changes.items(), key=lambda kv: -kv[1])[:8])}")


def entities(
    triples: Annotated[Path, typer.Argument(help="Triples dataset folder written by `egqa extract`.")],
) -> None:
    """Give every entity one canonical name: legal forms, common-noun heads, short forms (run by `egqa extract` too).
    The names' types are given again first, as extraction gives them: a run on the pass's own output then starts from
    the same names and types as the first (the pass retypes a surname it merges into a person)."""
    files = shard_files(triples)
    types_report = harmonise_types(triples)
    typer.echo(f"types given again: {types_report.changed:,} of {types_report.mentions:,} mentions changed type")
    with tqdm(total=len(files), desc="entities", unit="shard", dynamic_ncols=True) as bar:
        report = canonicalise(triples, progress=bar.update)
    typer.echo(_entities_line(report.to_dict()))
    typer.echo(f"aliases: {triples / ALIASES_FILE}  (the manifest records {report.version})")


def register(app: typer.Typer) -> None:
    """Add the extraction commands to the CLI."""
    app.command()(extract)
    app.command()(parse)
    app.command()(types)
    app.command()(entities)
