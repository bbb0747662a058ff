"""Batch evaluation over HTTP with the BoOQA protocol: entries in, per-scorer scores and metrics out.

Scores are appended to `scores.partial.jsonl` as batches come back, so an interrupted run resumes where
it stopped (a line counts only for the entry it was asked for: each records a digest of the query, so an entry
whose id now names another proposition, as after a benchmark is rebuilt, is asked again); at the end `scores.jsonl` (one line per entry: id, bundle_id, label, one score per scorer,
evidence flag), `report.json` (per scorer: auc_norm, ap_norm and their 95% bundle-bootstrap intervals
auc_norm_ci/ap_norm_ci, auc_50, xi, coverage, n, positives, bootstrap settings, failed) and
`pr_curves.png` are written. `compare_scores` reads a finished run's `scores.jsonl` back and sets every scorer
against one baseline on the same entries: the paired bootstrap difference of both metrics and, per bundle, how
each scorer ranks a positive against its negatives.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson

from benchmark.metrics import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    bundle_contrast,
    evaluate_scores,
    paired_difference,
    percent,
    plot_pr_curves,
    pr_curve,
    with_interval,
)
from graph_builder.errors import InputError, ModelMissingError, StoreError
from graph_builder.tables import render, table

log = logging.getLogger(__name__)

PARTIAL = "scores.partial.jsonl"
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


@dataclass
class EvalConfig:
    """How to evaluate: scorers, batch size, concurrency, retries and the evidence protocol."""

    scorers: tuple[str, ...] = ("binc",)
    batch_size: int = 200
    concurrency: int = 4
    retries: int = 5
    backoff: float = 0.5
    timeout: float = 120.0
    exclude_same_predicate: bool = False
    resamples: int = DEFAULT_RESAMPLES  # bootstrap resamples of bundles for the intervals (0: none)
    seed: int = DEFAULT_SEED

    def __post_init__(self) -> None:
        if not self.scorers:
            raise InputError("give at least one scorer")
        if self.batch_size < 1 or self.concurrency < 1 or self.retries < 0:
            raise InputError("batch_size and concurrency must be positive, retries 0 or more")
        if self.resamples < 0:
            raise InputError("resamples must be 0 (no intervals) or more")


@dataclass
class EvalResult:
    """What a run produced: the report per scorer, where the files are, and how long it took."""

    report: dict[str, dict[str, Any]]
    out: Path
    seconds: float
    failed: dict[str, int] = field(default_factory=dict)


def entry_query(entry: dict[str, Any]) -> dict[str, Any]:
    """Turn a benchmark entry into the service's structured proposition."""
    try:
        return {"subject": entry["subj"], "predicate": entry["predicate"], "object": entry["obj"],
                "subject_type": entry["subj_type"], "object_type": entry["obj_type"], "window": int(entry["window"]),
                "exclude_sentence_ids": list(entry.get("exclude_sentence_ids") or [])}
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"benchmark entry {entry.get('id', '?')!r} lacks a field: {exc}") from None


def query_digest(entry: dict[str, Any]) -> str:
    """A digest of what is asked for an entry: a resumed run reuses a score only for the very same query."""
    return hashlib.blake2b(orjson.dumps(entry_query(entry), option=orjson.OPT_SORT_KEYS), digest_size=12).hexdigest()


def check_entries(entries: Sequence[dict[str, Any]]) -> None:
    """Refuse empty datasets, duplicate ids and labels other than 0/1 before any request is sent."""
    if not entries:
        raise InputError("the dataset holds no entries")
    ids = [str(e.get("id")) for e in entries]
    if len(set(ids)) != len(ids):
        raise InputError("entry ids are not unique")
    bad = [e.get("id") for e in entries if e.get("label") not in (0, 1, True, False)]
    if bad:
        raise InputError(f"labels must be 0 or 1; bad entries: {bad[:5]}")
    for e in entries:
        entry_query(e)


