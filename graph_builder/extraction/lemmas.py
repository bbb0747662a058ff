"""A pipeline step after spaCy's rule lemmatiser that undoes its last-rule-wins slips.

The English rule lemmatiser tries its suffix rules in order and keeps the last form found in its word index, so a
form that both readings explain gets the wrong one: "hoped" -> hop (not hope), "fined" -> fin, "rates" -> rat,
"doses" -> dos, "uses" -> us. A predicate or argument built from such a lemma names another word.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Iterator

import numpy as np
from spacy.attrs import LEMMA, LOWER, MORPH, ORTH, POS
from spacy.language import Language
from spacy.pipeline import Lemmatizer
from spacy.strings import get_string_id
from spacy.tokens import Doc

LEMMA_FIX_PIPE = "egqa_lemma_fix"
_VOWELS = frozenset("aeiou")
# Plurals in -ses whose singular ends in -se although the word without it is in the index too ("dos", "us"); the
# rest of the -ses plurals ("masses", "lenses", "buses") are right as the lemmatiser has them.
_SE_NOUNS = ("dose", "use", "sense", "ease", "muse", "ruse", "vase", "reverse", "corpse", "largesse", "purse")


def _short_final_syllable(stem: str) -> bool:
    """Consonant, single vowel, consonant at the end ("hop", "rat"): such a verb doubles it ("hopped"), so a
    form with one consonant ("hoped") belongs to the verb in -e."""
    if len(stem) < 3 or not stem.isalpha():
        return False
    a, b, c = stem[-3], stem[-2], stem[-1]
    return a not in _VOWELS and b in _VOWELS and c not in _VOWELS and c not in "wxy"


def lemma_fixes(verb_index: Iterable[str]) -> dict[tuple[str, str], str]:
    """Map (form, part of speech) the lemmatiser gets wrong to the lemma, from the lemmatiser's own verb index."""
    verbs = set(verb_index)
    fixes: dict[tuple[str, str], str] = {}
    for verb in verbs:
        stem = verb[:-1]
        if verb.endswith("e") and stem in verbs and _short_final_syllable(stem):
            for suffix in ("ed", "es", "ing"):
                fixes[(stem + suffix, "VERB")] = verb
                fixes[(stem + suffix, "AUX")] = verb
    for noun in _SE_NOUNS:
        fixes[(noun + "s", "NOUN")] = noun
    return fixes


class LemmaFix:
    """Set the lemma of a token whose form and part of speech are in the fix table, if it has the wrong reading."""

    def __init__(self, fixes: dict[tuple[str, str], str]) -> None:
        self.fixes = fixes
        # The forms' string ids, to find a document's few candidates in one array (no token read in Python).
        self._forms = np.array(sorted({get_string_id(form) for form, _ in fixes}), dtype=np.uint64)

    def __call__(self, doc: Doc) -> Doc:
        if not len(doc):
            return doc
        for i in np.flatnonzero(np.isin(doc.to_array(LOWER), self._forms)).tolist():
            token = doc[i]
            right = self.fixes.get((token.lower_, token.pos_))
            if right is not None and token.lemma_.lower() == right[:-1]:
                token.lemma_ = right
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 128) -> Iterable[Doc]:
        """Fix each document of a stream."""
        for doc in docs:
            yield self(doc)


class MemoLemmatizer:
    """spaCy's rule lemmatiser, each (form, part of speech, morphology) lemmatised once: the same key as spaCy's own
    memo, which leaves out every form its base-form test answers (most tokens) and is read token by token. The
    keys of a document come from one array, and its lemmas go back in one."""

    def __init__(self, lemmatizer: Lemmatizer, limit: int = 100_000) -> None:
        self.lemmatizer = lemmatizer
        self.limit = limit  # entries before the memo starts over (it only saves time)
        self.memo: dict[tuple[int, int, int], str] = {}

    def __call__(self, doc: Doc) -> Doc:
        """Set the lemma of every token of `doc` that has none (every token if the lemmatiser overwrites)."""
        if not len(doc):
            return doc
        rows = doc.to_array([ORTH, POS, MORPH, LEMMA])
        lemmas = rows[:, 3].copy()
        strings = doc.vocab.strings
        overwrite = self.lemmatizer.overwrite
        for i, (orth, pos, morph, lemma) in enumerate(rows.tolist()):
            if lemma and not overwrite:
                continue  # set before (the attribute ruler's exceptions), as spaCy's lemmatiser leaves it
            key = (orth, pos, morph)
            text = self.memo.get(key)
            if text is None:
                if len(self.memo) >= self.limit:
                    self.memo.clear()
                text = self.memo[key] = self.lemmatizer.lemmatize(doc[i])[0]
            lemmas[i] = strings.add(text)  # the string again in this document's memory zone, if it has one
        doc.from_array([LEMMA], lemmas.reshape(-1, 1))
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 128) -> Iterator[Doc]:
        """Lemmatise each document of a stream."""
        for doc in docs:
            yield self(doc)


def memo_lemmatizer(lemmatizer: object) -> object:
    """A MemoLemmatizer for spaCy's lemmatiser in rule mode, or the component itself (any other mode or component)."""
    if isinstance(lemmatizer, Lemmatizer) and lemmatizer.mode == "rule":
        return MemoLemmatizer(lemmatizer)
    return lemmatizer


def make_lemma_fix(nlp: Language, name: str) -> LemmaFix:
    """Build the fix table from the pipeline's rule lemmatiser (its verb index)."""
    lookups = nlp.get_pipe("lemmatizer").lookups  # type: ignore[attr-defined]
    return LemmaFix(lemma_fixes(lookups.get_table("lemma_index").get("verb", [])))


# spaCy validates a factory's arguments from its signature; confection before 1.0 (with spaCy 3.8.7's weasel) cannot
# read this module's postponed, string annotations, so the factory is registered with them evaluated.
make_lemma_fix.__annotations__ = typing.get_type_hints(make_lemma_fix)
Language.factory(LEMMA_FIX_PIPE, func=make_lemma_fix)


def add_lemma_fix(nlp: Language) -> Language:
    """Add the fix right after the rule lemmatiser (no-op if the pipeline has none or has the fix already)."""
    if "lemmatizer" in nlp.pipe_names and LEMMA_FIX_PIPE not in nlp.pipe_names:
        lemmatizer = nlp.get_pipe("lemmatizer")
        if getattr(lemmatizer, "mode", None) == "rule":
            nlp.add_pipe(LEMMA_FIX_PIPE, after="lemmatizer")
    return nlp
