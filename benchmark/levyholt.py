"""LevyHolt intrinsic evaluation (Levy and Dagan 2016; Holt 2018): score premise -> hypothesis pairs in a graph set.

Files hold `hypothesis TAB premise TAB True/False`; True means the premise (column 2) entails the
hypothesis (column 1). `*_rels.txt` gives reference-format predicates with `arg::type`; `*_s.txt`
gives readable `arg1,predicate,arg2`, which we parse with our own extractor.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from benchmark.metrics import DEFAULT_RESAMPLES
from graph_builder.embeddings import SentenceEncoder, predicate_words
from graph_builder.errors import InputError, ModelMissingError
from graph_builder.graphs.graphset import GraphSet, Query
from graph_builder.graphs.scorers import PairBatch, Scorer, build_scorers
from graph_builder.tables import render, table

log = logging.getLogger(__name__)
FORMATS = {"rels": "_rels.txt", "s": "_s.txt"}
Extractor = Callable[[str], list[dict[str, object]]]


@dataclass(frozen=True)
class Side:
    """One proposition: predicate with its two arguments and their types, in slot order."""

    predicate: str
    arg1: str
    type1: str
    arg2: str
    type2: str


@dataclass(frozen=True)
class LevyPair:
    """A LevyHolt entry; a side is None when its predicate could not be read."""

    hypothesis: Side | None
    premise: Side | None
    label: bool


def _label(text: str, where: str) -> bool:
    value = text.strip()
    if value not in ("True", "False"):
        raise InputError(f"{where}: label must be True or False, got {value!r}")
    return value == "True"


def parse_rels_side(field: str) -> Side | None:
    """Read `(pred.1,pred.2) arg1::type1 arg2::type2`; None for an empty (unparsed) field."""
    tokens = field.split()
    if len(tokens) != 3 or "::" not in tokens[1] or "::" not in tokens[2]:
        return None
    a1, t1 = tokens[1].rsplit("::", 1)
    a2, t2 = tokens[2].rsplit("::", 1)
    return Side(tokens[0], a1, t1, a2, t2)


def read_rels(path: Path) -> list[LevyPair]:
    """Read a LevyHolt `*_rels.txt` file."""
    pairs = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        parts = line.split("\t")
        if len(parts) != 3:
            raise InputError(f"{path}:{lineno}: expected hypothesis TAB premise TAB label")
        pairs.append(LevyPair(parse_rels_side(parts[0]), parse_rels_side(parts[1]), _label(parts[2], f"{path}:{lineno}")))
    return pairs


def _words(text: str) -> set[str]:
    return {w for w in text.lower().replace("-", " ").split() if w}


def readable_side(field: str, extract: Extractor, cache: dict[str, Side | None]) -> Side | None:
    """Parse `arg1,predicate,arg2` as the sentence "arg1 predicate arg2." and keep the triple whose
    arguments match the given ones best (either order: a passive with a by-phrase turns them round)."""
    if field in cache:
        return cache[field]
    first, last = field.find(","), field.rfind(",")
    if first < 0 or first == last:
        cache[field] = None
        return None
    arg1, pred, arg2 = field[:first].strip(), field[first + 1:last].strip(), field[last + 1:].strip()
    best: tuple[float, Side] | None = None
    for t in extract(f"{arg1} {pred} {arg2}."):
        s, o = _words(str(t["subject"])), _words(str(t["object"]))
        w1, w2 = _words(arg1), _words(arg2)
        match = max(len(s & w1) + len(o & w2), len(s & w2) + len(o & w1))
        side = Side(str(t["predicate"]), str(t["subject"]), str(t["subject_type"]), str(t["object"]),
                    str(t["object_type"]))
        if match > 0 and (best is None or match > best[0]):
            best = (match, side)
    cache[field] = best[1] if best else None
    return cache[field]


def read_readable(path: Path, extract: Extractor | None = None) -> list[LevyPair]:
    """Read a LevyHolt `*_s.txt` file, predicates parsed by our extractor."""
    if extract is None:
        try:
            from graph_builder.extraction import extract_text as extract
        except ImportError as exc:
            raise ModelMissingError(f"the extractor is not available ({exc}); use --format rels") from exc
    cache: dict[str, Side | None] = {}
    pairs = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for lineno, line in enumerate(tqdm(lines, desc=f"parsing {path.name}", unit="pair"), 1):
        parts = line.split("\t")
        if len(parts) != 3:
            raise InputError(f"{path}:{lineno}: expected hypothesis TAB premise TAB label")
        pairs.append(LevyPair(readable_side(parts[0], extract, cache), readable_side(parts[1], extract, cache),
                              _label(parts[2], f"{path}:{lineno}")))
    return pairs


def to_query(pair: LevyPair) -> Query | None:
    """Turn a pair into a graph query in the hypothesis' argument order (None if a side is missing)."""
    h, p = pair.hypothesis, pair.premise
    if h is None or p is None:
        return None
    aligned = p.arg1 == h.arg1 or p.arg2 == h.arg2
    reversed_ = (p.arg1 == h.arg2 or p.arg2 == h.arg1) and not aligned
    premise_types = (p.type2, p.type1) if reversed_ else (p.type1, p.type2)
    # Sides typing their arguments differently have no one typed graph; choosing the hypothesis'
    # would make the score depend on which side is the hypothesis, so both go to the backoff.
    return Query(p.predicate, h.predicate, (h.type1, h.type2), premise_reversed=reversed_,
                 typed=premise_types == (h.type1, h.type2))


