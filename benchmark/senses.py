"""Word sense of a predicate span in its sentence, chosen before hyponyms are taken.

The BoOQA builder (Li et al. 2022) disambiguated each replaced span in its sentence with a supervised WSD
model (Yap et al. 2020) and took hyponyms of that sense only; taking hyponyms of every sense gives
negatives from another sense of the word ("acquires" -> "expressed", through *get* -> *press out*).

Three choosers, one registry (`SENSE_CHOOSERS`):

- `all`: every sense (no disambiguation: the behaviour of builder v1);
- `first`: WordNet's first sense, the most frequent one in SemCor (the classic baseline);
- `agree` (default): the first sense when the sentence agrees with it, else no sense at all (the span gives
  no negatives). The sentence agrees when its embedding (all-MiniLM-L6-v2, the model egqa ships) is closest
  to the first sense's gloss, or when the first sense holds at least `min_share` of the word's SemCor
  counts. It trades coverage for precision: a negative from the wrong sense costs more than a lost one.

Measured on 127 spans read by hand in their sentences (bench/data/wsd_verdicts.tsv, `python bench/wsd.py`):
see docs/benchmarks.md.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from tqdm import tqdm

from graph_builder.errors import InputError

log = logging.getLogger(__name__)

SENSES_VERSION = "egqa.senses.v1"


Hyponym = tuple[str, tuple[str, ...]]  # a hyponym synset: its name and its lemmas (the replaced word left out)


@dataclass(frozen=True)
class Sense:
    """One WordNet sense of a word: synset name, its lemmas, gloss, examples and the word's SemCor count."""

    name: str
    lemmas: tuple[str, ...]
    definition: str
    examples: tuple[str, ...]
    count: int

    def gloss(self) -> str:
        """The text compared with the sentence: `lemma, lemma: definition`."""
        return f"{', '.join(self.lemmas)}: {self.definition}"


class SenseInventory(Protocol):
    """What a chooser needs from WordNet (benchmark.wordnet.WordNet satisfies it)."""

    def senses(self, phrase: str, pos: str) -> list[Sense]:
        """The senses of a word, most frequent first."""
        ...


@dataclass(frozen=True)
class SpanInContext:
    """A predicate span to disambiguate: the word, its part of speech, and the text around it."""

    phrase: str
    pos: str
    context: str


class SenseChooser(Protocol):
    """Chooses the senses of spans in context: None = every sense, () = none (abstain), else the names."""

    name: str

    def choose(self, spans: Sequence[SpanInContext], inventory: SenseInventory) -> list[tuple[str, ...] | None]:
        """One answer per span, in order."""
        ...


class AllSenses:
    """Every sense of the word (no disambiguation)."""

    name = "all"

    def choose(self, spans: Sequence[SpanInContext], inventory: SenseInventory) -> list[tuple[str, ...] | None]:
        """None for every span: the builder takes hyponyms of all senses."""
        return [None for _ in spans]


class FirstSense:
    """WordNet's first sense (the most frequent in SemCor)."""

    name = "first"

    def choose(self, spans: Sequence[SpanInContext], inventory: SenseInventory) -> list[tuple[str, ...] | None]:
        """The first sense's name for every span that has one."""
        out: list[tuple[str, ...] | None] = []
        for span in spans:
            senses = inventory.senses(span.phrase, span.pos)
            out.append((senses[0].name,) if senses else ())
        return out


def first_sense_share(senses: Sequence[Sense]) -> float:
    """The first sense's share of the word's SemCor counts, add-one smoothed (1.0 for a word of one sense)."""
    if len(senses) <= 1:
        return 1.0
    counts = np.array([s.count for s in senses], dtype=float)
    return float((counts[0] + 1.0) / (counts.sum() + len(counts)))


class AgreeingSense:
    """The first sense when the sentence's embedding agrees with it or it dominates SemCor; else abstain."""

    name = "agree"

    def __init__(self, min_share: float = 0.7, batch_size: int = 64) -> None:
        """`min_share`: first-sense share of SemCor counts that is trusted without the sentence."""
        if not 0.0 < min_share <= 1.0:
            raise InputError(f"min_share must lie in (0, 1], got {min_share}")
        self.min_share = min_share
        self.batch_size = batch_size
        self._gloss_vectors: dict[str, np.ndarray] = {}

    def choose(self, spans: Sequence[SpanInContext], inventory: SenseInventory) -> list[tuple[str, ...] | None]:
        """The first sense where the sentence agrees or the sense dominates; () where it does not."""
        from graph_builder.embeddings import load_encoder

        senses = [inventory.senses(s.phrase, s.pos) for s in spans]
        need = [k for k, ss in enumerate(senses) if len(ss) > 1 and first_sense_share(ss) < self.min_share]
        encoder = load_encoder() if need else None
        if encoder is not None:
            glosses = sorted({s.name: s.gloss() for k in need for s in senses[k]}.items())
            new = [(name, text) for name, text in glosses if name not in self._gloss_vectors]
            if new:
                vectors = encoder.encode([text for _, text in new], batch_size=self.batch_size)
                self._gloss_vectors.update({name: v for (name, _), v in zip(new, vectors, strict=True)})
        texts = sorted({spans[k].context for k in need})
        rows: dict[str, np.ndarray] = {}
        if encoder is not None and texts:
            chunk = self.batch_size * 8
            with tqdm(total=len(texts), desc="sentences", unit="sentence", leave=False) as bar:
                for start in range(0, len(texts), chunk):
                    part = texts[start:start + chunk]
                    rows.update(zip(part, encoder.encode(part, batch_size=self.batch_size), strict=True))
                    bar.update(len(part))
        agrees: dict[int, bool] = {}
        for k in need:
            cosines = [float(rows[spans[k].context] @ self._gloss_vectors[s.name]) for s in senses[k]]
            agrees[k] = int(np.argmax(cosines)) == 0
        out: list[tuple[str, ...] | None] = []
        for k, ss in enumerate(senses):
            if not ss:
                out.append(())
            elif agrees.get(k, True):
                out.append((ss[0].name,))
            else:
                out.append(())
        return out


SENSE_CHOOSERS: dict[str, type[AllSenses] | type[FirstSense] | type[AgreeingSense]] = {
    chooser.name: chooser for chooser in (AllSenses, FirstSense, AgreeingSense)}
DEFAULT_SENSES = AgreeingSense.name


def sense_chooser(name: str) -> SenseChooser:
    """Return the chooser registered under `name`; an unknown name lists the valid ones."""
    try:
        return SENSE_CHOOSERS[name]()
    except KeyError:
        raise InputError(f"unknown sense chooser {name!r}; choose one of {', '.join(sorted(SENSE_CHOOSERS))}") from None
