"""Deterministic synthetic corpora in the project's triples schema (seeded numpy), shared by the benchmarks.

- `zipf_triples`: Zipf predicates and entities in one window, for timing the graph build (bench/graph_build.py).
- `generate_booqa`: a BoOQA-scale corpus (bench/booqa_scale.py): dated triples in 3-day windows, a TRAIN
  period for the graphs and a later TEST period for the evidence store, ~48k predicate strings in the
  extractor's normalised forms, typed Zipf arguments, and BoOQA bundles (a positive and its negatives)
  in the benchmark JSON Lines format, each backed by a planted number of evidence triples (its argument
  pair in its window) drawn from a truncated log-normal fitted to a median, a mean and a maximum.

Same spec and seed, same bytes: every random draw comes from `np.random.default_rng([seed, ...])`.
"""

from __future__ import annotations

import datetime as dt
import math
import shutil
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from scipy import optimize, special
from tqdm import tqdm

from graph_builder.errors import InputError
from graph_builder.graphs.artefacts import sha256_file
from graph_builder.triples import ARTICLE_SCHEMA, TRIPLE_SCHEMA, article_shard_path, shard_path
from graph_builder.windows import DEFAULT_WINDOW_DAYS as WINDOW_DAYS, EPOCH, window_of

IntArray = npt.NDArray[np.int64]

TYPES = ["person", "organization", "location", "event", "product", "thing"]


