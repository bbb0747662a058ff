"""Argument slots: which tokens a role of a predicate reaches (conjuncts, measures, names in place, prepositions)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from breame.spelling import get_american_spelling
from spacy.tokens import Token

from graph_builder.extraction.arguments import TIME_NOUNS, Argument, argument_of
from graph_builder.extraction.words import (
    ALTERNATIVE_MARKERS, IDIOMS, KEPT_SPELLINGS, LEMMA_FIXES, LINKING_IDIOMS, PARTITIVES, PRICE_GAP_NOUNS,
)

_WORD_RE = re.compile(r"^[a-z][a-z'\-]*$")


@dataclass(frozen=True)
class Slot:
    """An argument filling one role of a frame, with the predicate words the role brings along."""

    arg: Argument
    role: str
    words: tuple[Token, ...] = ()

    @property
    def rank(self) -> tuple[int, int]:
        """Order of slots inside a relation: subject role, object role, then the rest by position."""
        return ({"1": 0, "2": 1}.get(self.role, 2), self.arg.head.i)



def clean_lemma(token: Token) -> str | None:
    """Return the token's lowercase lemma if it can be part of a predicate name, else None; spelled the American
    way ("criticised" -> `criticize`, as most of the news writes it), but for KEPT_SPELLINGS."""
    lemma = token.lemma_.lower().strip()
    lemma = LEMMA_FIXES.get(lemma, lemma)
    if lemma not in KEPT_SPELLINGS:
        lemma = get_american_spelling(lemma)
    return lemma if _WORD_RE.match(lemma) else None


def with_conjuncts(token: Token) -> list[Token]:
    out = [token]
    for child in token.children:
        if child.dep_ == "conj":
            out.extend(with_conjuncts(child))
    return out


def _named_in_place(head: Token) -> list[Token]:
    """A common noun stands for the names it introduces: "rating agencies Moody's and S&P" -> the agencies' names;
    "clients such as Apple and Nokia" -> the clients and their examples."""
    if head.pos_ != "NOUN" or head.ent_type_:
        return [head]
    names = [c for c in head.children if c.dep_ == "appos" and c.ent_type_]
    if names:
        return [n for name in names for n in with_conjuncts(name)]
    out = [head]
    for prep in head.children:
        if prep.dep_ != "prep":
            continue
        if introduces_examples(head, prep):
            out += [n for pobj in prep.children if pobj.dep_ == "pobj" for n in with_conjuncts(pobj)]
    return out


def introduces_examples(noun: Token, prep: Token) -> bool:
    """"companies including X", "clients such as X", "firms like X": the preposition lists examples."""
    return prep.lower_ in {"including", "like"} or (
        prep.lower_ == "as" and any(c.lower_ == "such" for c in [*noun.children, *prep.children]))


def measured_noun(token: Token) -> Token | None:
    """The noun an amount or a part is of: "30 mln dlrs of notes" -> notes, "part of its exports" -> exports,
    "some of its users" -> users (the measure itself is no participant)."""
    partitive = token.lower_ in PARTITIVES or token.lemma_.lower() in PARTITIVES
    if not partitive and argument_of(token) is not None:
        return None
    if not partitive and token.lemma_.lower() in TIME_NOUNS and not _fraction(token):
        return None  # "a period of low rates" says when; "three quarters of Acme" says how much
    for prep in token.children:
        if prep.dep_ == "prep" and prep.lower_ == "of":
            for pobj in prep.children:
                if pobj.dep_ == "pobj" and pobj.pos_ in {"NOUN", "PROPN"}:
                    return pobj
    return None


def _listed(head: Token) -> list[Token]:
    """The nouns a slot's head stands for: its conjuncts, each read through a measure ("a pair of carmakers");
    a plural noun whose "conjuncts" follow a comma and are names is their label ("two carmakers, Acme and Widget")."""
    out: list[Token] = []
    for conjunct in _modified_noun(with_conjuncts(head)):
        measured = measured_noun(conjunct)
        if measured is None:
            out.append(conjunct)
            continue
        out += _listed(measured)
    if len(out) > 1 and out[0].tag_ == "NNS" and not out[0].ent_type_ and all(t.ent_type_ for t in out[1:]):
        nxt = out[0].doc[out[0].i + 1] if out[0].i + 1 < len(out[0].doc) else None
        if nxt is not None and nxt.text == ",":
            return out[1:]
    return out


def _modified_noun(conjuncts: list[Token]) -> list[Token]:
    """"maintenance, repair and operations supplies": the parser's last two "conjuncts" touch, so the list modifies
    the last noun, which is the one argument."""
    if len(conjuncts) < 3 or not all(t.pos_ == "NOUN" and not t.ent_type_ for t in conjuncts):
        return conjuncts
    ordered = sorted(conjuncts, key=lambda t: t.i)
    return [ordered[-1]] if ordered[-2].i + 1 == ordered[-1].i else conjuncts


def _fraction(token: Token) -> bool:
    """"a quarter of", "three quarters of", "100 hours of": a measure, not a time."""
    return any(c.dep_ == "nummod" or (token.lemma_.lower() == "quarter" and c.dep_ == "det" and c.lower_ in {"a", "an"})
               for c in token.children)


def slots_for(heads: list[Token], role: str, words: tuple[Token, ...] = ()) -> list[Slot]:
    slots = []
    for head in heads:
        for conjunct in _listed(head):
            for token in _named_in_place(conjunct):
                arg = argument_of(token)
                if arg is not None:
                    slots.append(Slot(arg, role, words))
    return slots


def alternative(prep: Token) -> bool:
    """"increase standards rather than the current formula", "bought bonds instead of stocks": the phrase names
    what the clause does not do."""
    if prep.i == 0:
        return False
    before = prep.doc[prep.i - 1]
    if prep.lower_ == "to" and before.lemma_.lower() in PRICE_GAP_NOUNS and before.head.i != prep.i:
        return True  # "sold stock at a discount to Monday's prices": the prices are what the discount is against
    return (before.lower_, prep.lower_) in ALTERNATIVE_MARKERS


def prep_slots(prep: Token, suffix_words: tuple[Token, ...] = (), noun: str = "") -> list[Slot]:
    marker = clean_lemma(prep)
    if marker is None or alternative(prep):
        return []
    pobjs = [c for c in prep.children if c.dep_ == "pobj" and (marker, c.lemma_.lower()) not in IDIOMS
             and (marker, c.lemma_.lower()) not in LINKING_IDIOMS]
    role = f"{noun}.{marker}.2" if noun else f"{marker}.2"
    slots = slots_for(pobjs, role, (*suffix_words, prep))
    for idiom in prep.children:
        if idiom.dep_ == "pobj" and (marker, idiom.lemma_.lower()) in LINKING_IDIOMS:
            for inner in idiom.children:
                if inner.dep_ == "prep" and clean_lemma(inner):
                    slots += prep_slots(inner, (*suffix_words, prep, idiom), f"{role[:-2]}.{idiom.lemma_.lower()}")
    return slots

