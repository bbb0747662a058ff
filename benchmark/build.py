"""The BoOQA-style benchmark builder of Li et al. (2022, Appendix D), every threshold a parameter.

From a triples dataset: starring argument pairs per window, positives (felicitous predicates about them),
WordNet-hyponym negatives over every span of the positive's predicate (felicitous, and absent with all
their synonyms from the window for that pair), at most `max_negatives` per positive in bundles, windows
sampled in proportion to their article counts, negatives bucket-sampled to the positives' predicate
frequency distribution, dev and test from different time spans, graph-induction period kept apart.

The defaults are scaled down for Reuters-21578 (~20k articles over ~8 months instead of NewsCrawl).
"""

from __future__ import annotations

import bisect
import datetime as dt
import logging
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Protocol

import orjson
import pyarrow as pa
from tqdm import tqdm

from benchmark.fragments import clause_object, detached, garbled, idiom_complement
from benchmark.hyponym_reads import load_reads
from benchmark.negative_reads import load_negative_reads, negative_key
from benchmark.negatives import DEFAULT_FILTERS, CandidateInContext, FilterInputs, apply_filters, check_filters
from benchmark.senses import DEFAULT_SENSES, SENSE_CHOOSERS, SENSES_VERSION, AgreeingSense, Hyponym, Sense
from benchmark.senses import SpanInContext, sense_chooser
from benchmark.stats import BenchmarkStats, SenseStats, SplitStats
from graph_builder.errors import ArtefactError, InputError
from graph_builder.predicates import Predicate, is_negated
from graph_builder.predicates import parse as parse_predicate
from graph_builder.triples import read_articles, read_triples

log = logging.getLogger(__name__)

BUILDER_VERSION = "egqa.booqa_builder.v5"

# Li et al. (2022)'s frequency-bucket bounds (NewsCrawl predicate frequencies).
PUBLISHED_BUCKET_BOUNDS: tuple[int, ...] = (
    60, 100, 300, 500, 700, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 6000, 8000, 10000, 15000, 20000,
    30000, 50000, 100000)


def scaled_bucket_bounds(scale: float) -> tuple[int, ...]:
    """Return the published bucket bounds multiplied by `scale` (rounded, duplicates merged)."""
    if scale <= 0:
        raise InputError(f"bucket scale must be positive, got {scale}")
    return tuple(sorted({max(1, round(b * scale)) for b in PUBLISHED_BUCKET_BOUNDS}))


# Reuters-21578 is far smaller than NewsCrawl; a tenth of the bounds keeps several buckets busy.
DEFAULT_BUCKET_SCALE = 0.1
DEFAULT_BUCKET_BOUNDS: tuple[int, ...] = scaled_bucket_bounds(DEFAULT_BUCKET_SCALE)

# Closed-class words that sit in predicates (prepositions, particles) but have no useful hyponyms.
FUNCTION_WORDS = frozenset(
    "a about above across after against along among an and around as at before behind below beside "
    "between beyond by down during for from in including inside into like near of off on onto out "
    "outside over past per since than the through throughout to toward towards under until up upon via "
    "with within without be have do not".split())

JSONL_FIELDS = ("id", "bundle_id", "split", "label", "subj", "obj", "subj_type", "obj_type", "predicate",
                "predicate_text", "window", "date", "exclude_sentence_ids")


class Lexicon(Protocol):
    """What the builder needs from WordNet (benchmark.wordnet.WordNet satisfies it)."""

    def has(self, phrase: str, pos: str) -> bool:
        """Return whether the phrase has a synset of part of speech `pos` (`v` or `n`)."""
        ...

    def hyponym_sets(self, phrase: str, pos: str, depth: int = 1,
                     max_senses: int | None = None) -> tuple[Hyponym, ...]:
        """Return the hyponym synsets of the phrase as (name, lemmas) (words separated by spaces)."""
        ...

    def synonyms(self, phrase: str, pos: str) -> list[str]:
        """Return the other lemmas of the phrase's synsets."""
        ...

    def senses(self, phrase: str, pos: str) -> list[Sense]:
        """Return the senses of the phrase, most frequent first."""
        ...

    def sense_hyponym_sets(self, phrase: str, senses: tuple[str, ...],
                           depth: int = 1) -> tuple[Hyponym, ...]:
        """Return the hyponym synsets of the named senses only, as (name, lemmas)."""
        ...