def _read_partial(path: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    """The scores already written, by (entry id, scorer, query digest); a line without a digest is not reused."""
    done: dict[tuple[str, str, str], dict[str, Any]] = {}
    if path.exists():
        for line in path.read_bytes().splitlines():
            try:
                item = orjson.loads(line)
                done[(item["id"], item["scorer"], item["query"])] = item
            except (orjson.JSONDecodeError, KeyError, TypeError):
                continue  # a line cut by a crash: that entry is simply asked again
    return done


async def _post(client: httpx.AsyncClient, url: str, body: dict[str, Any], config: EvalConfig) -> httpx.Response:
    delay = config.backoff
    for attempt in range(config.retries + 1):
        try:
            response = await client.post(url, content=orjson.dumps(body), headers={"content-type": "application/json"})
            if response.status_code not in RETRY_STATUS:
                return response
            reason = f"HTTP {response.status_code}"
        except httpx.TransportError as exc:
            reason = f"{type(exc).__name__}: {exc}"
        if attempt == config.retries:
            raise StoreError(f"{url} failed after {config.retries + 1} tries: {reason}")
        log.warning("%s (try %d), retrying in %.1fs", reason, attempt + 1, delay)
        await asyncio.sleep(delay * (1 + random.random() / 2))
        delay = min(delay * 2, 30.0)
    raise AssertionError("unreachable")


async def _score_batch(client: httpx.AsyncClient, base: str, scorer: str, batch: list[dict[str, Any]],
                       config: EvalConfig) -> list[dict[str, Any]]:
    options = {"scorer": scorer, "top_k": 0, "exclude_same_predicate": config.exclude_same_predicate}
    response = await _post(client, f"{base}/v1/query/batch", {"queries": [entry_query(e) for e in batch], **options},
                           config)
    if response.status_code == 200:
        results = orjson.loads(response.content)["results"]
        return [{"id": e["id"], "scorer": scorer, "query": query_digest(e), "score": r["score"],
                 "evidence_count": r["evidence_count"]} for e, r in zip(batch, results, strict=True)]
    if response.status_code in (400, 404, 422) and len(batch) > 1:
        # One bad entry fails its batch: ask one by one so only that entry is marked failed.
        out = []
        for e in batch:
            out += await _score_batch(client, base, scorer, [e], config)
        return out
    if response.status_code in (400, 404, 422):
        message = response.json().get("error", {}).get("message", response.text)
        return [{"id": batch[0]["id"], "scorer": scorer, "query": query_digest(batch[0]), "score": 0.0,
                 "evidence_count": 0, "error": message}]
    raise StoreError(f"{base}: HTTP {response.status_code}: {response.text[:300]}")


async def _check_scorers(client: httpx.AsyncClient, base: str, config: EvalConfig) -> None:
    """Refuse scorers the service does not offer before sending any batch (else every entry would fail)."""
    try:
        response = await client.get(f"{base}/v1/graphs")
    except httpx.TransportError:
        return  # the batches retry and report an unreachable service themselves
    if response.status_code != 200:
        return
    offered = response.json().get("scorers", [])
    unknown = [s for s in config.scorers if s not in offered]
    if unknown:
        raise InputError(f"the service at {base} offers no scorer {', '.join(map(repr, unknown))}; "
                         f"it offers: {', '.join(offered)}")


def interleave(per_scorer: Sequence[Sequence[tuple[str, list[dict[str, Any]]]]],
               spacing: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """One list of requests from each scorer's batches: batch k of the i-th scorer goes out in place k + i * spacing.

    The service remembers a batch's evidence and pairs for a while, so its scorers follow one another closely;
    `spacing` (the requests in flight) apart, the earlier one has been answered when the next one asks."""
    slots = [(k + i * spacing, i, job) for i, jobs in enumerate(per_scorer) for k, job in enumerate(jobs)]
    return [job for _, _, job in sorted(slots, key=lambda slot: slot[:2])]


async def _run(entries: Sequence[dict[str, Any]], digests: dict[str, str], base: str, config: EvalConfig,
               partial: Path, progress: Callable[[int], None] | None) -> None:
    done = _read_partial(partial)
    todo = [(s, [e for e in entries if (e["id"], s, digests[e["id"]]) not in done]) for s in config.scorers]
    jobs = interleave([[(s, items[i:i + config.batch_size]) for i in range(0, len(items), config.batch_size)]
                       for s, items in todo], config.concurrency)
    if progress:
        progress(sum(1 for s in config.scorers for e in entries if (e["id"], s, digests[e["id"]]) in done))
    semaphore = asyncio.Semaphore(config.concurrency)
    limits = httpx.Limits(max_connections=config.concurrency, max_keepalive_connections=config.concurrency)
    async with httpx.AsyncClient(timeout=config.timeout, limits=limits) as client:
        await _check_scorers(client, base, config)
        with partial.open("ab") as sink:
            async def one(scorer: str, batch: list[dict[str, Any]]) -> None:
                async with semaphore:
                    lines = await _score_batch(client, base, scorer, batch, config)
                sink.write(b"".join(orjson.dumps(x) + b"\n" for x in lines))
                sink.flush()
                if progress:
                    progress(len(batch))
            await asyncio.gather(*(one(s, b) for s, b in jobs))


def evaluate(entries: Sequence[dict[str, Any]], url: str, out: Path, config: EvalConfig,
             progress: Callable[[int], None] | None = None, title: str | None = None) -> EvalResult:
    """Score every entry with every scorer through the service at `url`; write scores, report and figure."""
    check_entries(entries)
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    partial = out / PARTIAL
    digests = {e["id"]: query_digest(e) for e in entries}
    asyncio.run(_run(entries, digests, url.rstrip("/"), config, partial, progress))
    done = _read_partial(partial)
    report: dict[str, dict[str, Any]] = {}
    curves = {}
    failed: dict[str, int] = {}
    labels = [int(e["label"]) for e in entries]
    # Intervals resample bundles (a positive with its negatives); an entry without a bundle is its own.
    groups = [str(e.get("bundle_id") or f"entry:{e['id']}") for e in entries]
    lines = [{"id": e["id"], "bundle_id": g, "label": int(e["label"])} for e, g in zip(entries, groups, strict=True)]
    for scorer in config.scorers:
        mine = [done[(e["id"], scorer, digests[e["id"]])] for e in entries]
        scores = [float(x["score"]) for x in mine]
        evidence = [int(x["evidence_count"]) > 0 for x in mine]
        failed[scorer] = sum(1 for x in mine if "error" in x)
        report[scorer] = evaluate_scores(labels, scores, evidence, groups, config.resamples,
                                         config.seed) | {"failed": failed[scorer]}
        curves[scorer] = pr_curve(labels, scores, evidence)
        for line, score, has in zip(lines, scores, evidence, strict=True):
            line[scorer] = score
            line["has_evidence"] = bool(line.get("has_evidence")) or has
    (out / "scores.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    (out / "report.json").write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2))
    try:
        plot_pr_curves(curves, out / "pr_curves.png", title, metrics=report)
    except ModelMissingError as exc:  # the figure is a `benchmark` extra; the scores and report stand without it
        log.warning("no pr_curves.png: %s", exc)
    return EvalResult(report, out, time.perf_counter() - started, failed)


def format_table(report: dict[str, dict[str, Any]]) -> str:
    """Return the report as a table in percent, best AUC_norm first, 95% intervals in brackets."""
    numbers = ("AUC_norm [95% CI]", "AP_norm [95% CI]", "AUC_50", "xi", "coverage", "n", "failed")
    rows = [(scorer, with_interval(m, "auc_norm"), with_interval(m, "ap_norm"), percent(m["auc_50"]),
             f"{float(m['xi']):.3f}", percent(m["coverage"]), int(m["n"]), int(m.get("failed", 0)))
            for scorer, m in sorted(report.items(), key=lambda kv: (-float(kv[1]["auc_norm"]), kv[0]))]
    lines = [render(table(("scorer", *numbers), right=numbers, rows=rows))]
    boot = next((m["bootstrap"] for m in report.values() if m.get("bootstrap")), None)
    if boot:
        lines.append(f"(percent; AP_norm: 0 = chance, as a constant scorer; intervals: {boot['resamples']} "
                     f"bootstrap resamples of {boot['units']} {boot['unit']}s, seed {boot['seed']})")
    return "\n".join(lines)


def read_scores(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Read an evaluation's `scores.jsonl` (or the folder holding it): its rows and the scorers it holds."""
    file = path / "scores.jsonl" if path.is_dir() else path
    if not file.is_file():
        raise InputError(f"no scores at {file}: run `egqa evaluate ... --out {file.parent}` first")
    rows = []
    for number, line in enumerate(file.read_bytes().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise InputError(f"{file}:{number} is not JSON; is this an `egqa evaluate` scores.jsonl?") from None
        if not isinstance(row, dict) or "label" not in row or "bundle_id" not in row:
            raise InputError(f"{file}:{number} lacks label/bundle_id; is this an `egqa evaluate` scores.jsonl?")
        rows.append(row)
    if not rows:
        raise InputError(f"{file} holds no scores")
    fixed = {"id", "bundle_id", "label", "has_evidence"}
    scorers = [k for k in rows[0] if k not in fixed]
    for number, row in enumerate(rows, 1):
        missing = [s for s in scorers if not isinstance(row.get(s), int | float)]
        if missing:
            raise InputError(f"{file}: row {number} has no numeric score for {', '.join(missing)}")
    return rows, scorers


def compare_scores(path: Path, baseline: str, scorers: Sequence[str] | None = None,
                   resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Set every scorer of a finished evaluation against `baseline`, on the same entries and resamples.

    Per scorer: its metrics, the paired difference (scorer - baseline) of AUC_norm and AP_norm with 95%
    intervals from one bundle bootstrap shared by both, and the bundle contrast (its positive/negative pairs
    by which side scores above 0, and where both do, which is higher).
    """
    rows, offered = read_scores(path)
    wanted = list(scorers) if scorers else offered
    unknown = [s for s in [baseline, *wanted] if s not in offered]
    if unknown:
        raise InputError(f"no scores for {', '.join(map(repr, unknown))}; the run holds: {', '.join(offered)}")
    if resamples < 1:
        raise InputError("the paired comparison needs at least 1 bootstrap resample")
    labels = [int(r["label"]) for r in rows]
    groups = [str(r["bundle_id"]) for r in rows]
    base = [float(r[baseline]) for r in rows]
    evidence = [bool(r.get("has_evidence", True)) for r in rows]
    result: dict[str, Any] = {"baseline": baseline, "entries": len(rows), "scorers": {}}
    for scorer in dict.fromkeys([baseline, *wanted]):
        scores = [float(r[scorer]) for r in rows]
        diff = paired_difference(labels, scores, base, evidence, groups, resamples, seed)
        result["scorers"][scorer] = {
            "metrics": evaluate_scores(labels, scores, evidence, groups, resamples, seed),
            "minus_baseline": diff.as_dict(),
            "contrast": bundle_contrast(labels, scores, groups, evidence).as_dict(),
        }
    return result


def compare_runs(path: Path, against: Path, scorers: Sequence[str] | None = None,
                 resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Set every scorer of one finished evaluation against the same scorer of another run on the same benchmark (a
    build against the one before), paired: the entries joined by id, one bundle bootstrap shared by both runs.

    Each run's scores count only where its own retrieval found evidence (a score without evidence is 0, as in one
    run's metrics); the entries must be the same in both, with the same labels and bundles."""
    rows, offered = read_scores(path)
    other_rows, other_offered = read_scores(against)
    wanted = list(scorers) if scorers else [s for s in offered if s in other_offered]
    unknown = [s for s in wanted if s not in offered or s not in other_offered]
    if unknown or not wanted:
        raise InputError(f"no scores in both runs for {', '.join(map(repr, unknown)) or 'any scorer'}; this run holds: "
                         f"{', '.join(offered)}; the other: {', '.join(other_offered)}")
    if resamples < 1:
        raise InputError("the paired comparison needs at least 1 bootstrap resample")
    other = {r.get("id"): r for r in other_rows}
    if None in other or len(other) != len(other_rows) or len(other) != len(rows):
        raise InputError("the two runs must hold the same entries, each with a distinct `id`")
    for row in rows:
        twin = other.get(row.get("id"))
        if twin is None or twin["label"] != row["label"] or twin["bundle_id"] != row["bundle_id"]:
            raise InputError(f"entry {row.get('id')!r} is not in the other run with the same label and bundle: "
                             "were both runs evaluated on the same benchmark file?")
    labels = [int(r["label"]) for r in rows]
    groups = [str(r["bundle_id"]) for r in rows]
    twins = [other[r["id"]] for r in rows]

    def scored(items: Sequence[dict[str, Any]], scorer: str) -> list[float]:
        return [float(r[scorer]) if r.get("has_evidence", True) else 0.0 for r in items]

    result: dict[str, Any] = {"against": str(against), "entries": len(rows), "scorers": {}}
    for scorer in wanted:
        mine, theirs = scored(rows, scorer), scored(twins, scorer)
        result["scorers"][scorer] = {
            "metrics": evaluate_scores(labels, mine, None, groups, resamples, seed),
            "against_metrics": evaluate_scores(labels, theirs, None, groups, resamples, seed),
            "minus_against": paired_difference(labels, mine, theirs, None, groups, resamples, seed).as_dict(),
            "contrast": bundle_contrast(labels, mine, groups, None).as_dict(),
            "against_contrast": bundle_contrast(labels, theirs, groups, None).as_dict(),
        }
    return result


def format_run_comparison(comparison: dict[str, Any]) -> str:
    """Return a comparison of two runs as a table: each scorer's AP_norm in both, the paired difference, and the
    positive/negative pairs where both sides meet an edge in each."""
    numbers = ("AP_norm [95% CI]", "other run", "- other AP_norm", "- other AUC_norm", "both sides", "both, other")
    rows = []
    for scorer, item in comparison["scorers"].items():
        both = [sum(c[k] for k in ("both_positive_higher", "both_negative_higher", "both_tied"))
                for c in (item["contrast"], item["against_contrast"])]
        rows.append((scorer, with_interval(item["metrics"], "ap_norm"), with_interval(item["against_metrics"], "ap_norm"),
                     _signed(item["minus_against"]["ap_norm"], item["minus_against"]["ap_norm_ci"]),
                     _signed(item["minus_against"]["auc_norm"], item["minus_against"]["auc_norm_ci"]), *both))
    boot = next(iter(comparison["scorers"].values()))["minus_against"]["bootstrap"]
    return "\n".join([render(table(("scorer", *numbers), right=numbers, rows=rows)),
                      f"(percent; differences are this run minus {comparison['against']}, scorer by scorer, on the same "
                      f"{boot['resamples']} resamples of {boot['units']} bundles, seed {boot['seed']}; each run's scores "
                      "count only where it found evidence. Both sides: positive/negative pairs where both score above 0)"])


def _signed(value: float, ci: Sequence[float]) -> str:
    def one(v: float) -> str:
        text = f"{100 * v:+.1f}"
        return "+0.0" if text == "-0.0" else text
    return f"{one(value)} [{one(ci[0])}, {one(ci[1])}]"


def format_comparison(comparison: dict[str, Any]) -> str:
    """Return the comparison as a table: AP_norm, its paired difference to the baseline, and the contrast."""
    baseline = comparison["baseline"]
    items = comparison["scorers"]
    numbers = ("AP_norm [95% CI]", f"- {baseline} AP_norm", f"- {baseline} AUC_norm", "pos>neg", "pos<neg", "tied",
               "pos only", "neg only", "neither")
    rows = [(scorer, with_interval(item["metrics"], "ap_norm"),
             _signed(item["minus_baseline"]["ap_norm"], item["minus_baseline"]["ap_norm_ci"]),
             _signed(item["minus_baseline"]["auc_norm"], item["minus_baseline"]["auc_norm_ci"]),
             *(item["contrast"][k] for k in ("both_positive_higher", "both_negative_higher", "both_tied",
                                             "positive_only", "negative_only", "neither")))
            for scorer, item in items.items()]
    lines = [render(table(("scorer", *numbers), right=numbers, rows=rows))]
    boot = items[baseline]["minus_baseline"]["bootstrap"]
    pairs = items[baseline]["contrast"]["pairs"]
    lines.append(f"(percent; differences are scorer minus {baseline} on the same {boot['resamples']} resamples of "
                 f"{boot['units']} bundles, seed {boot['seed']}: an interval above 0 means ahead on this benchmark. "
                 f"The last six columns split the {pairs} positive/negative pairs inside bundles: where both score "
                 "above 0, which is higher; else which side alone meets an edge)")
    return "\n".join(lines)
