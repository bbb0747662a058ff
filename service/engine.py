"""The scoring engine shared by the REST service and the batch tools.

A hypothesis (structured triple, normalised predicate, or free text) is resolved to a typed triple in
canonical order and a window; its evidence is the window's triples about the same argument pair; each
evidence predicate is scored as premise against the hypothesis predicate in the graphs (typed edge in
the right orientation, then fuzzy, then cross-graph backoff, Hosseini et al. 2018) and the answer's score is the
maximum over the evidence. A whole batch is scored with one vectorised graph lookup per scorer.

Scorers come from one registry (`graph_builder.graphs.scorers`): every measure of the loaded graphs, each
extra graph set (e.g. `berant`), `exact`, and, with the `lm` extra, `lm_cosine`, `<graph scorer>+smooth` and
`<graph scorer>+lm`. An answer backed off to the LM is ordered by it but never made true by it.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from cachetools import LRUCache, TTLCache

from graph_builder.embeddings import SentenceEncoder, predicate_words
from graph_builder.errors import InputError, NotFoundError
from graph_builder.extraction import extract_text
from graph_builder.extraction.arguments import UNKNOWN_TYPE, normalise
from graph_builder.extraction.questions import read_question
from graph_builder.graphs.graphset import GraphSet, Query
from graph_builder.predicates import is_normalised
from graph_builder.graphs.scorers import (LM_BACKOFF_MATCH, PairBatch, Scorer, Scorers, answer_threshold,
                                          build_scorers)
from graph_builder.windows import DATE_DAYS, DEFAULT_DATE_DAYS, Days, window_of, window_span, windows_of
from retrieval.protocol import Evidence, EvidenceQuery, EvidenceStore, PredicateCount
from service.evidence import EvidenceCache
from service.names import NameResolver, ResolvedName

_PLACEHOLDERS = ("Alice", "Bob")
WINDOW_OPTIONS = 4  # names of a side asked first in a question's window: the chosen one and the most mentioned others
WIDER_OPTIONS = 12  # and where none of their pairs has news there, up to this many
WINDOW_RECHECK_SECONDS = 60.0  # a window seen holding news is not asked about again for this long
RECENT_PAIRS = 150_000  # pairs of recent batches kept for the next scorer: an evaluation's five scorers of a batch
# follow each other 4 requests apart (service.evaluate.interleave), about 20 batches of ~6,000 pairs; 250,000 held
# ~50 MB more per worker, with no time lost at 150,000 on five scorers (docs/benchmarks.md)


@dataclass(frozen=True)
class HypothesisInput:
    """What a client asks about: free `text`, or `subject`/`predicate`/`object`, in a `date` or `window`."""

    text: str | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    subject_type: str | None = None
    object_type: str | None = None
    date: dt.date | None = None
    window: int | None = None
    exclude_sentence_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Options:
    """How to score: which scorer, which evidence to leave out, how much to return, the answer threshold."""

    scorer: str | None = None
    exclude_same_predicate: bool = False
    top_k: int = 5
    threshold: float | None = None


@dataclass(frozen=True)
class Hypothesis:
    """A resolved hypothesis: a typed triple in canonical order inside one window."""

    subj: str
    predicate: str
    obj: str
    subj_type: str
    obj_type: str
    window: int
    predicate_text: str = ""
    types_from: str = "request"
    names: tuple[str, ...] = ()  # how each argument was matched to a stored name (NameResolver)
    days: Days | None = None  # the days whose news is read, when not the window's (a question given by date)


@dataclass(frozen=True)
class ScoredEvidence:
    """One evidence triple with its entailment score against the hypothesis and how it matched."""

    evidence: Evidence
    score: float
    match: str


@dataclass(frozen=True)
class ReadingJudgement:
    """How one binary reading of a question was judged on its own."""

    reading: str  # `subject | predicate | object`
    score: float
    answer: bool
    evidence_count: int


@dataclass
class Answer:
    """The judgement of one hypothesis."""

    hypothesis: Hypothesis
    scorer: str
    score: float
    answer: bool
    threshold: float
    evidence_count: int
    evidence: list[ScoredEvidence] = field(default_factory=list)
    readings: list[str] = field(default_factory=list)  # every binary reading of the question; this answer's first
    judged: list[ReadingJudgement] = field(default_factory=list)  # each reading's own judgement, in `readings` order


@dataclass(frozen=True)
class GroupedPairs:
    """A batch's hypotheses paired with the predicates of their grouped evidence (`top_k` 0): the pairs of each
    hypothesis are consecutive, those with evidence start at `starts`; `counts` are its evidence rows."""

    summaries: list[list[PredicateCount]]  # the evidence the pairs were built from
    batch: PairBatch
    starts: npt.NDArray[np.int64]
    with_evidence: npt.NDArray[np.bool_]
    counts: list[int]


def _pair_count(pairs: GroupedPairs) -> int:
    return len(pairs.batch.queries) + 1


@dataclass(frozen=True)
class GraphSetInfo:
    """Which graph set an engine serves: its folder name, manifest checksum, when it was loaded, and the
    generation (1 at start-up, one more per reload)."""

    name: str
    manifest_sha256: str
    loaded_at: float
    generation: int

    def to_dict(self) -> dict[str, object]:
        """JSON-ready, without server paths."""
        return {"name": self.name, "manifest_sha256": self.manifest_sha256, "loaded_at": round(self.loaded_at, 3),
                "generation": self.generation}


class ScoringEngine:
    """Judges hypotheses against the evidence store with the loaded entailment graphs."""

    def __init__(self, graphs: GraphSet, store: EvidenceStore, *, threshold: float = 0.05,
                 default_scorer: str | None = None, window_days: int = 3, max_evidence: int = 500,
                 extra_graphs: Mapping[str, GraphSet] | None = None, encoder: SentenceEncoder | None = None,
                 smooth_k: int = 4, smooth_min_cosine: float = 0.5, date_days: str = DEFAULT_DATE_DAYS) -> None:
        if date_days not in DATE_DAYS:
            raise InputError(f"unknown rule for a date's days {date_days!r}; choose one of {', '.join(DATE_DAYS)}")
        self.graphs = graphs
        self.store = store
        self.threshold = threshold
        self.window_days = window_days
        self.date_days = date_days  # how a question given by date chooses its days (graph_builder.windows.DATE_DAYS)
        self.max_evidence = max_evidence
        self.encoder = encoder
        self.extra_graphs = dict(sorted((extra_graphs or {}).items()))
        self.registry: Scorers = build_scorers(graphs, extra_graphs=self.extra_graphs, encoder=encoder,
                                               smooth_k=smooth_k, smooth_min_cosine=smooth_min_cosine,
                                               default=default_scorer)
        # Windows the store showed to hold news, each remembered for WINDOW_RECHECK_SECONDS.
        self._windows_seen: TTLCache[int, bool] = TTLCache(100_000, WINDOW_RECHECK_SECONDS)
        self.names = NameResolver(store)
        self.evidence = EvidenceCache(window_days=window_days)  # grouped evidence per lookup: a second scorer's pass asks no SQL
        # The pairs of recent batches (bounded by their number of pairs): the next scorer's request reuses them.
        self._pairs: LRUCache[tuple[object, ...], GroupedPairs] = LRUCache(RECENT_PAIRS, getsizeof=_pair_count)
        self._pairs_lock = threading.Lock()
        self.graph_set: GraphSetInfo | None = None  # set by the service (service.reload)

    @property
    def default_scorer(self) -> str:
        """The scorer a request gets when it names none."""
        return self.registry.default

    @property
    def scorers(self) -> list[str]:
        """Every scorer a request may name, in the registry's order."""
        return list(self.registry)

    def runs_model(self, scorer: str | None) -> bool:
        """Whether a scorer (the default for None) runs the sentence model; False for a name not offered."""
        try:
            return self.registry.check(scorer).runs_model
        except InputError:
            return False  # judge() will say why

    def check_scorer(self, scorer: str | None) -> str:
        """Return a valid scorer name (the default for None) or raise InputError saying why it is not offered."""
        return self.registry.check(scorer).name

    # -- resolving hypotheses ------------------------------------------------------------------------
    def days_of(self, date: dt.date | None, window: int | None) -> Days | None:
        """The days a request reads when they are not its window's: a `date` alone reads the days the engine's
        rule gives (centred on it by default); a `window` reads that window, as a benchmark entry does."""
        if window is not None or date is None:
            return None
        return DATE_DAYS[self.date_days](date, self.window_days)

    def resolve_window(self, date: dt.date | None, window: int | None, checked: set[int] | None = None,
                       days: Days | None = None) -> int:
        """Return the window id of a request, checking the store holds news for it, or for one of `days` (once per
        `checked` set)."""
        if window is None and date is None:
            raise InputError("give the proposition's `date` (YYYY-MM-DD) or its `window` id")
        if window is not None and date is not None and window_of(date, self.window_days) != window:
            raise InputError(f"date {date} lies in window {window_of(date, self.window_days)}, not {window}")
        wid = window if window is not None else window_of(date, self.window_days)  # type: ignore[arg-type]
        others = [] if days is None else [w for w in windows_of(days, self.window_days) if w != wid]
        if any(self._holds_news(w, checked) for w in (wid, *others)):
            return wid
        if days is not None:
            raise NotFoundError(f"no indexed news from {days[0]} to {days[1]}; "
                                "GET /v1/windows lists the windows that have news")
        try:
            span = window_span(wid, self.window_days)
        except OverflowError:  # its days fall outside years 1..9999: no news can be there
            raise NotFoundError(f"no indexed news for window {wid} (its dates lie outside years 1..9999); "
                                "GET /v1/windows lists the windows that have news") from None
        raise NotFoundError(f"no indexed news for window {wid} ({span.start} .. {span.end}); "
                            "GET /v1/windows lists the windows that have news")

    def _holds_news(self, wid: int, checked: set[int] | None) -> bool:
        """Whether the store holds news in window `wid` (remembered per `checked` set and for a while)."""
        if (checked is not None and wid in checked) or wid in self._windows_seen:
            return True
        try:
            window_span(wid, self.window_days)
            self.store.window(wid)
        except (OverflowError, NotFoundError):
            return False
        if checked is not None:
            checked.add(wid)
        self._windows_seen[wid] = True
        return True

    def _argument_type(self, arg: str, given: str | None, parsed: str | None) -> tuple[str, str]:
        if given:
            return given.strip().lower(), "request"
        known = self.store.argument_types(arg)
        if known:
            return known[0].type, "store"
        if parsed and parsed != UNKNOWN_TYPE:
            return parsed, "ner"
        return UNKNOWN_TYPE, "default"

    def resolve(self, item: HypothesisInput, checked_windows: set[int] | None = None) -> Hypothesis:
        """Turn a request item into a typed hypothesis in canonical argument order (its first reading)."""
        return self.readings(item, checked_windows)[0]

    def readings(self, item: HypothesisInput, checked_windows: set[int] | None = None) -> list[Hypothesis]:
        """Every binary reading of a request item as a typed hypothesis: one for a triple; for text, one per
        pair of participants the extractor reads ("BHP bought wells from Chesapeake": BHP / wells and BHP /
        Chesapeake), in the extractor's order."""
        days = self.days_of(item.date, item.window)
        window = self.resolve_window(item.date, item.window, checked_windows, days)
        given = (item.subject_type, item.object_type)
        if item.text is not None:
            if item.subject or item.predicate or item.object:
                raise InputError("give either `text` or `subject`/`predicate`/`object`, not both")
            triples = read_question(item.text)
            if not triples:
                raise InputError(f"found no proposition (two arguments and a predicate) in {item.text!r}")
            seen: dict[tuple[str, str, str], Hypothesis] = {}
            for t in triples:
                key = (str(t["subject"]), str(t["predicate"]), str(t["object"]))
                if key not in seen:
                    seen[key] = self._hypothesis(*key, str(t["predicate_text"]), window, days, given,
                                                 (str(t["subject_type"]), str(t["object_type"])),
                                                 tuple(item.exclude_sentence_ids),
                                                 (str(t["subject_text"]), str(t["object_text"])))
            return list(seen.values())
        if not (item.subject and item.predicate and item.object):
            raise InputError("a structured hypothesis needs `subject`, `predicate` and `object` (or give `text`)")
        subj, obj = normalise(item.subject.split()), normalise(item.object.split())
        if not subj or not obj:
            raise InputError("`subject` and `object` must contain words besides determiners")
        predicate, text, swapped, parsed_types = self._normalise_predicate(item.predicate.strip(), subj, obj)
        if swapped:
            subj, obj = obj, subj
            given = (item.object_type, item.subject_type)
        return [self._hypothesis(subj, predicate, obj, text, window, days, given, parsed_types,
                                 tuple(item.exclude_sentence_ids))]

    def _in_window(self, subj: ResolvedName, obj: ResolvedName, window: int, days: Days | None,
                   exclude: tuple[str, ...]) -> tuple[ResolvedName, ResolvedName]:
        """Of the pairs the names may stand for, the one with the most evidence in the window; on a tie the
        first in order of preference (the chosen names first), so the chosen names stay when no pair has any.
        The most mentioned WINDOW_OPTIONS names of each side are asked first; only where none of their pairs has
        news in the window are the others asked, up to WIDER_OPTIONS a side ("Continental" is `united continental`
        and four more companies before `continental resources`, the one in that week's news)."""
        tried: set[tuple[str, str]] = set()
        for limit in (WINDOW_OPTIONS, WIDER_OPTIONS):
            options = subj.options(limit), obj.options(limit)
            pairs = [(a, b) for a in options[0] for b in options[1] if a != b and (a, b) not in tried]
            if len(pairs) + len(tried) <= 1:
                return subj, obj
            tried.update(pairs)
            found = self.evidence.summaries(self.store, [EvidenceQuery(window, a, b, exclude, days=days)
                                                         for a, b in pairs])
            counts = [sum(g.count for g in groups) for groups in found]
            best = max(range(len(pairs)), key=lambda i: (counts[i], -i), default=None)
            if best is not None and counts[best] > 0:
                a, b = pairs[best]
                return subj.chose(a), obj.chose(b)
            if len(options[0]) < limit and len(options[1]) < limit:
                break  # every name of both sides was asked
        return subj, obj

    def _hypothesis(self, subj: str, predicate: str, obj: str, text: str, window: int, days: Days | None,
                    given: tuple[str | None, str | None], parsed_types: tuple[str, str],
                    exclude: tuple[str, ...] = (), written: tuple[str, str] | None = None) -> Hypothesis:
        """A reading's names resolved against the store's (preferring those the window has news about) and its
        arguments typed. `written`: the arguments as the question wrote them, asked for where the extractor's form
        is unknown to the store (a name the recogniser missed reads as a common noun: "Barclays" -> `barclay`)."""
        subj_name, obj_name = (self._name(name, given[i], parsed_types[i], written[i] if written else None,
                                          window, days) for i, name in enumerate((subj, obj)))
        subj_name, obj_name = self._in_window(subj_name, obj_name, window, days, exclude)
        subj, obj = subj_name.name, obj_name.name
        subj_type, src_a = self._argument_type(subj, given[0], parsed_types[0])
        obj_type, src_b = self._argument_type(obj, given[1], parsed_types[1])
        return Hypothesis(subj, predicate, obj, subj_type, obj_type, window, text,
                          src_a if src_a == src_b else f"{src_a},{src_b}",
                          (subj_name.describe(), obj_name.describe()), days)

    def _name(self, name: str, given: str | None, parsed: str, written: str | None, window: int,
              days: Days | None) -> ResolvedName:
        """`name` resolved; where the store knows nothing of it, the name as written, if that reads otherwise. A
        question's name (typed, or written with a capital) also offers the names of its window it may stand for; a
        triple asked as such names its arguments as the store does (a benchmark's entries), so it does not."""
        hint = _hint(given, parsed)
        found = self.names.resolve(name, hint, strict=bool(given))
        as_written = normalise(written.split()) if written else ""
        if as_written and as_written != name:
            again = self.names.resolve(as_written, hint, strict=bool(given))
            if found.how == "unknown" and again.how != "unknown":
                found = again
            elif again.how not in {"unknown", "ambiguous"} and again.name != found.name:
                # Both are held ("Barclays" the bank, `barclay` a person): the window's news chooses.
                found = found.with_window([again.name])
        if written is not None and (hint is not None or written[:1].isupper()):
            return self.names.in_window(found, hint, window, days, as_written)
        return found

    def _normalise_predicate(self, predicate: str, subj: str, obj: str) -> tuple[str, str, bool, tuple[str, str]]:
        """Return (normalised predicate, its text, whether the arguments swap, NER types) for a surface predicate."""
        if is_normalised(predicate):
            return predicate, "", False, (UNKNOWN_TYPE, UNKNOWN_TYPE)
        if len(predicate) > 200:
            raise InputError("`predicate` is longer than 200 characters")
        for a, b in ((subj, obj), _PLACEHOLDERS):
            for t in extract_text(f"{a} {predicate} {b}.", require_entity=False):
                pair = (t["subject"], t["object"])
                if pair == (normalise(a.split()), normalise(b.split())):
                    return str(t["predicate"]), predicate, False, (str(t["subject_type"]), str(t["object_type"]))
                if pair == (normalise(b.split()), normalise(a.split())):
                    return str(t["predicate"]), predicate, True, (str(t["object_type"]), str(t["subject_type"]))
        raise InputError(f"could not read {predicate!r} as a predicate between {subj!r} and {obj!r}; give it "
                         "normalised, e.g. (visit.1,visit.2), or ask with `text` as a full sentence")

    # -- scoring ---------------------------------------------------------------------------------------
    def judge(self, items: Sequence[HypothesisInput], options: Options) -> list[Answer]:
        """Resolve and judge a batch of hypotheses (errors raise for the whole batch)."""
        checked: set[int] = set()  # a batch mostly shares a few windows: check each one once
        readings = [self.readings(i, checked) for i in items]
        answers = self.judge_resolved([h for hs in readings for h in hs],
                                      [i.exclude_sentence_ids for i, hs in zip(items, readings, strict=True) for _ in hs],
                                      options)
        # Each item is answered by its best reading: a true one first, then the highest score, then the first read.
        best: list[Answer] = []
        offset = 0
        for hs in readings:
            group = answers[offset:offset + len(hs)]
            offset += len(hs)
            k = min(range(len(group)), key=lambda j: (not group[j].answer, -group[j].score, j))
            order = [k, *(j for j in range(len(hs)) if j != k)]
            group[k].readings = [describe_reading(hs[j]) for j in order]
            group[k].judged = [ReadingJudgement(describe_reading(hs[j]), group[j].score, group[j].answer,
                                                group[j].evidence_count) for j in order]
            best.append(group[k])
        return best

    def judge_resolved(self, hyps: Sequence[Hypothesis], excludes: Sequence[tuple[str, ...]],
                       options: Options) -> list[Answer]:
        """Judge already resolved hypotheses: evidence lookup, one vectorised scoring pass, max per hypothesis.

        Without evidence to explain (`top_k` 0, as batch evaluation asks) and with a scorer that reads
        predicates only, the store returns each lookup's evidence grouped by predicate, which scores
        alike and costs a fraction of whole rows."""
        scorer = self.registry.check(options.scorer)
        threshold = answer_threshold(scorer, self.threshold) if options.threshold is None else options.threshold
        if options.top_k < 0:
            raise InputError("top_k must be 0 or more")
        # Entries of one bundle ask the very same lookup: each distinct one goes to the store once.
        distinct: dict[EvidenceQuery, int] = {}
        inverse = [distinct.setdefault(EvidenceQuery(h.window, h.subj, h.obj, tuple(ex), self.max_evidence,
                                                                     h.days),
                                       len(distinct)) for h, ex in zip(hyps, excludes, strict=True)]
        if options.top_k == 0 and not scorer.reads_text:
            pairs = self._grouped_pairs(hyps, list(distinct), inverse, options.exclude_same_predicate)
            best = np.zeros(len(hyps))
            if len(pairs.starts):
                best[pairs.with_evidence] = np.maximum.reduceat(pairs.batch.scored(scorer).scores, pairs.starts)
            return [Answer(h, scorer.name, score, score > 0.0 and score >= threshold, threshold, count)
                    for h, score, count in zip(hyps, best.tolist(), pairs.counts, strict=True)]
        found = self.store.evidence_many(list(distinct))
        kept = [[e for e in found[i] if not (options.exclude_same_predicate and e.predicate == h.predicate)]
                for h, i in zip(hyps, inverse, strict=True)]
        flat = [(qi, e) for qi, ev in enumerate(kept) for e in ev]
        scores, matches = self._score_pairs(hyps, flat, scorer)
        answers = []
        offset = 0
        for h, ev in zip(hyps, kept, strict=True):
            chunk = [ScoredEvidence(e, float(scores[offset + k]), matches[offset + k]) for k, e in enumerate(ev)]
            offset += len(ev)
            best = max((s.score for s in chunk), default=0.0)
            chunk.sort(key=lambda s: (-s.score, s.evidence.triple_id))
            # An LM-backoff score only orders answers: it never makes one true.
            by_graphs = bool(chunk) and chunk[0].match != LM_BACKOFF_MATCH
            answers.append(Answer(h, scorer.name, best, by_graphs and best > 0.0 and best >= threshold, threshold,
                                  len(chunk), chunk[: options.top_k]))
        return answers

    def _grouped_pairs(self, hyps: Sequence[Hypothesis], lookups: list[EvidenceQuery], inverse: list[int],
                       exclude_same_predicate: bool) -> GroupedPairs:
        """Each hypothesis against each predicate of its grouped evidence, as one batch of pairs.

        A batch evaluation sends the same batch once per scorer: built once, the pairs (and their graph rows,
        `PairBatch.resolved`) serve every scorer, as long as the evidence they came from is unchanged."""
        summaries = self.evidence.summaries(self.store, lookups)
        key = (tuple(hyps), tuple(lookups), exclude_same_predicate)
        with self._pairs_lock:
            known = self._pairs.get(key)
        if known is not None and all(a is b for a, b in zip(known.summaries, summaries, strict=True)):
            return known
        queries: list[Query] = []
        sizes, counts = [], []
        for h, i in zip(hyps, inverse, strict=True):
            groups = summaries[i]
            if exclude_same_predicate:
                groups = [g for g in groups if g.predicate != h.predicate]
            predicate, types = h.predicate, (h.subj_type, h.obj_type)
            queries += [Query(g.predicate, predicate, types, not g.aligned) for g in groups]
            sizes.append(len(groups))
            counts.append(sum(g.count for g in groups))
        size = np.array(sizes, dtype=np.int64)
        owner = np.repeat(np.arange(len(hyps), dtype=np.int64), size)
        with_evidence = size > 0
        starts = (np.cumsum(size) - size)[with_evidence]
        pairs = GroupedPairs(summaries, PairBatch(queries, groups=owner), starts, with_evidence, counts)
        with self._pairs_lock:
            if len(queries) < self._pairs.maxsize:
                self._pairs[key] = pairs
        return pairs

    def _score_pairs(self, hyps: Sequence[Hypothesis], flat: Sequence[tuple[int, Evidence | PredicateCount]],
                     scorer: Scorer) -> tuple[np.ndarray, list[str]]:
        """Score each (hypothesis index, evidence) pair with `scorer`; return the scores and match kinds."""
        queries = [Query(e.predicate, hyps[qi].predicate, (hyps[qi].subj_type, hyps[qi].obj_type), not e.aligned)
                   for qi, e in flat]
        batch = PairBatch(queries, groups=np.array([qi for qi, _ in flat], dtype=np.int64))
        if scorer.reads_text:
            batch.premise_texts = [e.sentence for _, e in flat]  # type: ignore[union-attr]
            batch.hypothesis_texts = [hypothesis_text(hyps[qi]) for qi, _ in flat]
        scored = batch.scored(scorer)
        return scored.scores, scored.matches

    def entailment(self, premise: str, hypothesis: str, types: str) -> dict[str, dict[str, object]]:
        """Score premise -> hypothesis and hypothesis -> premise under every scorer that reads graphs alone."""
        out: dict[str, dict[str, object]] = {}
        forward = PairBatch([Query(premise, hypothesis, _types(types))], identity_is_one=False)
        backward = PairBatch([Query(hypothesis, premise, _types(types))], identity_is_one=False)
        for name, scorer in self.registry.items():
            if not scorer.reads_graphs or scorer.reads_text or getattr(scorer, "needs_groups", False):
                continue  # between two bare predicates only the graphs have something to say, +many as its inner
            fwd, bwd = forward.scored(scorer), backward.scored(scorer)
            out[name] = {"forward": float(fwd.scores[0]), "backward": float(bwd.scores[0]),
                         "forward_match": fwd.matches[0], "backward_match": bwd.matches[0]}
        return out


