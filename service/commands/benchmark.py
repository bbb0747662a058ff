"""`egqa benchmark build` and `egqa benchmark audit`: thin wrappers over the benchmark package."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import orjson
import typer

from benchmark.build import (
    CAP_KEYS,
    DEFAULT_BUCKET_SCALE,
    DEFAULT_RECIPE,
    RECIPES,
    BuildConfig,
    recipe_config,
    scaled_bucket_bounds,
)
from benchmark.negatives import NEGATIVE_FILTERS
from benchmark.senses import SENSE_CHOOSERS

_DEFAULTS = BuildConfig()


def build(
    triples: Annotated[Path, typer.Argument(help="Triples dataset folder (from `egqa extract`).")],
    out: Annotated[Path, typer.Option("--out", help="Output folder: dev.jsonl, test.jsonl, stats.json.")],
    recipe: Annotated[str, typer.Option(metavar="|".join(RECIPES), help=(
        "Named choices: `wordnet` (hyponyms of the sense the sentence agrees with, buckets matched; large) or "
        "`read` (only replacements read by hand as more specific; small, trusted negatives) or `checked` (`read`, "
        "keeping the negatives two readers judged may well be false in their window). Options given here override "
        "the recipe's."))] = DEFAULT_RECIPE,
    min_pair_articles: Annotated[int, typer.Option(help="Starring pair: articles in the window (paper 15).")]
    = _DEFAULTS.min_pair_articles,
    min_pair_predicates: Annotated[int, typer.Option(help="Starring pair: distinct predicates in the window (paper 15).")]
    = _DEFAULTS.min_pair_predicates,
    min_predicate_pairs: Annotated[int, typer.Option(help="Felicitous predicate: distinct argument pairs (paper 30).")]
    = _DEFAULTS.min_predicate_pairs,
    max_negatives: Annotated[int, typer.Option(help="Negatives per positive at most.")] = _DEFAULTS.max_negatives,
    negatives_per_positive: Annotated[float, typer.Option(help="Negatives per positive allowed in each frequency bucket.")]
    = _DEFAULTS.negatives_per_positive,
    max_span_tokens: Annotated[int, typer.Option(help="Longest predicate span replaced by a hyponym.")]
    = _DEFAULTS.max_span_tokens,
    hyponym_depth: Annotated[int, typer.Option(help="WordNet levels below a span (1 = direct hyponyms).")]
    = _DEFAULTS.hyponym_depth,
    bucket_scale: Annotated[float, typer.Option(help="Multiply the published frequency-bucket bounds (Li et al. 2022) by this.")]
    = DEFAULT_BUCKET_SCALE,
    graph_split: Annotated[str, typer.Option(help="LEWISSPLIT of the graph-induction period (never evaluated).")]
    = _DEFAULTS.graph_split,
    eval_split: Annotated[str, typer.Option(help="LEWISSPLIT of the evaluation period.")] = _DEFAULTS.eval_split,
    dev_fraction: Annotated[float, typer.Option(help="Share of candidate bundles in dev (earliest windows).")]
    = _DEFAULTS.dev_fraction,
    max_positives: Annotated[int, typer.Option(help="Positives per split at most (bundles sampled).")]
    = _DEFAULTS.max_positives,
    max_senses: Annotated[int | None, typer.Option(help="With --senses all: WordNet senses of a span used "
                                                         "(default all).")]
    = _DEFAULTS.max_senses,
    senses: Annotated[str | None, typer.Option(metavar="|".join(SENSE_CHOOSERS),
                                               help="How the replaced word's sense is chosen in its sentence "
                                                    f"(default {_DEFAULTS.senses}; `read`: all).")] = None,
    sense_min_share: Annotated[float, typer.Option(help="--senses agree: first-sense share of SemCor counts "
                                                        "trusted without the sentence.")]
    = _DEFAULTS.sense_min_share,
    negative_filter: Annotated[list[str] | None, typer.Option(
        metavar="|".join(NEGATIVE_FILTERS),
        help=f"Filter of probably-true negatives, in order (repeat; default {', '.join(_DEFAULTS.negative_filters)}, "
             "`read` adds hyponym_read and stated_elsewhere, `checked` also negative_read; `none` for no filter).")] = None,
    min_typed_pairs: Annotated[int, typer.Option(help="typed_felicity: argument pairs of the positive's types "
                                                      "the negative must have been seen with.")]
    = _DEFAULTS.min_typed_pairs,
    lm_max_cosine: Annotated[float, typer.Option(help="lm filter: negatives this close to the positive are dropped.")]
    = _DEFAULTS.lm_max_cosine,
    drop_fragments: Annotated[bool, typer.Option(help="Drop positives whose predicate lost an idiom's word "
                                                      "(changed hands -> changed).")]
    = _DEFAULTS.drop_fragments,
    contiguous_positives: Annotated[bool | None, typer.Option(
        "--contiguous-positives/--no-contiguous-positives",
        help="Drop positives whose predicate text is not one run of words of their sentence (won to <- won "
             "confirmation to). Default: off; on in `read`.")] = None,
    max_per_predicate: Annotated[int | None, typer.Option(
        help="A predicate's propositions per label and split at most: 1 keeps the labels from being read off "
             "the predicate (hypothesis-only audit). Default: any number.")] = _DEFAULTS.max_per_predicate,
    cap_by: Annotated[str, typer.Option(metavar="|".join(CAP_KEYS), help=(
        "What --max-per-predicate counts: each predicate, or each head word (bought back and bought up count "
        "as one; the audit reads words)."))] = _DEFAULTS.cap_by,
    match_buckets: Annotated[bool | None, typer.Option(
        "--match-buckets/--no-match-buckets",
        help="Drop bundles of frequency buckets short of negatives. Default: on; off in `read`.")] = None,
    require_negative: Annotated[bool, typer.Option(help="Keep only positives that got a negative.")]
    = _DEFAULTS.require_negative,
    seed: Annotated[int, typer.Option(help="Random seed.")] = _DEFAULTS.seed,
    wordnet_cache: Annotated[Path | None, typer.Option(help="Where to lay out WordNet for NLTK.")] = None,
    audit: Annotated[bool, typer.Option(help="Then run the hypothesis-only audit on dev and test (audit.json).")]
    = True,
) -> None:
    """Build a BoOQA-style benchmark (dev and test JSON Lines plus stats) from a triples dataset."""
    from benchmark.build import build_benchmark_files

    bounds = scaled_bucket_bounds(bucket_scale)
    filters = None if negative_filter is None else tuple(f for f in negative_filter if f != "none")
    config = recipe_config(
        recipe,
        min_pair_articles=min_pair_articles, min_pair_predicates=min_pair_predicates,
        min_predicate_pairs=min_predicate_pairs, max_negatives=max_negatives,
        negatives_per_positive=negatives_per_positive, max_span_tokens=max_span_tokens,
        hyponym_depth=hyponym_depth, bucket_bounds=bounds, graph_split=graph_split, eval_split=eval_split,
        dev_fraction=dev_fraction, max_positives=max_positives, max_senses=max_senses,
        match_buckets=match_buckets, require_negative=require_negative, seed=seed, senses=senses,
        sense_min_share=sense_min_share, negative_filters=filters, min_typed_pairs=min_typed_pairs,
        lm_max_cosine=lm_max_cosine, drop_fragments=drop_fragments, max_per_predicate=max_per_predicate,
        contiguous_positives=contiguous_positives, cap_by=cap_by)
    stats = build_benchmark_files(triples, out, config, wordnet_cache)
    typer.echo(stats.table())
    typer.echo(stats.summary())
    typer.echo(f"benchmark: {out}  (stats.json has the thresholds and buckets)")
    if audit:
        from benchmark.audit import AUDIT_FILE, audit_benchmark, format_audit

        typer.echo(format_audit(audit_benchmark(out)))
        typer.echo(f"audit: {out / AUDIT_FILE}")


def audit(
    path: Annotated[Path, typer.Argument(help="A benchmark folder (audits dev.jsonl and test.jsonl, writes "
                                              "audit.json) or one JSON Lines file.")],
    folds: Annotated[int, typer.Option(help="Cross-validation folds, grouped by bundle.")] = 5,
    c: Annotated[float, typer.Option("--c", help="Inverse regularisation strength of the logistic regression.")]
    = 1.0,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples of bundles for the 95% intervals.")] = 1000,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Hypothesis-only artefact check: AUC_norm and AP_norm of a classifier blind to evidence (lower is better)."""
    from benchmark.audit import audit_benchmark, audit_file, format_audit

    if path.is_dir():
        results = audit_benchmark(path, folds=folds, c=c, resamples=resamples)
    else:
        results = {path.stem: audit_file(path, folds=folds, c=c, resamples=resamples)}
    if as_json:
        shown = results if path.is_dir() else next(iter(results.values()))
        typer.echo(orjson.dumps(shown, option=orjson.OPT_INDENT_2).decode())
        return
    typer.echo(format_audit(results))
    typer.echo(f"({folds}-fold cross-validation by bundle)")