@dataclass(frozen=True)
class BuildConfig:
    """Every threshold and choice of the construction; the defaults suit Reuters-21578."""

    min_pair_articles: int = 2          # starring pair: mentioned in >= this many articles of the window (paper 15)
    min_pair_predicates: int = 2        # ... with >= this many distinct predicates in the window (paper 15)
    min_predicate_pairs: int = 3        # felicitous: seen with >= this many distinct argument pairs (paper 30)
    max_negatives: int = 2              # negatives per positive (paper 2)
    negatives_per_positive: float = 2.0  # bucket quota: negatives per positive in each frequency bucket
    max_span_tokens: int = 3            # longest predicate span replaced by a hyponym
    hyponym_depth: int = 1              # 1 = direct hyponyms only
    max_senses: int | None = None       # senses of a span looked up (None = all); with senses="all" only
    senses: str = DEFAULT_SENSES        # how the span's sense is chosen in its sentence (benchmark.senses)
    sense_min_share: float = 0.7        # `agree`: first-sense share of SemCor counts trusted without the sentence
    negative_filters: tuple[str, ...] = DEFAULT_FILTERS  # filters of probably-true negatives (benchmark.negatives)
    min_typed_pairs: int = 1            # typed_felicity: argument pairs of the positive's types seen with the candidate
    lm_max_cosine: float = 0.8          # lm filter: candidates at least this close to the positive are dropped
    drop_fragments: bool = True         # drop positives whose predicate lost an idiom's word (benchmark.fragments)
    contiguous_positives: bool = False  # drop positives whose text is not one run of words of their sentence
    max_per_predicate: int | None = None  # a predicate's propositions per label and split at most (None = any)
    cap_by: str = "predicate"           # what max_per_predicate counts: the whole predicate or its head word (CAP_KEYS)
    bucket_bounds: tuple[int, ...] = DEFAULT_BUCKET_BOUNDS
    graph_split: str = "TRAIN"          # LEWISSPLIT of the graph-induction period (kept out of evaluation)
    eval_split: str = "TEST"            # LEWISSPLIT of the evaluation period (dev then test, by time)
    dev_fraction: float = 0.5           # share of candidate bundles given to dev (earliest windows)
    max_positives: int = 1500           # per split (dev, test); bundles sampled beyond this
    require_negative: bool = True       # drop positives left without a negative (bundles of one leak labels)
    match_buckets: bool = True          # also drop bundles whose positive sits in a bucket short of negatives
    seed: int = 13
    recipe: str = "wordnet"             # the named recipe these choices started from (RECIPES)

    def __post_init__(self) -> None:
        """Refuse values the construction cannot use."""
        if self.recipe not in RECIPES:
            raise InputError(f"unknown recipe {self.recipe!r}; choose one of {', '.join(RECIPES)}")
        for name in ("min_pair_articles", "min_pair_predicates", "min_predicate_pairs", "max_span_tokens",
                     "hyponym_depth", "max_positives"):
            if getattr(self, name) < 1:
                raise InputError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.max_negatives < 0 or self.negatives_per_positive < 0:
            raise InputError("max_negatives and negatives_per_positive must be >= 0")
        if not 0.0 < self.dev_fraction < 1.0:
            raise InputError(f"dev_fraction must lie strictly between 0 and 1, got {self.dev_fraction}")
        if list(self.bucket_bounds) != sorted(set(self.bucket_bounds)):
            raise InputError("bucket_bounds must be strictly increasing")
        if self.senses not in SENSE_CHOOSERS:
            raise InputError(f"unknown sense chooser {self.senses!r}; choose one of {', '.join(sorted(SENSE_CHOOSERS))}")
        if not 0.0 < self.sense_min_share <= 1.0:
            raise InputError(f"sense_min_share must lie in (0, 1], got {self.sense_min_share}")
        check_filters(self.negative_filters)
        if self.max_per_predicate is not None and self.max_per_predicate < 1:
            raise InputError(f"max_per_predicate must be >= 1 (or None), got {self.max_per_predicate}")
        if self.cap_by not in CAP_KEYS:
            raise InputError(f"unknown cap_by {self.cap_by!r}; choose one of {', '.join(CAP_KEYS)}")
        if self.min_typed_pairs < 0:
            raise InputError(f"min_typed_pairs must be >= 0, got {self.min_typed_pairs}")
        if self.graph_split == self.eval_split:
            raise InputError("graph_split and eval_split must differ: the graphs must not see the evaluation period")


def _head_word(predicate: str) -> str:
    """The predicate's head word (`buy` for `(buy.back.1,buy.back.2)`), or the predicate when it has none."""
    head = _head(predicate)
    return head.split("_")[0] if head else predicate


# What `max_per_predicate` counts: each predicate, or each head word ("bought back" and "bought up" count as one:
# the hypothesis-only audit reads words, so a cap on words keeps the labels from being read off them).
CAP_KEYS: dict[str, Callable[[str], str]] = {"predicate": lambda p: p, "head": _head_word}


# Named sets of choices (`egqa benchmark build --recipe`); options given on the command line override them.
# `wordnet`: negatives are WordNet hyponyms of the sense the sentence agrees with, frequency buckets matched
# (large; most negatives come from another sense of the replaced word, docs/benchmark-builder.md).
# `read`: negatives only through replacements read by hand as more specific statements (benchmark.hyponym_reads),
# positives whose text is one run of their sentence's words; no bucket matching (small; the hypothesis-only
# audit is high, since the specific words that make good negatives are rare ones).
# `checked`: `read`, keeping only the negatives that two readers, seeing each one with its arguments and date,
# judged may well be false (benchmark.negative_reads; the reads cover one corpus, bench/negative_reads.py).
_READ: dict[str, object] = {"senses": "all", "negative_filters": (*DEFAULT_FILTERS, "hyponym_read", "stated_elsewhere"),
                            "contiguous_positives": True, "match_buckets": False}
RECIPES: dict[str, dict[str, object]] = {
    "wordnet": {},
    "read": _READ,
    "checked": {**_READ, "negative_filters": (*DEFAULT_FILTERS, "hyponym_read", "stated_elsewhere", "negative_read")},
}
DEFAULT_RECIPE = "wordnet"


def recipe_config(name: str, **overrides: object) -> BuildConfig:
    """The BuildConfig of a named recipe, with `overrides` (None values ignored) on top."""
    if name not in RECIPES:
        raise InputError(f"unknown recipe {name!r}; choose one of {', '.join(RECIPES)}")
    values = {**RECIPES[name], **{k: v for k, v in overrides.items() if v is not None}, "recipe": name}
    return BuildConfig(**values)  # type: ignore[arg-type]


def predicate_key(predicate: str) -> str:
    """Return a role-free key: the lemmas of both halves without slot numbers, `_` read as a word break."""
    parsed = parse_predicate(predicate)
    if parsed is None:
        return predicate
    left = ".".join(parsed.left).replace("_", ".")
    right = ".".join(parsed.right).replace("_", ".")
    return f"{parsed.prefix}{left}|{right}"




def _token_forms(lemma: str) -> list[tuple[str, ...]]:
    """Return the token tuples a WordNet lemma may take in a predicate: `drop by` -> drop.by or drop_by."""
    words = tuple(lemma.lower().replace("-", " ").split())
    if not words:
        return []
    forms = [words]
    if len(words) > 1:
        forms.append(("_".join(words),))
    return forms


@dataclass(frozen=True)
class Span:
    """A contiguous run of lemma tokens of a predicate that a hyponym may replace."""

    where: str        # "both" (the shared head), "left" or "right" (one half's own tokens)
    start: int
    end: int
    phrase: str
    pos: str