def pair_batch(pairs: Sequence[LevyPair]) -> PairBatch:
    """The readable pairs (both sides parsed) as one batch for the scorer registry: premise -> hypothesis
    queries and both sides as text. The graphs' own score stands for identical predicates."""
    queries = [to_query(p) for p in pairs]
    if any(q is None for q in queries):
        raise ValueError("pair_batch takes readable pairs only (both sides parsed)")
    return PairBatch(queries,  # type: ignore[arg-type]
                     premise_texts=[side_text(p.premise) for p in pairs],  # type: ignore[arg-type]
                     hypothesis_texts=[side_text(p.hypothesis) for p in pairs],  # type: ignore[arg-type]
                     identity_is_one=False)


def score_pairs(scorer: Scorer, pairs: Sequence[LevyPair], batch: PairBatch | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Return (scores, grounded flags) of premise -> hypothesis for every pair under `scorer`; unreadable pairs
    score 0. `batch` (pair_batch of the readable pairs) lets several scorers share their inner scores."""
    present = [i for i, p in enumerate(pairs) if p.premise is not None and p.hypothesis is not None]
    scored = (batch or pair_batch([pairs[i] for i in present])).scored(scorer)
    scores, grounded = np.zeros(len(pairs)), np.zeros(len(pairs), dtype=bool)
    scores[present], grounded[present] = scored.scores, scored.grounded
    return scores, grounded


def pair_units(pairs: Sequence[LevyPair]) -> list[str]:
    """Name each pair's bootstrap unit: the unordered pair of sides, so a pair asked in both orders is one unit."""
    units = []
    for k, pair in enumerate(pairs):
        if pair.hypothesis is None or pair.premise is None:
            units.append(f"line:{k}")
        else:
            units.append(" | ".join(sorted((repr(pair.hypothesis), repr(pair.premise)))))
    return units
def side_text(side: Side) -> str:
    """A proposition as plain words for sentence embeddings: `obama visit in hawaii`."""
    return f"{side.arg1.replace('_', ' ')} {predicate_words(side.predicate)} {side.arg2.replace('_', ' ')}"


def dataset_dirs(data_dir: Path) -> list[Path]:
    """Return the LevyHolt set folders under data_dir (dev, dev_dir), or data_dir itself if it is one."""
    if any(data_dir.glob("*_rels.txt")):
        return [data_dir]
    dirs = sorted(d for d in data_dir.iterdir() if d.is_dir() and any(d.glob("*_rels.txt"))) if data_dir.is_dir() else []
    if not dirs:
        raise InputError(f"{data_dir}: no LevyHolt files (*_rels.txt) here or in its sub-folders")
    return dirs


def evaluate_levyholt(graphset: GraphSet, data_dir: Path, formats: Sequence[str] = ("rels",),
                      png: Path | None = None, extract: Extractor | None = None,
                      resamples: int = DEFAULT_RESAMPLES, measures: Sequence[str] | None = None,
                      encoder: SentenceEncoder | None = None, smooth_k: int = 4,
                      smooth_min_cosine: float = 0.5) -> list[dict[str, Any]]:
    """Return one row per (set, format, measure) with AUC_norm and AP_norm (95% bootstrap intervals over
    pairs, a pair in both orders counted once), AUC_50, xi and coverage; write PR PNGs.

    One row per scorer of the registry (`graph_builder.graphs.scorers`): every measure of the graph set (or
    only `measures`), so plain, clean and global scores of one build are compared on the same pairs in one run,
    and `exact`; with an `encoder` also `<measure>+smooth` (when the set has predicate embeddings), the
    `lm_cosine` baseline, and `<row>+lm` for every graph row (its score, else the LM cosine scaled below any
    graph score: the LM orders what the graph leaves at 0). Scorers that differ only over a hypothesis' several
    premises (`+many`) are left out: each LevyHolt pair is a hypothesis with one premise."""
    from benchmark.metrics import evaluate_scores, plot_pr_curves, pr_curve

    scorers = build_scorers(graphset, measures=measures, encoder=encoder, smooth_k=smooth_k,
                            smooth_min_cosine=smooth_min_cosine)
    rows = []
    for fmt in formats:
        if fmt not in FORMATS:
            raise InputError(f"unknown LevyHolt format {fmt!r}; valid: {', '.join(FORMATS)}")
    for folder in dataset_dirs(data_dir):
        for fmt in formats:
            path = folder / f"{folder.name}{FORMATS[fmt]}"
            if not path.is_file():
                matches = sorted(folder.glob(f"*{FORMATS[fmt]}"))
                if not matches:
                    raise InputError(f"{folder}: no *{FORMATS[fmt]} file")
                path = matches[0]
            pairs = read_rels(path) if fmt == "rels" else read_readable(path, extract)
            labels = np.array([p.label for p in pairs], dtype=bool)
            units = pair_units(pairs)
            curves = {}
            parsed = float(np.mean([p.premise is not None and p.hypothesis is not None for p in pairs]))
            batch = pair_batch([p for p in pairs if p.premise is not None and p.hypothesis is not None])
            shown = {}
            for name, scorer in scorers.items():
                if getattr(scorer, "needs_groups", False):  # the same as its inner scorer on lone pairs
                    continue
                scores, grounded = score_pairs(scorer, pairs, batch)
                metrics = evaluate_scores(labels, scores, groups=units, resamples=resamples, unit_name="pair")
                curves[name] = pr_curve(labels, scores)
                shown[name] = metrics
                rows.append({"set": folder.name, "format": fmt, "measure": name, **metrics,
                             "grounded": float(grounded.mean()), "parsed": parsed})
            target = (png.with_name(f"{png.stem}_{folder.name}_{fmt}{png.suffix or '.png'}") if png is not None
                      else graphset.path / f"levyholt_{folder.name}_{fmt}.png")
            plot_pr_curves(curves, target, title=f"LevyHolt {folder.name} ({fmt}) on {graphset.path.name}",
                           metrics=shown)
            log.info("PR curves written to %s", target)
    return rows


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """Render evaluation rows as a table in percent, 95% bootstrap intervals in brackets."""
    from benchmark.metrics import percent, with_interval

    numbers = ("n", "xi", "AUC_norm [95% CI]", "AP_norm [95% CI]", "AUC_50", "coverage", "grounded")
    return render(table(("set", "format", "measure", *numbers), right=numbers, rows=[
        (r["set"], r["format"], r["measure"], r["n"], f"{r['xi']:.3f}", with_interval(r, "auc_norm"),
         with_interval(r, "ap_norm"), percent(r["auc_50"]), percent(r["coverage"]), percent(r["grounded"]))
        for r in rows]))


def format_side_by_side(rows: Sequence[dict[str, Any]]) -> str:
    """Render evaluation rows with one line per measure and AUC_norm / coverage of each set side by side."""
    sets = sorted({(r["set"], r["format"]) for r in rows})
    measures = list(dict.fromkeys(r["measure"] for r in rows))
    cell = {(r["set"], r["format"], r["measure"]): r for r in rows}
    labels = [f"{s} ({f})" if len({f for _, f in sets}) > 1 else s for s, f in sets]
    width = max([11, *(len(str(m)) for m in measures)])
    head = f"{'measure':<{width}}" + "".join(f" | {label:^27}" for label in labels)
    sub = f"{'':<{width}}" + " | AUC_norm  AP_norm  coverage" * len(sets)
    lines = [head, sub, "-" * len(head)]
    for m in measures:
        parts = []
        for s, f in sets:
            r = cell.get((s, f, m))
            parts.append(f" | {100 * r['auc_norm']:>8.2f} {100 * r['ap_norm']:>8.2f} {100 * r['coverage']:>8.1f}%"
                         if r else f" | {'':>27}")
        lines.append(f"{m:<{width}}" + "".join(parts))
    return "\n".join(lines)