def questions(
    path: Annotated[Path, typer.Argument(help="Question file: JSON Lines of id, text, date, expected, kind.")],
    url: Annotated[str, typer.Option(help="Base URL of a running egqa service.")] = "http://127.0.0.1:8000",
    scorer: Annotated[str | None, typer.Option(help="Scorer to ask with (default: the service's).")] = None,
    api_key: Annotated[str | None, typer.Option(envvar="EGQA_API_KEY", help="The service's API key, if it has one.")]
        = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print every answer and the totals as JSON.")] = False,
) -> None:
    """Ask a running service questions written as people type them; count the right answers."""
    from benchmark.questions import ask_questions, read_questions, summary

    results = ask_questions(read_questions(path), url, scorer, api_key)
    totals = summary(results)
    if as_json:
        typer.echo(orjson.dumps({"totals": totals, "answers": [r.to_dict() for r in results]},
                                option=orjson.OPT_INDENT_2).decode())
        return
    for r in results:
        mark = "right" if r.right else "WRONG"
        said = f"error: {r.error}" if r.error else f"{r.answer} ({r.evidence} evidence; {'; '.join(r.names)})"
        typer.echo(f"{mark:5}  {r.question.id:<5} {r.question.date}  {r.question.text!r:<52} expected "
                   f"{r.question.expected!s:<5}  said {said}")
    typer.echo(f"{totals['right']} of {totals['questions']} right ('always false' gets {totals['always_false']}); "
               f"{totals['true_right']} of {totals['true_questions']} true questions answered true, "
               f"{totals['true_with_evidence']} found evidence; {totals['unread']} not read")