def predicate_spans(pred: Predicate, lexicon: Lexicon, max_tokens: int) -> list[Span]:
    """Return every span of the predicate's lemma string worth a WordNet lookup, with its part of speech."""
    spans: list[Span] = []
    common = pred.common()
    regions = [("both", pred.left, 0, common), ("left", pred.left, common, len(pred.left)),
               ("right", pred.right, common, len(pred.right))]
    for where, tokens, lo, hi in regions:
        for start in range(lo, hi):
            for end in range(start + 1, min(hi, start + max_tokens) + 1):
                words = [w for token in tokens[start:end] for w in token.split("_")]
                if all(w in FUNCTION_WORDS for w in words) or not all(w.isalpha() for w in words):
                    continue
                phrase = " ".join(words)
                # The head of a predicate is a verb unless WordNet knows no such verb (noun heads such as
                # `treatment.for`); the words after it (objects of light verbs) are nouns.
                pos = "v" if start == 0 and lexicon.has(phrase, "v") else "n"
                if lexicon.has(phrase, pos):
                    spans.append(Span(where, start, end, phrase, pos))
    return spans


def _replace(pred: Predicate, span: Span, tokens: tuple[str, ...]) -> str:
    left, right = pred.left, pred.right
    if span.where in ("both", "left"):
        left = (*left[:span.start], *tokens, *left[span.end:])
    if span.where in ("both", "right"):
        right = (*right[:span.start], *tokens, *right[span.end:])
    return Predicate(pred.prefix, left, pred.left_slot, right, pred.right_slot).text()


@dataclass(frozen=True)
class NegativeCandidate:
    """A hyponym predicate for a positive, with the keys that must all be absent from the window/pair."""

    predicate: str
    blocking_keys: frozenset[str]
    replaced: str = ""                  # the positive's word it replaces
    pos: str = "v"
    lemmas: tuple[str, ...] = ()        # the hyponym synset's lemmas
    lemma: str = ""                     # the one of them that replaces it
    synset: str = ""                    # the hyponym synset's name (`auction.v.01`)


SpanSenses = dict[tuple[str, int, int], tuple[str, ...] | None]


def hyponym_candidates(predicate: str, lexicon: Lexicon, felicitous: set[str] | frozenset[str],
                       config: BuildConfig, senses: SpanSenses | None = None) -> list[NegativeCandidate]:
    """Return the felicitous predicates made by replacing one span of `predicate` by a WordNet hyponym.

    `senses` maps a span (where, start, end) to the senses whose hyponyms it takes: None (or a span not in
    the map) = every sense, () = none.
    """
    pred = parse_predicate(predicate)
    if pred is None or is_negated(predicate):
        # Under negation a hyponym is entailed ("did not go" -> "did not drive"): no negatives there.
        return []
    found: dict[str, set[str]] = {}
    origin: dict[str, tuple[str, str, tuple[str, ...], str, str]] = {}
    for span in predicate_spans(pred, lexicon, config.max_span_tokens):
        chosen = (senses or {}).get((span.where, span.start, span.end))
        if chosen is None:
            hyponym_sets = lexicon.hyponym_sets(span.phrase, span.pos, config.hyponym_depth, config.max_senses)
        elif not chosen:
            continue
        else:
            hyponym_sets = lexicon.sense_hyponym_sets(span.phrase, chosen, config.hyponym_depth)
        for synset, lemmas in hyponym_sets:
            # Absence covers the whole hyponym synset and every synonym of each of its lemmas.
            blocking_lemmas = set(lemmas)
            for lemma in lemmas:
                blocking_lemmas.update(lexicon.synonyms(lemma, span.pos))
            blocking = {predicate_key(_replace(pred, span, form))
                        for lemma in blocking_lemmas for form in _token_forms(lemma)}
            for lemma in lemmas:
                for form in _token_forms(lemma):
                    candidate = _replace(pred, span, form)
                    if candidate != predicate and candidate in felicitous:
                        found.setdefault(candidate, set()).update(blocking)
                        origin.setdefault(candidate, (span.phrase, span.pos, lemmas, lemma, synset))
    return [NegativeCandidate(p, frozenset(found[p]), *origin[p]) for p in sorted(found)]


def span_senses(predicate: str, lexicon: Lexicon, config: BuildConfig) -> list[Span]:
    """The spans of a predicate whose sense the chooser is asked for (the ones `hyponym_candidates` uses)."""
    pred = parse_predicate(predicate)
    if pred is None or is_negated(predicate):
        return []
    return predicate_spans(pred, lexicon, config.max_span_tokens)


@dataclass
class Bundle:
    """One positive proposition with its candidate (then chosen) negatives."""

    window: int
    subj: str
    obj: str
    subj_type: str
    obj_type: str
    predicate: str
    predicate_text: str
    date: str
    sentence_id: str
    candidates: list[NegativeCandidate]
    negatives: list[str] = field(default_factory=list)
    context: str = ""                                        # the positive's proposition and sentence
    present: frozenset[str] = frozenset()                    # predicate keys the window states about the pair
    window_heads: frozenset[str] = frozenset()               # their head lemmas
    pair_elsewhere: frozenset[str] = frozenset()             # predicate keys stated about the pair in other windows


@dataclass(frozen=True)
class Benchmark:
    """The built benchmark: entries per split (dev, test), in id order, and the stats."""

    entries: dict[str, list[dict[str, object]]]
    stats: BenchmarkStats


_COLUMNS = ["triple_id", "article_id", "sentence_id", "date", "window", "split", "subj", "obj", "subj_type",
            "obj_type", "predicate", "predicate_text", "negated"]
# Read when present: the sentence disambiguates the replaced span and shows idiom fragments.
_TEXT_COLUMNS = ["sentence", "subj_text", "obj_text"]


def bucket_of(frequency: int, bounds: Sequence[int]) -> int:
    """Return the frequency bucket index: 0 below bounds[0], i for bounds[i-1] <= f < bounds[i]."""
    return bisect.bisect_right(list(bounds), frequency)


def _window_splits(triples: pa.Table, articles: pa.Table | None) -> tuple[dict[int, int], dict[int, set[str]]]:
    """Return article counts and the set of LEWISSPLIT values per window."""
    source = articles if articles is not None else triples
    counts: dict[int, set[str]] = defaultdict(set)
    splits: dict[int, set[str]] = defaultdict(set)
    for article, window, split in zip(source.column("article_id").to_pylist(), source.column("window").to_pylist(),
                                      source.column("split").to_pylist()):
        counts[window].add(article)
        splits[window].add(split)
    return {w: len(a) for w, a in counts.items()}, dict(splits)