def zipf_triples(n: int, folder: Path, seed: int = 0, shard_rows: int = 1_000_000) -> Path:
    """Write n Zipf-distributed typed triples (predicates, entities) in one window as a triples dataset."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    n_preds, n_ents = max(2000, n // 200), max(5000, n // 20)
    for start in range(0, n, shard_rows):
        m = min(shard_rows, n - start)
        pred = (rng.zipf(1.3, m) - 1) % n_preds
        subj = (rng.zipf(1.2, m) - 1) % n_ents
        obj = (rng.zipf(1.2, m) - 1) % n_ents
        ids = pa.array(np.arange(start, start + m))
        s_str = pc.binary_join_element_wise("e", pc.cast(pa.array(subj), pa.string()), "")
        o_str = pc.binary_join_element_wise("e", pc.cast(pa.array(obj), pa.string()), "")
        p_num = pc.cast(pa.array(pred), pa.string())
        predicate = pc.binary_join_element_wise("(p", p_num, ".1,p", p_num, ".x.2)", "")
        types = np.array(TYPES)
        const = lambda v: pa.repeat(pa.scalar(v, pa.string()), m)  # noqa: E731
        table = pa.table({
            "triple_id": pc.binary_join_element_wise("t", pc.cast(ids, pa.string()), ""),
            "article_id": const("a"), "sentence_id": const("s"),
            "date": pa.repeat(pa.scalar(dt.date(1987, 3, 1), pa.date32()), m),
            "window": pa.repeat(pa.scalar(0, pa.int32()), m), "split": const("train"),
            "subj": s_str, "subj_text": s_str, "subj_type": pa.array(types[subj % len(TYPES)]),
            "obj": o_str, "obj_text": o_str, "obj_type": pa.array(types[obj % len(TYPES)]),
            "predicate": predicate, "predicate_text": const("p"),
            "negated": pa.repeat(pa.scalar(False), m),
            # Two triples per sentence text, as extraction gives: the clean counts have real work to do.
            "sentence": pc.binary_join_element_wise("s", pc.cast(pa.array(np.arange(start, start + m) // 2), pa.string()), ""),
        }, schema=TRIPLE_SCHEMA)
        pq.write_table(table, folder / f"part-{start // shard_rows:05d}.parquet", compression="zstd")
    return folder


# -- the BoOQA-scale corpus ----------------------------------------------------------------------------

GENERATOR_VERSION = "egqa.synthetic-booqa.v1"
GRAPH_SPLIT, EVAL_SPLIT = "TRAIN", "TEST"  # the corpus splits of graph_builder.pipeline (--eval-from)
BENCHMARK_FILE, STATS_FILE, PARAMS_FILE, TRIPLES_DIR = "booqa.jsonl", "stats.json", "params.json", "triples"

# Argument types and their shares (the extractor's type inventory, graph_builder.extraction.arguments).
TYPE_SHARES: dict[str, float] = {"person": 0.24, "organization": 0.22, "location": 0.24, "thing": 0.16,
                                 "group": 0.05, "event": 0.03, "product": 0.03, "building": 0.03}
PREPOSITIONS = ("in", "to", "for", "with", "on", "from", "at", "by", "of", "into", "against", "over", "about", "after")
FILLER = ("officials said on Monday", "according to a statement released late in the day",
          "in a move that surprised analysts", "the company said in a filing", "sources familiar with the matter said",
          "as talks continued into the evening", "a spokesman told reporters", "in a deal valued at several million",
          "after weeks of negotiations", "the report said", "citing people close to the decision",
          "in an interview with local media")
TRIPLES_PER_ARTICLE = 20      # background articles: 10 sentences of 2 triples
TRIPLES_PER_SENTENCE = 2
EVIDENCE_PER_ARTICLE = 8      # evidence articles: one triple per sentence
ARG_EXPONENT, ARG_OFFSET = 1.0, 2.7  # Zipf-Mandelbrot argument popularity over ranks
PREDICATE_EXPONENT = 1.05     # global predicate popularity over ids
TOPIC_EXPONENT = 1.2          # predicate popularity inside a topic, over its ranks
TOPIC_SHARE = 0.8             # share of a pair's triples whose predicate comes from the pair's topic
PREDICATES_PER_TOPIC = 120
REVERSED_SHARE = 0.2          # evidence triples stating the pair in the other order
SHARE_DIVISOR, MAX_SHARED = 25, 16  # a pair with n evidence triples backs up to min(n // 25, 16) bundles
MAX_EVIDENCE_SHARE = 0.8      # evidence triples may fill at most this share of the TEST period
SHARD_ROWS = 500_000


@dataclass(frozen=True)
class CorpusSpec:
    """Sizes and shape of a BoOQA-scale corpus; the defaults are the published evaluation's size."""

    triples: int = 5_000_000
    train_triples: int = 3_000_000
    propositions: int = 60_000
    windows: int = 1343
    predicates: int = 48_000
    entities: int = 0               # 0: triples // 25
    negatives: int = 2              # per positive (the last bundles get one fewer to hit `propositions`)
    evidence_median: float = 7.0    # evidence triples per proposition
    evidence_mean: float = 128.0
    evidence_max: int = 3937
    start: str = "2003-01-01"       # first day of the first window
    seed: int = 14

    def __post_init__(self) -> None:
        """Refuse sizes the generator cannot honour."""
        if not 0 < self.train_triples < self.triples:
            raise InputError(f"train_triples must lie in (0, triples), got {self.train_triples} of {self.triples}")
        if self.windows < 4:
            raise InputError(f"need at least 4 windows, got {self.windows}")
        if self.negatives < 1 or self.propositions < self.negatives + 1:
            raise InputError("need at least one negative per positive and one whole bundle")
        if self.predicates < 4 * PREDICATES_PER_TOPIC:
            raise InputError(f"need at least {4 * PREDICATES_PER_TOPIC} predicates, got {self.predicates}")
        if not 1 <= self.evidence_median < self.evidence_mean < self.evidence_max:
            raise InputError("evidence figures must satisfy 1 <= median < mean < max")
        if self.n_entities < 200:
            raise InputError(f"need at least 200 entities, got {self.n_entities}")
        dt.date.fromisoformat(self.start)

    @property
    def n_entities(self) -> int:
        """Distinct arguments."""
        return self.entities or max(200, self.triples // 25)

    @property
    def n_topics(self) -> int:
        """Predicate topics: a pair's triples mostly use its topic's predicates, which gives graphs structure."""
        return self.predicates // PREDICATES_PER_TOPIC

    @property
    def n_bundles(self) -> int:
        """Bundles (one positive each)."""
        return math.ceil(self.propositions / (self.negatives + 1))

    def recorded(self) -> dict[str, object]:
        """Return the spec with the generator version, as written to params.json."""
        return {"generator": GENERATOR_VERSION, **asdict(self)}


class ZipfSampler:
    """Draw ranks 0..n-1 with probability proportional to 1 / (rank + 1 + offset) ** exponent."""

    def __init__(self, n: int, exponent: float, offset: float = 0.0) -> None:
        weights = 1.0 / (np.arange(1, n + 1, dtype=np.float64) + offset) ** exponent
        self.p = weights / weights.sum()
        self.cdf = np.cumsum(self.p)
        self.cdf[-1] = 1.0

    def draw(self, rng: np.random.Generator, size: int) -> IntArray:
        """Return `size` ranks."""
        return np.searchsorted(self.cdf, rng.random(size), side="right").astype(np.int64)


def fit_truncated_lognormal(median: float, mean: float, maximum: float) -> tuple[float, float]:
    """Return (mu, sigma) of a log-normal truncated to [0.5, maximum + 0.5] with this median and mean."""
    lo, hi = math.log(0.5), math.log(maximum + 0.5)

    def moments(mu: float, sigma: float) -> tuple[float, float]:
        a, b = special.ndtr((lo - mu) / sigma), special.ndtr((hi - mu) / sigma)
        med = math.exp(mu + sigma * special.ndtri(a + (b - a) / 2))
        avg = math.exp(mu + sigma * sigma / 2) * (special.ndtr((hi - mu) / sigma - sigma)
                                                  - special.ndtr((lo - mu) / sigma - sigma)) / (b - a)
        return med, avg

    def residual(p: npt.NDArray[np.float64]) -> list[float]:
        med, avg = moments(p[0], abs(p[1]) + 1e-6)
        return [math.log(med / median), math.log(avg / mean)]

    solution, _, ok, message = optimize.fsolve(residual, [math.log(median), 2.5], full_output=True)
    if ok != 1 or max(abs(r) for r in residual(solution)) > 1e-6:
        raise InputError(f"no truncated log-normal has median {median}, mean {mean} and maximum {maximum}: {message}")
    return float(solution[0]), float(abs(solution[1]) + 1e-6)


def evidence_counts(spec: CorpusSpec, rng: np.random.Generator) -> IntArray:
    """Draw each bundle's evidence count: stratified quantiles of the fitted truncated log-normal, shuffled."""
    mu, sigma = fit_truncated_lognormal(spec.evidence_median, spec.evidence_mean, spec.evidence_max)
    lo, hi = math.log(0.5), math.log(spec.evidence_max + 0.5)
    a, b = special.ndtr((lo - mu) / sigma), special.ndtr((hi - mu) / sigma)
    n = spec.n_bundles
    u = (rng.permutation(n) + rng.random(n)) / n  # one draw per stratum: the sample's median and mean sit on target
    x = np.exp(mu + sigma * special.ndtri(a + u * (b - a)))
    return np.clip(np.rint(x), 1, spec.evidence_max).astype(np.int64)


def share_pairs(counts: IntArray) -> tuple[IntArray, IntArray]:
    """Group bundles into shared evidence pairs: return each bundle's group and each group's evidence count.

    A busy pair backs several bundles, as starring pairs do (min(n // SHARE_DIVISOR, MAX_SHARED) bundles for
    n evidence triples); bundles are grouped in order of their drawn counts and a group takes its members'
    mean, so the distribution over propositions keeps its median and mean while the corpus holds fewer triples.
    """
    order = np.argsort(-counts, kind="stable")
    group_of = np.empty(len(counts), dtype=np.int64)
    values: list[int] = []
    i = 0
    while i < len(order):
        size = int(min(max(counts[order[i]] // SHARE_DIVISOR, 1), MAX_SHARED, len(order) - i))
        members = order[i:i + size]
        group_of[members] = len(values)
        values.append(int(round(float(counts[members].mean()))))
        i += size
    return group_of, np.array(values, dtype=np.int64)


@dataclass(frozen=True)
class Vocabulary:
    """Entity names and types, predicate strings and their surface texts, filler words for sentences."""

    entity_names: pa.Array
    entity_texts: pa.Array
    entity_types: npt.NDArray[np.str_]
    predicates: pa.Array
    predicate_texts: pa.Array
    negated: npt.NDArray[np.bool_]
    words: pa.Array


def _syllable_words(n: int, min_syllables: int) -> list[str]:
    """Return n distinct pseudo-words of consonant-vowel syllables (ids scrambled by a bijection, for variety)."""
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    base = len(syllables)
    width = max(min_syllables, math.ceil(math.log(n + 1, base)))
    space = base ** width  # 7919 is a prime that divides no power of 70: i -> i * 7919 mod space is one-to-one
    return ["".join(syllables[((i * 7919 + 13) % space // base ** k) % base] for k in range(width)) for i in range(n)]


def predicate_forms(n: int) -> tuple[list[str], list[str], list[bool]]:
    """Return n distinct normalised predicates like the extractor's, their surface texts and negation flags.

    Four strings share a lemma `pL`: `(pL.1,pL.2)`, `(pL.1,pL.<prep>.2)`, the passive `(pL.2,pL.<prep>.2)`, and
    one of `NEG__(pL.1,pL.2)`, a light-verb form `(pL.1,pL.nK.<prep>.2)` or a nominal `(pL.of.1,pL.of.2)`.
    """
    preds, texts, negs = [], [], []
    for i in range(n):
        lemma, form = f"p{i // 4}", i % 4
        h = (i * 2654435761) % 2**32
        prep = PREPOSITIONS[h % len(PREPOSITIONS)]
        neg = False
        if form == 0:
            p, t = f"({lemma}.1,{lemma}.2)", lemma
        elif form == 1:
            p, t = f"({lemma}.1,{lemma}.{prep}.2)", f"{lemma} {prep}"
        elif form == 2:
            p, t = f"({lemma}.2,{lemma}.{prep}.2)", f"be {lemma} {prep}"
        elif (h >> 8) % 3 == 0:
            p, t, neg = f"NEG__({lemma}.1,{lemma}.2)", f"not {lemma}", True
        elif (h >> 8) % 3 == 1:
            noun = f"n{(h >> 12) % 997}"
            p, t = f"({lemma}.1,{lemma}.{noun}.{prep}.2)", f"{lemma} {noun} {prep}"
        else:
            p, t = f"({lemma}.of.1,{lemma}.of.2)", f"{lemma} of"
        preds.append(p)
        texts.append(t)
        negs.append(neg)
    return preds, texts, negs


def build_vocabulary(spec: CorpusSpec, rng: np.random.Generator) -> Vocabulary:
    """Draw entity types and name every entity, predicate and filler word."""
    names = _syllable_words(spec.n_entities, 3)
    types = np.array(list(TYPE_SHARES))[rng.choice(len(TYPE_SHARES), spec.n_entities,
                                                   p=np.array(list(TYPE_SHARES.values())))]
    preds, texts, negs = predicate_forms(spec.predicates)
    # Filler words with distinct 4-letter prefixes: sentence texts stay distinct under graph_builder's sentence key.
    stems = [a + b + c + d for a in "bdfgklmnprstvz" for b in "aeiou" for c in "bdfgklmnprstvz" for d in "aeiou"]
    suffixes = ("s", "ed", "er", "ing", "al", "ly", "ment")
    words = [stem + suffixes[k % len(suffixes)] for k, stem in enumerate(stems)]
    return Vocabulary(pa.array(names), pa.array([w.capitalize() for w in names]), types, pa.array(preds),
                      pa.array(texts), np.array(negs), pa.array(words))


@dataclass
class Plan:
    """Every decision above the row level: window sizes, evidence pairs and their triples' predicates, bundles."""

    first_window: int
    eval_window: int                  # first window of the TEST period
    background: IntArray              # background triples per window
    pair_window: IntArray             # per evidence pair: window index, its two arguments, its triples
    pair_a: IntArray
    pair_b: IntArray
    pair_size: IntArray
    row_pair: IntArray                # per evidence triple: its pair, predicate, whether stated as (b, a)
    row_pred: IntArray
    row_reversed: npt.NDArray[np.bool_]
    row_index: IntArray               # position of the triple inside its pair's triples
    entries: list[dict[str, object]] = field(default_factory=list)
    planned: list[int] = field(default_factory=list)  # evidence triples per entry, as planned


def _pair_keys(window: IntArray, a: IntArray, b: IntArray, entities: int) -> IntArray:
    """One integer per (absolute window, unordered argument pair): what an evidence lookup matches."""
    return window.astype(np.int64) * entities ** 2 + np.minimum(a, b) * entities + np.maximum(a, b)


def _pair_topic(a: IntArray, b: IntArray, topics: int) -> IntArray:
    """The topic of an unordered argument pair."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return (lo * 1_000_003 + hi * 7_919) % topics


def make_plan(spec: CorpusSpec, vocab: Vocabulary) -> Plan:
    """Decide window sizes, evidence pairs, their triples' predicates and the bundles (seeded)."""
    rng = np.random.default_rng([spec.seed, 0])
    first = window_of(dt.date.fromisoformat(spec.start))
    weights = rng.lognormal(0.0, 0.35, spec.windows)
    n_train_windows = int(np.clip(round(spec.windows * spec.train_triples / spec.triples), 1, spec.windows - 1))
    train = rng.multinomial(spec.train_triples, weights[:n_train_windows] / weights[:n_train_windows].sum())
    eval_weights = weights[n_train_windows:] / weights[n_train_windows:].sum()

    counts = evidence_counts(spec, rng)
    group_of, values = share_pairs(counts)
    n_pairs = len(values)
    sizes = values + 1  # each positive's own sentence is excluded from its evidence
    eval_triples = spec.triples - spec.train_triples
    if sizes.sum() > MAX_EVIDENCE_SHARE * eval_triples:
        raise InputError(f"{spec.propositions:,} propositions need {sizes.sum():,} evidence triples, more than "
                         f"{MAX_EVIDENCE_SHARE:.0%} of the {eval_triples:,} TEST triples: raise triples or lower "
                         "propositions / evidence_mean")
    # Evidence pairs: windows in proportion to their size (BoOQA samples windows by article count); mid-rank
    # arguments, so background triples rarely land on the same pair in the same window.
    pair_window = n_train_windows + rng.choice(len(eval_weights), n_pairs, p=eval_weights)
    low_rank = spec.n_entities // 50
    pair_a = rng.integers(low_rank, spec.n_entities, n_pairs)
    pair_b = rng.integers(low_rank, spec.n_entities, n_pairs)
    seen: set[tuple[int, int, int]] = set()
    for k in range(n_pairs):
        while True:
            key = (int(pair_window[k]), *sorted((int(pair_a[k]), int(pair_b[k]))))
            if pair_a[k] != pair_b[k] and key not in seen:
                seen.add(key)  # type: ignore[arg-type]
                break
            pair_b[k] = rng.integers(low_rank, spec.n_entities)
    topics = _pair_topic(pair_a, pair_b, spec.n_topics)

    # The triples of each evidence pair: the first `shared` carry the positives (distinct topic predicates).
    shared = np.bincount(group_of, minlength=n_pairs)
    topic_rank = ZipfSampler(PREDICATES_PER_TOPIC, TOPIC_EXPONENT)
    global_pred = ZipfSampler(spec.predicates, PREDICATE_EXPONENT)
    row_pair = np.repeat(np.arange(n_pairs), sizes)
    row_index = np.arange(len(row_pair)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    ranks = topic_rank.draw(rng, len(row_pair))
    local = rng.random(len(row_pair)) < TOPIC_SHARE
    row_pred = np.where(local, topics[row_pair] + spec.n_topics * ranks, global_pred.draw(rng, len(row_pair)))
    row_reversed = rng.random(len(row_pair)) < REVERSED_SHARE
    starts = np.cumsum(sizes) - sizes
    positive_rank = np.empty(len(counts), dtype=np.int64)
    slot = np.zeros(n_pairs, dtype=np.int64)
    bundle_row = np.empty(len(counts), dtype=np.int64)
    for pair in range(n_pairs):
        picked = rng.choice(PREDICATES_PER_TOPIC, shared[pair], replace=False, p=topic_rank.p)
        rows = starts[pair] + np.arange(shared[pair])
        row_pred[rows] = topics[pair] + spec.n_topics * picked
    for bundle in range(len(counts)):
        pair = group_of[bundle]
        bundle_row[bundle] = starts[pair] + slot[pair]
        positive_rank[bundle] = (row_pred[bundle_row[bundle]] - topics[pair]) // spec.n_topics
        slot[pair] += 1

    plan = Plan(first, first + n_train_windows, np.concatenate([train, rng.multinomial(
        eval_triples - int(sizes.sum()), eval_weights)]), pair_window, pair_a, pair_b, sizes, row_pair, row_pred,
        row_reversed, row_index)
    plan.entries, plan.planned = _bundle_entries(spec, vocab, plan, rng, group_of, bundle_row, positive_rank,
                                                 topics, values)
    return plan


def _bundle_entries(spec: CorpusSpec, vocab: Vocabulary, plan: Plan, rng: np.random.Generator, group_of: IntArray,
                    bundle_row: IntArray, positive_rank: IntArray, topics: IntArray,
                    values: IntArray) -> tuple[list[dict[str, object]], list[int]]:
    """Write the bundles as benchmark entries: the positive, then negatives of the same frequency rank from
    other topics, absent from the pair's triples in the window; dev from the first half of the TEST period."""
    n_bundles = len(group_of)
    short = rng.choice(n_bundles, n_bundles * (spec.negatives + 1) - spec.propositions, replace=False)
    n_negatives = np.full(n_bundles, spec.negatives)
    n_negatives[short] -= 1
    present: dict[int, set[int]] = {}
    for pair, pred in zip(plan.row_pair.tolist(), plan.row_pred.tolist()):
        present.setdefault(pair, set()).add(pred)
    names, types = vocab.entity_names.to_pylist(), vocab.entity_types
    preds, texts = vocab.predicates.to_pylist(), vocab.predicate_texts.to_pylist()
    dev_until = plan.eval_window + (plan.first_window + spec.windows - plan.eval_window) // 2
    order = sorted(range(n_bundles), key=lambda k: (int(plan.pair_window[group_of[k]]), int(bundle_row[k])))
    entries: list[dict[str, object]] = []
    planned: list[int] = []
    numbers = {"dev": 0, "test": 0}
    for k in order:
        pair, row = int(group_of[k]), int(bundle_row[k])
        window = int(plan.pair_window[pair]) + plan.first_window
        subj, obj = int(plan.pair_a[pair]), int(plan.pair_b[pair])
        if plan.row_reversed[row]:
            subj, obj = obj, subj
        negatives = _negatives(int(n_negatives[k]), int(topics[pair]), int(positive_rank[k]), present[pair],
                               spec.n_topics, rng)
        split = "dev" if window < dev_until else "test"
        bundle_id = f"{split}-{numbers[split]:05d}"
        numbers[split] += 1
        article, sentence = _evidence_ids(window, pair, int(plan.row_index[row]))
        day = int(_evidence_day(pair, int(plan.row_index[row])))
        date = (EPOCH + dt.timedelta(days=WINDOW_DAYS * window + day)).isoformat()
        for j, (label, pred) in enumerate([(1, int(plan.row_pred[row])), *((0, p) for p in negatives)]):
            entries.append({
                "id": f"{bundle_id}-{j}", "bundle_id": bundle_id, "split": split, "label": label,
                "subj": names[subj], "obj": names[obj], "subj_type": str(types[subj]), "obj_type": str(types[obj]),
                "predicate": preds[pred], "predicate_text": texts[pred], "window": window, "date": date,
                "exclude_sentence_ids": [f"{article}:{sentence:04d}"],
            })
            planned.append(int(values[pair]))
    return entries, planned


def _negatives(n: int, topic: int, rank: int, present: set[int], topics: int, rng: np.random.Generator) -> list[int]:
    """Pick n predicates of other topics at the positive's frequency rank (or the nearest ranks that work),
    none of them stated about the pair in the window."""
    out: list[int] = []
    for offset in (d for step in range(PREDICATES_PER_TOPIC) for d in ((step,) if step == 0 else (step, -step))):
        if not 0 <= rank + offset < PREDICATES_PER_TOPIC:
            continue
        for _ in range(8):
            other = (topic + 1 + int(rng.integers(topics - 1))) % topics
            candidate = other + topics * (rank + offset)
            if candidate not in present and candidate not in out:
                out.append(candidate)
                if len(out) == n:
                    return out
    raise InputError(f"found only {len(out)} negatives for a positive of topic {topic}: too few predicates")


def _evidence_ids(window: int, pair: int, index: int) -> tuple[str, int]:
    """Article id and sentence number of an evidence pair's triple `index` (one triple per sentence)."""
    return f"w{window}-c{pair}-{index // EVIDENCE_PER_ARTICLE}", index % EVIDENCE_PER_ARTICLE


def _evidence_day(pair: IntArray | int, index: IntArray | int) -> IntArray | int:
    """Day inside the window of an evidence article."""
    return (index // EVIDENCE_PER_ARTICLE + pair) % WINDOW_DAYS


def _strings(prefix: str, *parts: pa.Array | str) -> pa.Array:
    """Join string arrays (and literal strings) element-wise with no separator."""
    return pc.binary_join_element_wise(prefix, *parts, "")


def _padded(values: IntArray, width: int) -> pa.Array:
    """Decimal strings left-padded with zeros."""
    return pc.utf8_lpad(pc.cast(pa.array(values), pa.string()), width, "0")


def shard_table(spec: CorpusSpec, vocab: Vocabulary, plan: Plan, index: int,
                windows: range) -> tuple[pa.Table, IntArray]:
    """Generate the triples of `windows` (indices from the first window), background rows then evidence rows;
    also return each row's (window, unordered argument pair) key."""
    rng = np.random.default_rng([spec.seed, 1, index])
    args = ZipfSampler(spec.n_entities, ARG_EXPONENT, ARG_OFFSET)
    topic_rank = ZipfSampler(PREDICATES_PER_TOPIC, TOPIC_EXPONENT)
    global_pred = ZipfSampler(spec.predicates, PREDICATE_EXPONENT)
    # Background: Zipf arguments; the pair's topic supplies most predicates.
    counts = plan.background[windows.start:windows.stop]
    window = np.repeat(np.arange(windows.start, windows.stop), counts) + plan.first_window
    n = len(window)
    local_index = np.arange(n) - np.repeat(np.cumsum(counts) - counts, counts)
    subj, obj = args.draw(rng, n), args.draw(rng, n)
    obj = np.where(subj == obj, (obj + 1) % spec.n_entities, obj)
    topic = _pair_topic(subj, obj, spec.n_topics)
    local = rng.random(n) < TOPIC_SHARE
    pred = np.where(local, topic + spec.n_topics * topic_rank.draw(rng, n), global_pred.draw(rng, n))
    article_no = local_index // TRIPLES_PER_ARTICLE
    sentence_no = (local_index % TRIPLES_PER_ARTICLE) // TRIPLES_PER_SENTENCE
    k = local_index % TRIPLES_PER_SENTENCE
    day = (article_no * 7 + window) % WINDOW_DAYS
    article = _strings("w", pc.cast(pa.array(window), pa.string()), "-", _padded(article_no, 5))
    sentence_key = window.astype(np.int64) * 1_000_000 + local_index // TRIPLES_PER_SENTENCE
    first_of_sentence = np.arange(n) - k
    # Evidence rows of the pairs in these windows.
    in_shard = np.flatnonzero((plan.pair_window >= windows.start) & (plan.pair_window < windows.stop))
    rows = np.flatnonzero(np.isin(plan.row_pair, in_shard))
    pair = plan.row_pair[rows]
    e_window = plan.pair_window[pair] + plan.first_window
    e_index = plan.row_index[rows]
    a, b = plan.pair_a[pair], plan.pair_b[pair]
    rev = plan.row_reversed[rows]
    e_article = _strings("w", pc.cast(pa.array(e_window), pa.string()), "-c", pc.cast(pa.array(pair), pa.string()),
                         "-", pc.cast(pa.array(e_index // EVIDENCE_PER_ARTICLE), pa.string()))
    m = len(rows)
    all_subj = np.concatenate([subj, np.where(rev, b, a)])
    all_obj = np.concatenate([obj, np.where(rev, a, b)])
    all_pred = np.concatenate([pred, plan.row_pred[rows]])
    all_window = np.concatenate([window, e_window])
    all_days = np.concatenate([day, _evidence_day(pair, e_index)])
    all_article = pa.concat_arrays([article, e_article])
    all_sentence_no = np.concatenate([sentence_no, e_index % EVIDENCE_PER_ARTICLE])
    all_k = np.concatenate([k, np.zeros(m, dtype=np.int64)])
    all_key = np.concatenate([sentence_key, 2_000_000_000 + pair * 5_000 + e_index])
    all_first = np.concatenate([first_of_sentence, n + np.arange(m)])
    sentence_id = _strings("", all_article, ":", _padded(all_sentence_no, 4))
    subj_text, obj_text = vocab.entity_texts.take(pa.array(all_subj)), vocab.entity_texts.take(pa.array(all_obj))
    pred_text = vocab.predicate_texts.take(pa.array(all_pred))
    base = len(vocab.words)
    words = [vocab.words.take(pa.array((all_key // base ** d) % base)) for d in range(3)]
    filler = pa.array(np.array(FILLER)[all_key % len(FILLER)])
    # A sentence states its triples (two for background sentences), then words that make its text unique.
    clause = pc.binary_join_element_wise(subj_text, pred_text, obj_text, " ")
    first = pa.array(all_first)
    second = np.minimum(all_first + 1, n + m - 1)
    paired = pa.array((all_first < n) & (second < n) & (all_key[second] == all_key))
    told = pc.if_else(paired, pc.binary_join_element_wise(clause.take(first), clause.take(pa.array(second)),
                                                          ", while "), clause.take(first))
    sentence = pc.binary_join_element_wise(told, *words, pc.binary_join_element_wise(filler, ".", ""), " ")
    split = np.where(all_window < plan.eval_window, GRAPH_SPLIT, EVAL_SPLIT)
    table = pa.table({
        "triple_id": _strings("", sentence_id, ":", _padded(all_k, 3)),
        "article_id": all_article,
        "sentence_id": sentence_id,
        "date": pa.array((all_window * WINDOW_DAYS + all_days).astype(np.int32), pa.date32()),
        "window": pa.array(all_window.astype(np.int32)),
        "split": pa.array(split),
        "subj": vocab.entity_names.take(pa.array(all_subj)), "subj_text": subj_text,
        "subj_type": pa.array(vocab.entity_types[all_subj]),
        "obj": vocab.entity_names.take(pa.array(all_obj)), "obj_text": obj_text,
        "obj_type": pa.array(vocab.entity_types[all_obj]),
        "predicate": vocab.predicates.take(pa.array(all_pred)), "predicate_text": pred_text,
        "negated": pa.array(vocab.negated[all_pred]),
        "sentence": sentence,
    }, schema=TRIPLE_SCHEMA)
    pair_keys = _pair_keys(all_window, all_subj, all_obj, spec.n_entities)
    return table, pair_keys


def article_table(triples: pa.Table) -> pa.Table:
    """The article rows of a shard: date, window, split and counts per article."""
    grouped = triples.group_by("article_id").aggregate([
        ("date", "min"), ("window", "min"), ("split", "min"), ("sentence_id", "count_distinct"),
        ("triple_id", "count")]).sort_by("article_id")
    sentences = pc.cast(grouped["sentence_id_count_distinct"], pa.int32())
    return pa.table({
        "article_id": grouped["article_id"], "date": grouped["date_min"], "window": grouped["window_min"],
        "split": grouped["split_min"], "title": _strings("Synthetic article ", grouped["article_id"]),
        "sentences": sentences, "tokens": pc.cast(pc.multiply(sentences, 24), pa.int32()),
        "triples": pc.cast(grouped["triple_id_count"], pa.int32()),
    }, schema=ARTICLE_SCHEMA)


def shard_ranges(plan: Plan, windows: int, limit: int = SHARD_ROWS) -> list[range]:
    """Cut the windows into consecutive shards of at most ~`limit` rows, never mixing TRAIN and TEST windows."""
    rows = plan.background + np.bincount(plan.pair_window, weights=plan.pair_size, minlength=windows).astype(np.int64)
    boundary = plan.eval_window - plan.first_window
    out, start, size = [], 0, 0
    for w in range(windows):
        if w > start and (w == boundary or size + rows[w] > limit):
            out.append(range(start, w))
            start, size = w, 0
        size += int(rows[w])
    out.append(range(start, windows))
    return out


def evidence_summary(values: Iterable[int]) -> dict[str, float]:
    """Median, mean, min, max and upper percentiles of evidence counts."""
    x = np.fromiter(values, dtype=np.float64)
    return {"n": int(len(x)), "median": float(np.median(x)), "mean": float(x.mean()), "min": float(x.min()),
            "p90": float(np.percentile(x, 90)), "p99": float(np.percentile(x, 99)), "max": float(x.max())}


def cached(spec: CorpusSpec, out: Path) -> dict[str, object] | None:
    """Return the stats of a corpus already generated at `out` with this spec, or None."""
    try:
        params = orjson.loads((out / PARAMS_FILE).read_bytes())
        stats = orjson.loads((out / STATS_FILE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if params != spec.recorded() or not (out / BENCHMARK_FILE).is_file():
        return None
    if len(list((out / TRIPLES_DIR).glob("part-*.parquet"))) != stats.get("shards"):
        return None
    return stats  # type: ignore[no-any-return]


def generate_booqa(spec: CorpusSpec, out: Path, progress: bool = True) -> dict[str, object]:
    """Write the corpus (triples/ with article tables), booqa.jsonl, stats.json and params.json into `out`."""
    vocab = build_vocabulary(spec, np.random.default_rng([spec.seed, 2]))
    plan = make_plan(spec, vocab)
    triples_dir = out / TRIPLES_DIR
    if triples_dir.exists():
        shutil.rmtree(triples_dir)
    triples_dir.mkdir(parents=True)
    (out / PARAMS_FILE).unlink(missing_ok=True)  # written last: its presence marks a complete corpus
    ranges = shard_ranges(plan, spec.windows)
    keys = _pair_keys(plan.pair_window + plan.first_window, plan.pair_a, plan.pair_b, spec.n_entities)
    found = np.zeros(len(keys), dtype=np.int64)  # triples per evidence pair as written, background included
    key_order = np.argsort(keys)
    rows = {GRAPH_SPLIT: 0, EVAL_SPLIT: 0}
    for index, windows in enumerate(tqdm(ranges, desc="generate", unit="shard", disable=not progress)):
        table, shard_keys = shard_table(spec, vocab, plan, index, windows)
        name = f"{index:05d}"
        pq.write_table(article_table(table), article_shard_path(triples_dir, name), compression="zstd")
        pq.write_table(table, shard_path(triples_dir, name), compression="zstd", row_group_size=100_000)
        split = GRAPH_SPLIT if windows.start + plan.first_window < plan.eval_window else EVAL_SPLIT
        rows[split] += table.num_rows
        if split == EVAL_SPLIT:
            uniq, n = np.unique(shard_keys, return_counts=True)
            pos = np.searchsorted(uniq, keys[key_order]).clip(0, len(uniq) - 1)
            hit = uniq[pos] == keys[key_order]
            found[key_order[hit]] += n[pos[hit]]
    entries = plan.entries
    write_entries(entries, out / BENCHMARK_FILE)
    # Actual evidence per proposition: its pair's triples in the window, less the positive's own sentence.
    names = {name: i for i, name in enumerate(vocab.entity_names.to_pylist())}
    by_key = dict(zip(keys.tolist(), found.tolist()))
    actual = []
    for e in entries:
        s, o = names[str(e["subj"])], names[str(e["obj"])]
        actual.append(by_key[int(e["window"]) * spec.n_entities ** 2 + min(s, o) * spec.n_entities + max(s, o)] - 1)
    labels = [int(e["label"]) for e in entries]
    stats: dict[str, object] = {
        "params": spec.recorded(),
        "triples": {"total": sum(rows.values()), **rows},
        "windows": {"total": spec.windows, GRAPH_SPLIT: plan.eval_window - plan.first_window,
                    EVAL_SPLIT: spec.windows - (plan.eval_window - plan.first_window),
                    "first": plan.first_window, "eval_from": plan.eval_window},
        "eval_from": (EPOCH + dt.timedelta(days=WINDOW_DAYS * plan.eval_window)).isoformat(),
        "shards": len(ranges),
        "entities": spec.n_entities, "predicates": spec.predicates, "topics": spec.n_topics,
        "evidence_pairs": int(len(plan.pair_size)), "evidence_triples": int(plan.pair_size.sum()),
        "bundles": len({e["bundle_id"] for e in entries}), "propositions": len(entries),
        "positives": sum(labels), "negatives": len(labels) - sum(labels),
        "splits": {s: sum(1 for e in entries if e["split"] == s) for s in ("dev", "test")},
        "evidence_planned": evidence_summary(plan.planned),
        "evidence_actual": evidence_summary(actual),
        "benchmark_sha256": sha256_file(out / BENCHMARK_FILE),
    }
    (out / STATS_FILE).write_bytes(orjson.dumps(stats, option=orjson.OPT_INDENT_2))
    (out / PARAMS_FILE).write_bytes(orjson.dumps(spec.recorded(), option=orjson.OPT_INDENT_2))
    return stats


def write_entries(entries: list[dict[str, object]], path: Path) -> None:
    """Write benchmark entries as JSON Lines (the format `egqa evaluate` reads)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in entries))
    tmp.replace(path)