def sample(
    benchmark: Annotated[Path, typer.Argument(help="A benchmark folder (or one of its JSON Lines files).")],
    out: Annotated[Path, typer.Option("--out", help="Folder for sample.tsv, reveal.tsv and key.jsonl.")],
    split: Annotated[str, typer.Option(help="Split to sample when BENCHMARK is a folder.")] = "test",
    positives: Annotated[int, typer.Option(help="Positives drawn.")] = 100,
    negatives: Annotated[int, typer.Option(help="Negatives drawn.")] = 100,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
) -> None:
    """Write a blind sample to read by hand: arguments masked, labels hidden, shuffled."""
    from benchmark.reading import KEY_FILE, REVEAL_FILE, SAMPLE_FILE, write_sample

    counts = write_sample(benchmark, out, split, positives, negatives, seed)
    typer.echo(f"{counts['positives'] + counts['negatives']} propositions in {out / SAMPLE_FILE}: fill `felicitous` "
               f"(y/n) for each, then open {out / REVEAL_FILE} and fill `kind`; {out / KEY_FILE} holds the labels "
               "for `egqa benchmark judge`.")


def judge(
    folder: Annotated[Path, typer.Argument(help="A sample folder from `egqa benchmark sample`, verdicts filled.")],
    verdicts: Annotated[Path | None, typer.Option(help="The filled sample.tsv (default FOLDER/sample.tsv).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Score a read: felicity and kinds (same or other sense, probably true, fragment) per label, with intervals."""
    from benchmark.reading import KEY_FILE, SAMPLE_FILE, format_judgement, read_verdicts, score_verdicts

    result = score_verdicts(read_verdicts(verdicts or folder / SAMPLE_FILE), folder / KEY_FILE)
    if as_json:
        typer.echo(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
        return
    typer.echo(format_judgement(result))


def register(app: typer.Typer) -> None:
    """Add the `benchmark` command group to the CLI."""
    group = typer.Typer(help="Build BoOQA-style benchmarks and audit them for artefacts.", no_args_is_help=True)
    group.command("build")(build)
    group.command("audit")(audit)
    group.command("questions")(questions)
    group.command("sample")(sample)
    group.command("judge")(judge)
    app.add_typer(group, name="benchmark")