Rows = dict[str, list]  # column name -> values, one per triple


@dataclass(frozen=True)
class _Predicates:
    """Corpus-wide predicate statistics: frequency, commonest surface text, felicity, typed argument pairs."""

    frequency: Counter[str]
    surface: dict[str, str]
    felicitous: frozenset[str]
    typed_pairs: dict[tuple[str, str, str], int]


@dataclass(frozen=True)
class _Windows:
    """The evaluation windows, those dropped for holding graph-period articles too, and articles per window."""

    evaluation: list[int]
    straddling: list[int]
    article_counts: dict[int, int]


def _read_rows(triples: pa.Table, config: BuildConfig) -> tuple[Rows, bool]:
    """Return the triples' columns as lists, and whether the sentence texts came with them."""
    missing = [c for c in _COLUMNS if c not in triples.column_names]
    if missing:
        raise InputError(f"triples lack the columns {missing}")
    rows = {name: triples.column(name).to_pylist() for name in _COLUMNS}
    has_text = all(c in triples.column_names for c in _TEXT_COLUMNS)
    if has_text:
        rows.update({name: triples.column(name).to_pylist() for name in _TEXT_COLUMNS})
    elif config.senses != "all" or config.drop_fragments:
        log.warning("the triples lack %s: spans get every sense and fragments are kept", _TEXT_COLUMNS)
    if not rows["triple_id"]:
        raise InputError("the triples dataset is empty")
    return rows, has_text


def _predicate_stats(rows: Rows, config: BuildConfig) -> _Predicates:
    """Count each predicate's argument pairs (felicity), frequency and surface texts over the whole corpus."""
    pairs_of: dict[str, set[tuple[str, str]]] = defaultdict(set)
    typed_pairs_of: dict[tuple[str, str, str], set[tuple[str, str]]] = defaultdict(set)
    frequency: Counter[str] = Counter()
    texts: dict[str, Counter[str]] = defaultdict(Counter)
    for p, subj, obj, subj_type, obj_type, text in zip(rows["predicate"], rows["subj"], rows["obj"],
                                                         rows["subj_type"], rows["obj_type"], rows["predicate_text"]):
        pairs_of[p].add((subj, obj))
        typed_pairs_of[(p, subj_type, obj_type)].add((subj, obj))
        frequency[p] += 1
        texts[p][text] += 1
    surface = {p: commonest_forward_text(p, c) for p, c in texts.items()}
    felicitous = frozenset(p for p, pairs in pairs_of.items() if len(pairs) >= config.min_predicate_pairs
                           and not (config.drop_fragments and garbled(surface[p])))
    return _Predicates(frequency, surface, felicitous, {key: len(pairs) for key, pairs in typed_pairs_of.items()})


def reads_forward(predicate: str, text: str) -> bool:
    """Whether "subject TEXT object" reads in the predicate's direction. A passive text ("owned by", "built by") of
    a predicate whose subject is the agent (`(own.1,own.2)`) reads backwards: "[organization] built by [thing]"."""
    words = text.lower().split()
    return not (words and words[-1] == "by" and ".by." not in predicate)


