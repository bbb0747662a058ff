"""Filters that keep a negative only when it is probably false in its window.

A hyponym of the positive's sense is the intended negative: more specific, plausible, and not stated.
Beyond the absence of the hyponym and its synonyms for the pair (the builder's own check), a candidate is
still often true ("posted" -> "registered" a record profit, "to boost" -> "to spur" growth). Each filter
removes one kind of such candidate; the builder counts what each removes (stats.json, `negative_filters`).

- `positive_synonym`: the replacing word is a WordNet synonym, in any sense, of the word it replaces;
- `window_synonym`: the replacing word, or one of its synonyms, heads a predicate the window states about
  the pair (in any frame: "struck" is blocked by "reached a settlement" only through *reach*);
- `dominant_sense`: the hyponym is the replacing word's commonest sense, so that the negative reads in the
  intended sense ("bought" -> "took" comes from *take* = *buy, select*, a rare sense of *take*: a reader, the
  graphs and the LM all read *took* as its common sense);
- `typed_felicity`: the candidate predicate was never seen with arguments of the positive's types (a
  hyponym of another sense rarely fits the types: *express* an organization);
- `hyponym_read`: the replacement was read by hand as a more specific statement of the same meaning
  (benchmark.hyponym_reads: "sold" -> "auctioned" is, "sold" -> "pushed" and "posted" -> "registered" are not);
  a replacement never read is dropped;
- `stated_elsewhere`: the candidate predicate is stated about the same argument pair in another window of the
  corpus the benchmark is built from. What the news says of a pair at another time mostly still holds: a chief
  executive who is "chairman of" the bank in another year, a central bank that "bought up" bonds for months, a
  minister who "flew to" Berlin before. Only the exact predicate counts (role-free, as the absence check): its
  synonyms in other windows are too loose a test ("demanded" aid is not made true by "needed" it last year);
- `negative_read`: every reader who read the candidate itself, with its arguments and date, judged it may well
  be false (benchmark.negative_reads); a candidate never read is dropped;
- `lm`: the candidate reads almost like the positive (cosine of their words >= `lm_max_cosine` with the
  model egqa ships). This filter knows the LM scorer's model: it may favour that scorer, so it is off by default,
  as is `dominant_sense`, which halves the benchmark (docs/benchmark-builder.md).

The graphs are never used to filter: a benchmark tuned to the graphs would measure them against themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from benchmark.hyponym_reads import HyponymReads
from benchmark.negative_reads import NegativeReads
from benchmark.senses import Sense
from graph_builder.errors import InputError


@dataclass(frozen=True)
class CandidateInContext:
    """A negative candidate with what the filters look at."""

    predicate: str                 # the candidate
    positive: str                  # the positive's predicate
    replaced: str                  # the replaced word of the positive ("post")
    pos: str                       # its part of speech (v or n)
    lemmas: tuple[str, ...]        # the hyponym synset's lemmas
    lemma: str                     # the one of them in the candidate
    types: tuple[str, str]         # the positive's argument types (subject, object)
    window_heads: frozenset[str]   # head lemmas of every predicate the window states about the pair
    synset: str = ""               # the hyponym synset's name
    key: str = ""                  # the candidate's role-free predicate key (benchmark.build.predicate_key)
    pair_elsewhere: frozenset[str] = frozenset()  # keys stated about the pair in the corpus's other windows
    instance: str = ""             # the candidate's digest in the negative reads (benchmark.negative_reads)


class Synonyms(Protocol):
    """The WordNet lookups the filters need."""

    def synonyms(self, phrase: str, pos: str) -> list[str]:
        """Other lemmas of every sense of the phrase."""
        ...

    def senses(self, phrase: str, pos: str) -> list[Sense]:
        """The senses of the phrase, most frequent first."""
        ...


@dataclass(frozen=True)
class FilterInputs:
    """Corpus facts shared by the filters."""

    lexicon: Synonyms
    typed_pairs: Mapping[tuple[str, str, str], int]   # (predicate, subject type, object type) -> argument pairs
    min_typed_pairs: int = 1
    lm_max_cosine: float = 0.8
    reads: HyponymReads | None = None   # the `hyponym_read` filter's verdicts
    negative_reads: NegativeReads | None = None   # the `negative_read` filter's verdicts


Keep = Callable[[Sequence[CandidateInContext], FilterInputs], list[bool]]


def _positive_synonym(items: Sequence[CandidateInContext], inputs: FilterInputs) -> list[bool]:
    out = []
    for c in items:
        synonyms = set(inputs.lexicon.synonyms(c.replaced, c.pos))
        out.append(not (synonyms & set(c.lemmas)))
    return out


def _window_synonym(items: Sequence[CandidateInContext], inputs: FilterInputs) -> list[bool]:
    out = []
    for c in items:
        words = {w for lemma in c.lemmas for w in (lemma, *inputs.lexicon.synonyms(lemma, c.pos))}
        # A phrase's first word is a head too ("strike a deal" is stored under `strike`), except the replaced
        # word itself: the positive always heads a predicate of its window, and "bought" does not make
        # "bought back" true (the exact predicate's absence is the builder's own check).
        firsts = {w.split()[0] for w in words if len(w.split()) > 1} - {c.replaced}
        heads = {w.replace(" ", "_") for w in words} | firsts
        out.append(not (heads & c.window_heads))
    return out


def _dominant_sense(items: Sequence[CandidateInContext], inputs: FilterInputs) -> list[bool]:
    out = []
    for c in items:
        senses = inputs.lexicon.senses(c.lemma, c.pos)
        # The hyponym synset's lemmas (the replaced word left out) are those of the word's first sense.
        out.append(bool(senses) and set(c.lemmas) == set(senses[0].lemmas) - {c.replaced})
    return out


def _typed_felicity(items: Sequence[CandidateInContext], inputs: FilterInputs) -> list[bool]:
    return [inputs.typed_pairs.get((c.predicate, *c.types), 0) >= inputs.min_typed_pairs for c in items]


def _hyponym_read(items: Sequence[CandidateInContext], inputs: FilterInputs) -> list[bool]:
    if inputs.reads is None:
        raise InputError("the hyponym_read filter needs the hyponym reads (FilterInputs.reads)")
    reads = inputs.reads
    return [reads.verdict(c.replaced, c.pos, c.synset, c.lemma, c.types) == "S" for c in items]


def _stated_elsewhere(items: Sequence[CandidateInContext], inputs: FilterInputs) -> list[bool]:
    return [c.key not in c.pair_elsewhere for c in items]


def _negative_read(items: Sequence[CandidateInContext], inputs: FilterInputs) -> list[bool]:
    if inputs.negative_reads is None:
        raise InputError("the negative_read filter needs the negative reads (FilterInputs.negative_reads)")
    reads = inputs.negative_reads
    return [reads.keeps(c.instance) is True for c in items]


def _lm(items: Sequence[CandidateInContext], inputs: FilterInputs) -> list[bool]:
    from graph_builder.embeddings import load_encoder, predicate_words

    if not items:
        return []
    texts = sorted({predicate_words(p) for c in items for p in (c.predicate, c.positive)})
    vectors = dict(zip(texts, load_encoder().encode(texts), strict=True))
    return [float(vectors[predicate_words(c.predicate)] @ vectors[predicate_words(c.positive)]) < inputs.lm_max_cosine
            for c in items]


NEGATIVE_FILTERS: dict[str, Keep] = {
    "positive_synonym": _positive_synonym,
    "window_synonym": _window_synonym,
    "dominant_sense": _dominant_sense,
    "typed_felicity": _typed_felicity,
    "hyponym_read": _hyponym_read,
    "stated_elsewhere": _stated_elsewhere,
    "negative_read": _negative_read,
    "lm": _lm,
}
DEFAULT_FILTERS: tuple[str, ...] = ("positive_synonym", "window_synonym", "typed_felicity")


def check_filters(names: Sequence[str]) -> None:
    """Refuse unknown filter names, listing the valid ones."""
    unknown = [n for n in names if n not in NEGATIVE_FILTERS]
    if unknown:
        raise InputError(f"unknown negative filter(s) {', '.join(unknown)}; choose from "
                         f"{', '.join(NEGATIVE_FILTERS)}")


def apply_filters(items: Sequence[CandidateInContext], names: Sequence[str], inputs: FilterInputs,
                  reached: dict[str, list[int]] | None = None) -> tuple[list[bool], dict[str, int]]:
    """Run the named filters in order; return what is kept and how many candidates each filter removed.
    `reached`, when given, receives per filter the indices of the candidates it was asked about."""
    check_filters(names)
    kept = [True] * len(items)
    removed: dict[str, int] = {}
    for name in names:
        live = [k for k, ok in enumerate(kept) if ok]
        if reached is not None:
            reached[name] = live
        verdicts = NEGATIVE_FILTERS[name]([items[k] for k in live], inputs)
        removed[name] = 0
        for k, ok in zip(live, verdicts, strict=True):
            if not ok:
                kept[k] = False
                removed[name] += 1
    return kept, removed
