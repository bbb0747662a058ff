"""`egqa graph build|show|top|stats|import|embed|combine|export|eval-levyholt`: thin wrappers over graph_builder.graphs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from enum import Enum

import orjson
import typer

from benchmark.levyholt import FORMATS as LEVYHOLT_FORMATS
from graph_builder.errors import InputError
from graph_builder.graphs.build import (DEFAULT_COUNT_PARTITION_ROWS, DEFAULT_MIN_SCORE, DEFAULT_TOP_K, DEFAULT_WORKERS,
                                        BuildParams, build_graphs)
from graph_builder.graphs.combined import DEFAULT_C, DEFAULT_COMPONENTS, DEFAULT_FOLDS, DEFAULT_MIN_GAIN
from graph_builder.graphs.completion import CompletionParams
from graph_builder.graphs.globalstep import GlobalParams
from graph_builder.graphs.graphset import GraphSet, edge_stats, parse_types, strongest_edges
from graph_builder.graphs.importers import IMPORTERS
from graph_builder.tables import render, table

# The --format choices, built from the registries that read them.
ImportFormat = Enum("ImportFormat", {name: name for name in IMPORTERS}, type=str)  # type: ignore[misc]
LevyHoltFormat = Enum("LevyHoltFormat", {**{name: name for name in LEVYHOLT_FORMATS}, "both": "both"},  # type: ignore[misc]
                      type=str)

graph_app = typer.Typer(help="Typed entailment graphs: build, inspect, import, embed, export, evaluate.",
                        no_args_is_help=True)


@graph_app.command("build")
def build(
    triples: Annotated[Path, typer.Argument(help="Triples dataset folder (part-*.parquet).")],
    out: Annotated[Path, typer.Option("--out", help="Output folder of the graph set.")],
    min_predicates_per_pair: Annotated[int, typer.Option(help="Cutoff 1: argument pairs need this many distinct predicates.")] = 3,
    min_pairs_per_predicate: Annotated[int, typer.Option(help="Cutoff 2: predicates need this many surviving argument pairs.")] = 3,
    top_k: Annotated[int, typer.Option(min=0, help="Keep at most this many neighbours per node, best first by "
                                                   "(-score, id), in every measure; 0 keeps all (no pruning).")] = DEFAULT_TOP_K,
    min_score: Annotated[float, typer.Option(min=0.0, help="Drop edges scoring below this in every measure; "
                                                           "0 keeps all. --top-k 0 --min-score 0 builds the unpruned graphs.")] = DEFAULT_MIN_SCORE,
    min_shared_features: Annotated[int, typer.Option(help="Clean measures and global: an edge needs this many "
                                                          "shared argument pairs that count.")] = 1,
    measures: Annotated[str, typer.Option(help="Comma-separated measures (global needs binc_clean).")] = "binc,weeds,lin,cos,binc_clean,global",
    global_iterations: Annotated[int, typer.Option(help="Rounds of the global step.")] = 4,
    global_lambda1: Annotated[float, typer.Option(help="Global step: sparsity weight.")] = 0.01,
    global_lambda2: Annotated[float, typer.Option(help="Global step: paraphrase-resolution weight.")] = 1.5,
    global_epsilon: Annotated[float, typer.Option(help="Global step: paraphrase threshold.")] = 0.3,
    lp_rank: Annotated[int, typer.Option(min=1, help="_lp measures (link prediction): latent dimensions of the "
                                                     "factorisation.")] = CompletionParams.rank,
    lp_per_row: Annotated[float, typer.Option(min=0.0, help="_lp measures: argument pairs added per predicate, as a "
                                                            "multiple of those it has.")] = CompletionParams.per_row,
    lp_max_per_row: Annotated[int, typer.Option(min=1, help="_lp measures: at most this many added per "
                                                            "predicate.")] = CompletionParams.max_per_row,
    lp_min_value: Annotated[float, typer.Option(min=0.0, help="_lp measures: predicted log(1 + count) an added "
                                                              "pair needs.")] = CompletionParams.min_value,
    count_partition_rows: Annotated[int, typer.Option(min=1, help="Counting memory bound: triples counted per chunk "
                                                              "and per on-disk hash partition (partitions = input "
                                                              "rows / this). Does not change the output.")] = DEFAULT_COUNT_PARTITION_ROWS,
    workers: Annotated[int, typer.Option(min=1, help="Graphs scored at once, each in a process of its own (large "
                                                    "builds only). Does not change the output.")] = DEFAULT_WORKERS,
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address, e.g. tcp://host:8786.")] = None,
    split: Annotated[str | None, typer.Option(help="Only triples of these corpus splits, comma-separated "
                                                   "(e.g. TRAIN: keep the evaluation period out of the graphs).")] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing graph set at --out.")] = False,
    untyped: Annotated[bool, typer.Option(help="Also build the untyped set into <out>/untyped: one graph with every "
                                               "argument's type set aside, which the `+untyped` scorers back off "
                                               "to where the typed graphs ground a pair nowhere.")] = False,
) -> None:
    """Build one entailment graph per type pair from a triples dataset."""
    splits = tuple(x.strip() for x in split.split(",") if x.strip()) if split else None
    params = BuildParams(min_predicates_per_pair=min_predicates_per_pair,
                         min_pairs_per_predicate=min_pairs_per_predicate, top_k=top_k or None, min_score=min_score,
                         min_shared_features=min_shared_features,
                         measures=tuple(m.strip() for m in measures.split(",") if m.strip()), splits=splits,
                         global_step=GlobalParams(lambda1=global_lambda1, lambda2=global_lambda2,
                                                  epsilon=global_epsilon, iterations=global_iterations),
                         completion=CompletionParams(rank=lp_rank, per_row=lp_per_row, max_per_row=lp_max_per_row,
                                                     min_value=lp_min_value),
                         count_partition_rows=count_partition_rows, workers=workers)
    summary = build_graphs(triples, out, params, scheduler=scheduler, overwrite=overwrite, with_untyped=untyped)
    for built in (summary, summary.untyped):
        if built is not None:
            edges = "  ".join(f"{k} {v:,}" for k, v in built.edges.items())
            typer.echo(f"triples {built.triples:,}  graphs {built.graphs:,}  nodes {built.nodes:,}  edges: {edges}")
            typer.echo(f"graph set: {built.out}")


@graph_app.command("show")
def show(
    graphs: Annotated[Path, typer.Argument(help="Graph set folder.")],
    predicate: Annotated[str, typer.Option("--predicate", help="Predicate, e.g. (visit.1,visit.2).")],
    types: Annotated[str, typer.Option("--types", help="Slot types, e.g. person#location.")],
    measure: Annotated[str | None, typer.Option(help="Measure (default binc, or the set's only one).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print every edge of the node as JSON.")] = False,
    limit: Annotated[int, typer.Option(help="Edges per direction in the text view.")] = 10,
) -> None:
    """Show the predicates a typed predicate entails and is entailed by, best first."""
    result = show_node(GraphSet.load(graphs), predicate, types, measure)
    if as_json:
        typer.echo(orjson.dumps(result).decode())
        return
    typer.echo(f"{predicate}#{types}  [{result['measure']}]")
    for key, arrow in (("entails", "->"), ("entailed_by", "<-")):
        edges = result[key]
        typer.echo(f"{key} ({len(edges)}):")
        for edge in edges[:limit]:
            opposite = "  (antonyms: every graph scorer gives 0)" if edge["antonym"] else ""
            typer.echo(f"  {arrow} {edge['score']:.4f}  {edge['predicate']}{opposite}")


@graph_app.command("top")
def top(
    graphs: Annotated[Path, typer.Argument(help="Graph set folder.")],
    measure: Annotated[str | None, typer.Option(help="Measure (default binc, or the set's only one).")] = None,
    n: Annotated[int, typer.Option("-n", help="How many edges.")] = 20,
    ties: Annotated[str, typer.Option(help="Order of equal scores: support (the rarer side's triple count, "
                                           "larger first) or name.")] = "support",
    as_json: Annotated[bool, typer.Option("--json", help="Print the edges as JSON.")] = False,
) -> None:
    """List the N strongest edges of a graph set (self-edges skipped), with the reverse score and the support
    (the triple count of the edge's rarer side), equal scores ordered by --ties."""
    edges = strongest_edges(GraphSet.load(graphs), measure, n, ties)
    if as_json:
        typer.echo(orjson.dumps(edges).decode())
        return
    for e in edges:
        typer.echo(f"{e['score']:.4f}  (rev {e['reverse']:.4f}, support {e['support']})  {e['premise']}  ->  "
                   f"{e['hypothesis']}   [{e['graph']}]")


@graph_app.command("stats")
def stats(
    graphs: Annotated[Path, typer.Argument(help="Graph set folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Per measure: edges, predicate pairs at 1.0 both ways, edges between a predicate and its NEG__ form."""
    graphset = GraphSet.load(graphs)
    rows = [edge_stats(graphset, m) for m in graphset.measures]
    if as_json:
        typer.echo(orjson.dumps(rows).decode())
        return
    numbers = ("edges", "1.0 both ways", ">=0.99 both", "NEG edges")
    typer.echo(render(table(("measure", *numbers), right=numbers, rows=[
        (r["measure"], f"{r['edges']:,}", f"{r['pairs_at_1_both_ways']:,}", f"{r['pairs_near_1_both_ways']:,}",
         f"{r['neg_edges']:,}") for r in rows])))


def show_node(graphset: GraphSet, predicate: str, types: str, measure: str | None) -> dict[str, object]:
    """Return the `graph show --json` document of one node."""
    measure = graphset.check_measure(measure)
    a, b = parse_types(types)
    return {
        "predicate": predicate, "types": f"{a}#{b}", "measure": measure,
        "entails": graphset.edges(predicate, (a, b), measure, "entails"),
        "entailed_by": graphset.edges(predicate, (a, b), measure, "entailed_by"),
    }


@graph_app.command("import")
def import_(
    src: Annotated[Path, typer.Argument(help="Published graph files (hosseini: folder or *_sim.txt; berant: edge list).")],
    out: Annotated[Path, typer.Option("--out", help="Output folder of the graph set.")],
    fmt: Annotated[ImportFormat, typer.Option("--format", help="Which published graphs SRC holds.")]
    = ImportFormat("hosseini"),
    overwrite: Annotated[bool, typer.Option(help="Replace an existing graph set at --out.")] = False,
) -> None:
    """Import published entailment graphs into egqa's artefact format."""
    manifest = IMPORTERS[fmt.value](src, out, overwrite=overwrite)
    totals = manifest["totals"]
    edges = "  ".join(f"{k} {v:,}" for k, v in totals["edges"].items())
    typer.echo(f"graphs {totals['graphs']:,}  nodes {totals['nodes']:,}  edges: {edges}  "
               f"(source rules {manifest['source'].get('rules', 'n/a')})")


@graph_app.command("embed")
def embed(
    graphs: Annotated[Path, typer.Argument(help="Graph set folder; embeddings go to <graphs>/embeddings.")],
    batch_size: Annotated[int, typer.Option(help="Predicate texts per progress step.")] = 256,
) -> None:
    """Embed every node's predicate words with the sentence model (the `lm` extra) for premise smoothing."""
    from graph_builder.embeddings import embed_graphset

    if batch_size < 1:
        raise InputError("--batch-size must be 1 or more")
    manifest = embed_graphset(graphs, batch_size=batch_size)
    nodes = sum(g["nodes"] for g in manifest["graphs"].values())
    typer.echo(f"graphs {len(manifest['graphs']):,}  nodes {nodes:,}  distinct predicate texts {manifest['texts']:,}  "
               f"model {manifest['model']} ({manifest['encoder']})")
    typer.echo(f"embeddings: {graphs / 'embeddings'}")


@graph_app.command("combine")
def combine(
    evaluation: Annotated[Path, typer.Argument(help="An `egqa evaluate` output folder (or its scores.jsonl) on the "
                                                    "split to fit on, holding every component's scores.")],
    graphs: Annotated[Path, typer.Option("--graphs", help="The graph set the evaluation was served with; "
                                                          "combined.json goes there.")],
    components: Annotated[str, typer.Option(help="Comma-separated component scorers.")]
    = ",".join(DEFAULT_COMPONENTS),
    c: Annotated[float, typer.Option("--c", help="Inverse L2 strength of the logistic regression.")] = DEFAULT_C,
    check: Annotated[list[Path] | None, typer.Option("--check", help="Another evaluation (e.g. the test split) to "
                                                                      "score with the fitted weights; repeatable.")]
    = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Fit and report without writing combined.json.")] = False,
    select: Annotated[str | None, typer.Option(
        "--select", help="Choose the components instead, by forward selection among these comma-separated "
                         "candidates ('all': every scorer of the evaluation), cross-validated over bundles of the "
                         "fit split alone.")] = None,
    folds: Annotated[int, typer.Option(help="Cross-validation folds of --select.")] = DEFAULT_FOLDS,
    min_gain: Annotated[float, typer.Option(help="AP_norm points a component must add to be chosen (--select).")]
    = DEFAULT_MIN_GAIN,
) -> None:
    """Fit the `combined` scorer: a logistic regression over component scorers' answers on a benchmark split."""
    from service.combine import fit_from_evaluation, format_fit, format_selection, select_components

    names = [n.strip() for n in components.split(",") if n.strip()]
    if select is not None:
        pool = [] if select.strip() == "all" else [n.strip() for n in select.split(",") if n.strip()]
        selection = select_components(evaluation, graphs, pool, folds=folds, min_gain=min_gain, c=c)
        typer.echo(format_selection(selection) + "\n")
        names = selection.components
    result = fit_from_evaluation(evaluation, graphs, names, c=c, checks=check or [], write=not dry_run)
    typer.echo(format_fit(result))


@graph_app.command("export")
def export(
    graphs: Annotated[Path, typer.Argument(help="Graph set folder.")],
    graphml: Annotated[Path, typer.Option("--graphml", help="Output folder for one .graphml file per graph.")],
    measure: Annotated[str | None, typer.Option(help="Measure to export (default binc).")] = None,
) -> None:
    """Export graphs as GraphML (networkx), one file per type pair, edge attribute `score`."""
    from graph_builder.graphs.export import export_graphml

    paths = export_graphml(GraphSet.load(graphs), graphml, measure)
    typer.echo(f"wrote {len(paths)} GraphML file(s) to {graphml}")


@graph_app.command("eval-levyholt")
def eval_levyholt(
    graphs: Annotated[Path, typer.Argument(help="Graph set folder.")],
    data_dir: Annotated[Path, typer.Argument(help="LevyHolt folder (with dev/ and dev_dir/) or one of them.")],
    fmt: Annotated[LevyHoltFormat, typer.Option("--format", help="rels (the published predicates), s (the "
                                                                 "sentences, parsed by our extractor) or both.")]
    = LevyHoltFormat("rels"),
    png: Annotated[Path | None, typer.Option(help="PR curve PNG (default: <graphs>/levyholt_<set>_<format>.png).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False,
    measures: Annotated[str | None, typer.Option(help="Comma-separated measures (default: every measure of the set).")] = None,
    long: Annotated[bool, typer.Option("--long", help="One row per set and measure with every metric.")] = False,
    lm: Annotated[bool, typer.Option("--lm", help="Add <measure>+smooth (needs `egqa graph embed`) and lm_cosine "
                                                  "rows (the `lm` extra).")] = False,
    smooth_k: Annotated[int, typer.Option(help="Premise smoothing: nearest nodes per unseen premise.")] = 4,
    smooth_min_cosine: Annotated[float, typer.Option(help="Premise smoothing: least cosine of a neighbour.")] = 0.5,
) -> None:
    """Score LevyHolt premise->hypothesis pairs with every measure; print them side by side per set."""
    from benchmark.levyholt import evaluate_levyholt, format_side_by_side, format_table
    from graph_builder.graphs.graphset import check_smoothing

    check_smoothing(smooth_k, smooth_min_cosine)
    formats = tuple(LEVYHOLT_FORMATS) if fmt.value == "both" else (fmt.value,)
    chosen = [m.strip() for m in measures.split(",") if m.strip()] if measures else None
    encoder = None
    if lm:
        from graph_builder.embeddings import load_encoder

        encoder = load_encoder()
    rows = evaluate_levyholt(GraphSet.load(graphs), data_dir, formats, png, measures=chosen, encoder=encoder,
                             smooth_k=smooth_k, smooth_min_cosine=smooth_min_cosine)
    if as_json:
        typer.echo(orjson.dumps(rows).decode())
    else:
        typer.echo(format_table(rows) if long else format_side_by_side(rows))


def register(app: typer.Typer) -> None:
    """Add the `graph` command group to the CLI."""
    app.add_typer(graph_app, name="graph")