def commonest_forward_text(predicate: str, texts: Counter[str]) -> str:
    """The predicate's commonest text among those that read forwards (else its commonest text): every entry of
    a predicate, positive or negative, shows this one text, so the text tells nothing of the label."""
    forward = {t: n for t, n in texts.items() if reads_forward(predicate, t)} or dict(texts)
    return min(forward.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def _evaluation_windows(triples: pa.Table, articles: pa.Table | None, config: BuildConfig) -> _Windows:
    """Return the windows holding evaluation-period articles only (graph-period ones are never evaluated)."""
    article_counts, window_splits = _window_splits(triples, articles)
    evaluation = sorted(w for w, s in window_splits.items() if config.eval_split in s and config.graph_split not in s)
    straddling = sorted(w for w, s in window_splits.items() if config.eval_split in s and config.graph_split in s)
    if straddling:
        log.info("dropping %d window(s) holding both %s and %s articles: %s", len(straddling),
                 config.graph_split, config.eval_split, straddling)
    if not evaluation:
        raise InputError(f"no window holds only {config.eval_split} articles; check --eval-split "
                         f"(splits present: {sorted({s for v in window_splits.values() for s in v})})")
    return _Windows(evaluation, straddling, article_counts)


def _window_bundles(rows: Rows, has_text: bool, window: int, indices: list[int], predicates: _Predicates,
                    lexicon: Lexicon, config: BuildConfig, candidates_cache: dict[str, list[NegativeCandidate]],
                    counts: Counter[str]) -> list[Bundle]:
    """Return one window's bundles: felicitous positives about its starring pairs, with their usable negatives."""
    pair_rows: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i in indices:
        a, b = rows["subj"][i], rows["obj"][i]
        if a != b:
            pair_rows[_unordered(a, b)].append(i)
    bundles: list[Bundle] = []
    for pair in sorted(pair_rows):
        idx = pair_rows[pair]
        if len({rows["article_id"][i] for i in idx}) < config.min_pair_articles:
            continue
        if len({rows["predicate"][i] for i in idx}) < config.min_pair_predicates:
            continue
        counts["starring_pairs"] += 1
        present = frozenset(predicate_key(rows["predicate"][i]) for i in idx)
        heads = frozenset(h for h in (_head(rows["predicate"][i]) for i in idx) if h)
        seen: set[tuple[str, str, str]] = set()
        for i in sorted(idx, key=lambda i: rows["triple_id"][i]):
            p = rows["predicate"][i]
            prop = (rows["subj"][i], p, rows["obj"][i])
            if prop in seen or p not in predicates.felicitous or rows["negated"][i] or is_negated(p):
                continue
            seen.add(prop)
            counts["positives_available"] += 1
            if config.drop_fragments and (garbled(rows["predicate_text"][i]) or clause_object(p)):
                counts["fragment_positives"] += 1
                continue
            if has_text and config.drop_fragments and idiom_complement(
                    p, rows["predicate_text"][i], rows["sentence"][i], (rows["subj_text"][i], rows["obj_text"][i])):
                counts["fragment_positives"] += 1
                continue
            if has_text and config.contiguous_positives and detached(rows["predicate_text"][i], rows["sentence"][i]):
                counts["detached_positives"] += 1
                continue
            if p not in candidates_cache:
                candidates_cache[p] = hyponym_candidates(p, lexicon, predicates.felicitous, config)
            usable = [c for c in candidates_cache[p] if not (c.blocking_keys & present)]
            if not usable and config.require_negative:
                continue
            date = rows["date"][i]
            context = (f"{rows['subj_text'][i]} {rows['predicate_text'][i]} {rows['obj_text'][i]}. "
                       f"{rows['sentence'][i]}" if has_text else "")
            bundles.append(Bundle(
                window=window, subj=rows["subj"][i], obj=rows["obj"][i], subj_type=rows["subj_type"][i],
                obj_type=rows["obj_type"][i], predicate=p, predicate_text=rows["predicate_text"][i],
                date=date.isoformat() if isinstance(date, dt.date) else str(date),
                sentence_id=rows["sentence_id"][i], candidates=usable, context=context, present=present,
                window_heads=heads))
    return bundles


def _candidate_bundles(rows: Rows, has_text: bool, windows: _Windows, predicates: _Predicates, lexicon: Lexicon,
                       config: BuildConfig, counts: Counter[str]) -> tuple[dict[int, list[Bundle]], dict[str, int]]:
    """Return every evaluation window's bundles, senses chosen and probably-true negatives filtered, and what
    each filter removed."""
    by_window: dict[int, list[int]] = defaultdict(list)
    eval_set = set(windows.evaluation)
    for i, window in enumerate(rows["window"]):
        # Every triple of an evaluation window counts (also articles outside both splits, e.g. NOT-USED):
        # the evidence store holds them, so the absence check must see them too.
        if window in eval_set:
            by_window[window].append(i)
    candidates_cache: dict[str, list[NegativeCandidate]] = {}
    bundles_by_window: dict[int, list[Bundle]] = {}
    for window in tqdm(windows.evaluation, desc="windows", unit="window", leave=False):
        bundles = _window_bundles(rows, has_text, window, by_window.get(window, []), predicates, lexicon, config,
                                  candidates_cache, counts)
        if bundles:
            bundles_by_window[window] = bundles
    counts["bundles_before_senses"] = sum(len(b) for b in bundles_by_window.values())
    if has_text and config.senses != "all":
        _disambiguate(bundles_by_window, lexicon, predicates.felicitous, config, counts)
    if "stated_elsewhere" in config.negative_filters:
        _mark_stated_elsewhere(rows, bundles_by_window)
    removed = _filter_negatives(bundles_by_window, lexicon, predicates.typed_pairs, config, counts)
    if config.require_negative:
        bundles_by_window = {w: kept for w, bs in bundles_by_window.items() if (kept := [b for b in bs if b.candidates])}
    counts["candidate_bundles"] = sum(len(b) for b in bundles_by_window.values())
    if not bundles_by_window:
        unread = (f"; {counts['unread_replacements']} of the {counts['replacements']} replacements were never read "
                  "by hand (python bench/hyponym_reads.py TRIPLES --sheet F lists them)"
                  if counts["unread_replacements"] else "")
        unread += (f"; {counts['unread_negatives']} of the {counts['negatives_asked']} candidate negatives were "
                   "never read by hand (python bench/negative_reads.py sheet TRIPLES F lists them)"
                   if counts["unread_negatives"] else "")
        raise InputError(
            f"no positive with a usable negative: {counts['starring_pairs']} starring pairs, "
            f"{counts['positives_available']} felicitous propositions; lower --min-pair-articles, "
            f"--min-pair-predicates or --min-predicate-pairs{unread}")
    return bundles_by_window, removed


def _build_split(split: str, bundles_by_window: dict[int, list[Bundle]], windows: list[int],
                 article_counts: dict[int, int], predicates: _Predicates, config: BuildConfig,
                 rng: random.Random) -> tuple[list[dict[str, object]], SplitStats]:
    """Sample one split's bundles from its windows, give them negatives, and return its entries and stats."""
    chosen = _sample_bundles({w: bundles_by_window[w] for w in windows}, article_counts,
                             config.max_positives, rng, config.max_per_predicate, CAP_KEYS[config.cap_by])
    bucket_counts = _choose_negatives(chosen, predicates.frequency, config, rng)
    if config.require_negative:
        chosen = [b for b in chosen if b.negatives]
    if config.match_buckets:
        chosen, bucket_counts = _match_buckets(chosen, predicates.frequency, config.bucket_bounds, rng)
    entries = _entries(split, chosen, predicates.surface)
    positives = sum(1 for e in entries if e["label"] == 1)
    used = sorted({b.window for b in chosen})
    return entries, SplitStats(
        window_ids=used,
        dates=[min(b.date for b in chosen), max(b.date for b in chosen)] if chosen else None,
        articles=sum(article_counts.get(w, 0) for w in used),
        candidate_windows=len(windows),
        candidate_bundles=sum(len(bundles_by_window[w]) for w in windows),
        bundles=len(chosen), positives=positives, negatives=len(entries) - positives, buckets=bucket_counts)


def build_benchmark(triples: pa.Table, lexicon: Lexicon, config: BuildConfig = BuildConfig(),
                    articles: pa.Table | None = None) -> Benchmark:
    """Build dev and test entries and their stats from a triples table (and optionally its article table)."""
    pool = _pool(triples, lexicon, config, articles)
    rows, predicates, windows, counts = pool.rows, pool.predicates, pool.windows, pool.counts
    bundles_by_window, filter_removed = pool.bundles_by_window, pool.removed
    split_windows = _time_split(bundles_by_window, config.dev_fraction)
    rng = random.Random(config.seed)
    entries: dict[str, list[dict[str, object]]] = {}
    splits: dict[str, SplitStats] = {}
    for split in ("dev", "test"):
        entries[split], splits[split] = _build_split(split, bundles_by_window, split_windows[split],
                                                     windows.article_counts, predicates, config, rng)
    graph_dates = sorted(d for d, s in zip(rows["date"], rows["split"]) if s == config.graph_split)
    stats = BenchmarkStats(
        builder=BUILDER_VERSION,
        senses=SenseStats(chooser=config.senses if pool.has_text else "all", version=SENSES_VERSION,
                          spans=counts["sense_spans"], spans_with_a_sense=counts["sense_spans_chosen"],
                          bundles_left_without_negative=counts["sense_bundles_emptied"]),
        filter_order=list(config.negative_filters), filter_removed=filter_removed,
        fragment_positives=counts["fragment_positives"], detached_positives=counts["detached_positives"],
        bundles_before_senses=counts["bundles_before_senses"],
        splits=splits, graph_split=config.graph_split,
        graph_dates=[graph_dates[0].isoformat(), graph_dates[-1].isoformat()] if graph_dates else None,
        dropped_straddling_windows=windows.straddling, starring_pairs=counts["starring_pairs"],
        felicitous_predicates=len(predicates.felicitous), positives_available=counts["positives_available"],
        candidate_bundles=counts["candidate_bundles"],
        thresholds={k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(config).items()},
        hyponym_reads=load_reads().manifest() | {
            "replacements_in_candidates": counts["replacements"], "never_read": counts["unread_replacements"]}
        if "hyponym_read" in config.negative_filters else None,
        negative_reads=load_negative_reads().manifest() | {
            "candidates_asked": counts["negatives_asked"], "never_read": counts["unread_negatives"]}
        if "negative_read" in config.negative_filters else None)
    return Benchmark(entries=entries, stats=stats)


@dataclass(frozen=True)
class Candidates:
    """Every evaluation window's bundles with their candidate negatives after the filters, before sampling."""

    bundles_by_window: dict[int, list[Bundle]]
    surface: dict[str, str]          # each predicate's commonest forward-reading text
    counts: Counter[str]             # what each stage kept and dropped (as in stats.json)
    filter_removed: dict[str, int]   # candidates each negative filter removed


def candidate_negatives(triples: pa.Table, lexicon: Lexicon, config: BuildConfig = BuildConfig(),
                        articles: pa.Table | None = None) -> Candidates:
    """Run the builder up to its candidate negatives (positives chosen, senses and filters applied), without
    sampling: what `bench/hyponym_reads.py` counts, and the pool a recipe's negatives are drawn from."""
    pool = _pool(triples, lexicon, config, articles)
    return Candidates(pool.bundles_by_window, pool.predicates.surface, pool.counts, pool.removed)


@dataclass(frozen=True)
class _Pool:
    """The builder's state before sampling, shared by `build_benchmark` and `candidate_negatives`."""

    rows: Rows
    has_text: bool
    predicates: _Predicates
    windows: _Windows
    counts: Counter[str]
    bundles_by_window: dict[int, list[Bundle]]
    removed: dict[str, int]


def _pool(triples: pa.Table, lexicon: Lexicon, config: BuildConfig, articles: pa.Table | None) -> _Pool:
    """Read the rows, count the corpus' predicates, find the evaluation windows and their candidate bundles."""
    rows, has_text = _read_rows(triples, config)
    predicates = _predicate_stats(rows, config)
    windows = _evaluation_windows(triples, articles, config)
    counts: Counter[str] = Counter()
    bundles_by_window, removed = _candidate_bundles(rows, has_text, windows, predicates, lexicon, config, counts)
    return _Pool(rows, has_text, predicates, windows, counts, bundles_by_window, removed)


def _head(predicate: str) -> str | None:
    parsed = parse_predicate(predicate)
    return parsed.left[0] if parsed is not None and parsed.left else None


def _disambiguate(bundles_by_window: dict[int, list[Bundle]], lexicon: Lexicon, felicitous: frozenset[str],
                  config: BuildConfig, counts: Counter[str]) -> None:
    """Keep each bundle's candidates from the sense its sentence gives the replaced span (in place)."""
    chooser = sense_chooser(config.senses)
    if isinstance(chooser, AgreeingSense):
        chooser.min_share = config.sense_min_share
    bundles = [b for w in sorted(bundles_by_window) for b in bundles_by_window[w]]
    requests: list[SpanInContext] = []
    keys: list[tuple[int, tuple[str, int, int]]] = []
    for k, bundle in enumerate(bundles):
        for span in span_senses(bundle.predicate, lexicon, config):
            requests.append(SpanInContext(span.phrase, span.pos, bundle.context))
            keys.append((k, (span.where, span.start, span.end)))
    log.info("choosing the senses of %d spans in %d sentences (%s)", len(requests), len(bundles), chooser.name)
    choices = chooser.choose(requests, lexicon)
    per_bundle: dict[int, SpanSenses] = defaultdict(dict)
    for (k, span_key), chosen in zip(keys, choices, strict=True):
        per_bundle[k][span_key] = chosen
        counts["sense_spans"] += 1
        counts["sense_spans_chosen"] += bool(chosen)
    cache: dict[tuple[str, tuple[tuple[tuple[str, int, int], tuple[str, ...] | None], ...]], list[NegativeCandidate]] = {}
    for k, bundle in enumerate(bundles):
        senses = per_bundle.get(k, {})
        key = (bundle.predicate, tuple(sorted(senses.items(), key=lambda kv: kv[0])))
        if key not in cache:
            cache[key] = hyponym_candidates(bundle.predicate, lexicon, felicitous, config, senses)
        bundle.candidates = [c for c in cache[key] if not (c.blocking_keys & bundle.present)]
        counts["sense_bundles_emptied"] += not bundle.candidates


def _unordered(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def _mark_stated_elsewhere(rows: Rows, bundles_by_window: dict[int, list[Bundle]]) -> None:
    """Give each bundle the predicate keys the whole corpus states about its pair in other windows (in place)."""
    wanted = {_unordered(b.subj, b.obj) for bs in bundles_by_window.values() for b in bs}
    windows_of: dict[tuple[str, str], dict[str, set[int]]] = {pair: defaultdict(set) for pair in wanted}
    for subj, obj, predicate, window in zip(rows["subj"], rows["obj"], rows["predicate"], rows["window"]):
        keys = windows_of.get(_unordered(subj, obj))
        if keys is not None:
            keys[predicate_key(predicate)].add(window)
    for window, bundles in bundles_by_window.items():
        for bundle in bundles:
            keys = windows_of[_unordered(bundle.subj, bundle.obj)]
            bundle.pair_elsewhere = frozenset(k for k, ws in keys.items() if ws - {window})


def _filter_negatives(bundles_by_window: dict[int, list[Bundle]], lexicon: Lexicon,
                      typed_pairs: dict[tuple[str, str, str], int], config: BuildConfig,
                      counts: Counter[str]) -> dict[str, int]:
    """Drop candidates the window probably makes true (in place); return what each filter removed."""
    if not config.negative_filters:
        return {}
    bundles = [b for w in sorted(bundles_by_window) for b in bundles_by_window[w]]
    items: list[CandidateInContext] = []
    owners: list[tuple[int, NegativeCandidate]] = []
    # The predicate key and the candidate's digest are read by one filter each: computed only for it.
    keyed, named = "stated_elsewhere" in config.negative_filters, "negative_read" in config.negative_filters
    for k, bundle in enumerate(bundles):
        for c in bundle.candidates:
            items.append(CandidateInContext(
                predicate=c.predicate, positive=bundle.predicate, replaced=c.replaced, pos=c.pos, lemmas=c.lemmas,
                lemma=c.lemma, synset=c.synset, key=predicate_key(c.predicate) if keyed else "",
                pair_elsewhere=bundle.pair_elsewhere, types=(bundle.subj_type, bundle.obj_type),
                window_heads=bundle.window_heads,
                instance=negative_key(bundle.window, bundle.subj, bundle.obj, bundle.predicate, c.predicate)
                if named else ""))
            owners.append((k, c))
    inputs = FilterInputs(lexicon=lexicon, typed_pairs=typed_pairs, min_typed_pairs=config.min_typed_pairs,
                          lm_max_cosine=config.lm_max_cosine,
                          reads=load_reads() if "hyponym_read" in config.negative_filters else None,
                          negative_reads=load_negative_reads() if "negative_read" in config.negative_filters else None)
    reached: dict[str, list[int]] = {}
    kept, removed = apply_filters(items, config.negative_filters, inputs, reached)
    if inputs.reads is not None:
        # The replacements the read filter was asked about (the earlier filters' survivors), and those never read.
        used = {(c.replaced, c.pos, c.synset, c.lemma, c.types) for c in (items[k] for k in reached["hyponym_read"])}
        counts["replacements"] = len({u[:4] for u in used})
        counts["unread_replacements"] = len({u[:4] for u in used if inputs.reads.verdict(*u) is None})
    if inputs.negative_reads is not None:
        # The candidates the negative read filter was asked about, and those never read.
        asked = {items[k].instance for k in reached["negative_read"]}
        counts["negatives_asked"] = len(asked)
        counts["unread_negatives"] = sum(1 for key in asked if inputs.negative_reads.keeps(key) is None)
    survivors: dict[int, list[NegativeCandidate]] = defaultdict(list)
    for (k, c), ok in zip(owners, kept, strict=True):
        if ok:
            survivors[k].append(c)
    for k, bundle in enumerate(bundles):
        bundle.candidates = survivors.get(k, [])
    counts["filtered_candidates"] = sum(removed.values())
    return removed


def _time_split(bundles_by_window: dict[int, list[Bundle]], dev_fraction: float) -> dict[str, list[int]]:
    """Cut the evaluation windows at one date: the earliest ones holding `dev_fraction` of the bundles are dev."""
    windows = sorted(bundles_by_window)
    if len(windows) < 2:
        raise InputError(f"only {len(windows)} evaluation window(s) with bundles: dev and test need two time spans")
    total = sum(len(bundles_by_window[w]) for w in windows)
    running = 0
    cut = 1
    for k, w in enumerate(windows):
        running += len(bundles_by_window[w])
        cut = k + 1
        if running >= dev_fraction * total:
            break
    cut = min(max(cut, 1), len(windows) - 1)
    return {"dev": windows[:cut], "test": windows[cut:]}


def _sample_bundles(bundles_by_window: dict[int, list[Bundle]], article_counts: dict[int, int],
                    limit: int, rng: random.Random, per_predicate: int | None = None,
                    cap_key: Callable[[str], str] = CAP_KEYS["predicate"]) -> list[Bundle]:
    """Draw bundles one at a time from windows picked in proportion to their article counts.

    With `per_predicate`, a bundle whose positive predicate was drawn that many times already is passed over.
    """
    drawn: Counter[str] = Counter()
    pools = {w: sorted(bs, key=lambda b: (b.subj, b.predicate, b.obj)) for w, bs in bundles_by_window.items()}
    for w in sorted(pools):
        rng.shuffle(pools[w])
    chosen: list[Bundle] = []
    while len(chosen) < limit:
        live = [w for w in sorted(pools) if pools[w]]
        if not live:
            break
        window = rng.choices(live, weights=[max(article_counts.get(w, 0), 1) for w in live])[0]
        bundle = pools[window].pop()
        key = cap_key(bundle.predicate)
        if per_predicate is not None and drawn[key] >= per_predicate:
            continue
        drawn[key] += 1
        chosen.append(bundle)
    return chosen


def _choose_negatives(bundles: list[Bundle], frequency: Counter[str], config: BuildConfig,
                      rng: random.Random) -> dict[str, dict[str, int]]:
    """Pick up to max_negatives per positive so each frequency bucket gets <= quota x its positives."""
    bounds = config.bucket_bounds
    positives_per_bucket = Counter(bucket_of(frequency[b.predicate], bounds) for b in bundles)
    quota = {k: int(round(config.negatives_per_positive * v)) for k, v in positives_per_bucket.items()}
    offers = [(k, c.predicate) for k, b in enumerate(bundles) for c in b.candidates]
    rng.shuffle(offers)
    used: Counter[int] = Counter()
    per_predicate: Counter[str] = Counter()
    cap, cap_key = config.max_per_predicate, CAP_KEYS[config.cap_by]
    for k, predicate in offers:
        bundle = bundles[k]
        bucket = bucket_of(frequency[predicate], bounds)
        if len(bundle.negatives) >= config.max_negatives or used[bucket] >= quota.get(bucket, 0):
            continue
        key = cap_key(predicate)
        if cap is not None and per_predicate[key] >= cap:
            continue
        bundle.negatives.append(predicate)
        used[bucket] += 1
        per_predicate[key] += 1
    for bundle in bundles:
        bundle.negatives.sort()
    names = [_bucket_name(i, bounds) for i in range(len(bounds) + 1)]
    return {names[i]: {"positives": positives_per_bucket.get(i, 0), "negatives": used.get(i, 0)}
            for i in range(len(bounds) + 1) if positives_per_bucket.get(i, 0) or used.get(i, 0)}


def _bucket_table(bundles: list[Bundle], frequency: Counter[str],
                  bounds: Sequence[int]) -> tuple[Counter[int], Counter[int]]:
    pos = Counter(bucket_of(frequency[b.predicate], bounds) for b in bundles)
    neg = Counter(bucket_of(frequency[p], bounds) for b in bundles for p in b.negatives)
    return pos, neg


def _match_buckets(bundles: list[Bundle], frequency: Counter[str], bounds: Sequence[int],
                   rng: random.Random) -> tuple[list[Bundle], dict[str, dict[str, int]]]:
    """Drop whole bundles until every bucket holds about the overall negatives-per-positive ratio."""
    # Hyponyms are rarer words than the predicates they replace, so frequent buckets run short of
    # negatives; without this, "frequent predicate => true" is a hypothesis-only shortcut.
    pos, neg = _bucket_table(bundles, frequency, bounds)
    ratio = sum(neg.values()) / max(sum(pos.values()), 1)
    kept = list(bundles)
    for _ in range(50):
        pos, neg = _bucket_table(kept, frequency, bounds)
        excess = {k: pos[k] - int(neg[k] / ratio + 0.5) for k in pos if pos[k] > neg[k] / ratio + 0.5}
        if not excess or ratio == 0:
            break
        surplus = {k: neg[k] - ratio * pos[k] for k in set(pos) | set(neg)}
        drop: set[int] = set()
        for k in sorted(excess):
            members = [i for i, b in enumerate(kept) if bucket_of(frequency[b.predicate], bounds) == k]
            rng.shuffle(members)
            # Drop first the bundles whose negatives sit in buckets with negatives to spare, so that
            # dropping does not open a new deficit elsewhere (a cascade that would empty the benchmark).
            harm = {i: sum(1 for n in kept[i].negatives if surplus.get(bucket_of(frequency[n], bounds), 0.0) < 1.0)
                    for i in members}
            members.sort(key=lambda i: harm[i])
            drop.update(members[:excess[k]])
        kept = [b for i, b in enumerate(kept) if i not in drop]
    pos, neg = _bucket_table(kept, frequency, bounds)
    names = [_bucket_name(i, bounds) for i in range(len(bounds) + 1)]
    table = {names[i]: {"positives": pos.get(i, 0), "negatives": neg.get(i, 0)}
             for i in range(len(bounds) + 1) if pos.get(i, 0) or neg.get(i, 0)}
    return kept, table


def _bucket_name(index: int, bounds: Sequence[int]) -> str:
    low = 0 if index == 0 else bounds[index - 1]
    return f"[{low},{bounds[index]})" if index < len(bounds) else f"[{low},inf)"


def _entries(split: str, bundles: list[Bundle], surface: dict[str, str]) -> list[dict[str, object]]:
    """Turn chosen bundles into JSONL entries with stable ids (bundles ordered by window, pair, predicate)."""
    ordered = sorted(bundles, key=lambda b: (b.window, b.subj, b.obj, b.predicate, b.sentence_id))
    out: list[dict[str, object]] = []
    for n, b in enumerate(ordered):
        bundle_id = f"{split}-{n:05d}"
        props = [(1, b.predicate, surface[b.predicate])] + [(0, p, surface[p]) for p in b.negatives]
        for k, (label, predicate, text) in enumerate(props):
            out.append({
                "id": f"{bundle_id}-{k}", "bundle_id": bundle_id, "split": split, "label": label,
                "subj": b.subj, "obj": b.obj, "subj_type": b.subj_type, "obj_type": b.obj_type,
                "predicate": predicate, "predicate_text": text, "window": b.window, "date": b.date,
                # The whole bundle excludes the positive's source sentence: the same evidence for all.
                "exclude_sentence_ids": [b.sentence_id],
            })
    return out


def write_jsonl(entries: Iterable[dict[str, object]], path: Path) -> None:
    """Write entries as JSON Lines, one object per line, keys in JSONL_FIELDS order."""
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as handle:
        for entry in entries:
            handle.write(orjson.dumps(entry) + b"\n")
    tmp.replace(path)


def read_jsonl(path: Path) -> list[dict[str, object]]:
    """Read a benchmark JSON Lines file."""
    if not path.is_file():
        raise InputError(f"{path}: no such benchmark file")
    out = []
    with path.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    out.append(orjson.loads(line))
                except orjson.JSONDecodeError as exc:
                    raise InputError(f"{path}:{number}: not JSON ({exc})") from None
    return out


def build_benchmark_files(triples_path: Path, out_dir: Path, config: BuildConfig = BuildConfig(),
                          wordnet_cache: Path | None = None) -> BenchmarkStats:
    """Build the benchmark from a triples dataset into `out_dir` (dev.jsonl, test.jsonl, stats.json)."""
    from benchmark.wordnet import open_wordnet

    lexicon = open_wordnet(wordnet_cache)
    triples = read_triples(triples_path, columns=[*_COLUMNS, *_TEXT_COLUMNS])
    try:
        articles: pa.Table | None = read_articles(triples_path)
    except ArtefactError:
        log.info("%s has no article table: window sizes counted from articles with triples", triples_path)
        articles = None
    result = build_benchmark(triples, lexicon, config, articles)
    out_dir.mkdir(parents=True, exist_ok=True)
    for split, entries in result.entries.items():
        write_jsonl(entries, out_dir / f"{split}.jsonl")
    stats = replace(result.stats, triples=str(triples_path))
    (out_dir / "stats.json").write_bytes(orjson.dumps(stats.to_dict(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    return stats