def hypothesis_text(h: Hypothesis) -> str:
    """The hypothesis as a plain sentence for sentence embeddings: subject, predicate words, object."""
    words = h.predicate_text or predicate_words(h.predicate)
    return f"{h.subj} {words} {h.obj}."


def describe_reading(h: Hypothesis) -> str:
    """A reading in one line: `bhp billiton | (buy.1,buy.from.2) | chesapeake energy`."""
    return f"{h.subj} | {h.predicate} | {h.obj}"


def _hint(given: str | None, parsed: str | None) -> str | None:
    """The type a name is expected to have: the request's, else the recogniser's (None when unknown)."""
    if given and given.strip():
        return given.strip().lower()
    return parsed if parsed and parsed != UNKNOWN_TYPE else None


# A type pair such as person#location. Spelled in ASCII classes only, so Python's re, pydantic's Rust regex and
# a client's ECMAScript regex (the OpenAPI document's `pattern`) accept exactly the same strings: `\s` and
# `[^...]` differ between them on control and Unicode space characters, and Python's `$` also matches before a
# final newline (hence fullmatch here).
TYPES_PATTERN = r"^[A-Za-z0-9_.:-]+#[A-Za-z0-9_.:-]+$"
_TYPES_RE = re.compile(TYPES_PATTERN)


def _types(types: str) -> tuple[str, str]:
    if not _TYPES_RE.fullmatch(types):
        raise InputError(f"types must be two types like person#location, got {types!r}")
    first, _, second = types.partition("#")
    return first, second
