"""Argument mentions: which tokens can fill a slot, their normalised and surface forms, and their types."""

from __future__ import annotations

from dataclasses import dataclass

from spacy.tokens import Span, Token

# spaCy (OntoNotes) entity labels -> FIGER-like first-level types. Labels absent here are numeric or
# temporal (MONEY, CARDINAL, ...): such a mention may be an argument, typed `thing`, but is no entity.
ENTITY_TYPES: dict[str, str] = {
    "PERSON": "person",
    "ORG": "organization",
    "GPE": "location",
    "LOC": "location",
    "FAC": "building",
    "NORP": "group",
    "EVENT": "event",
    "PRODUCT": "product",
    "WORK_OF_ART": "art",
    "LAW": "law",
    "LANGUAGE": "language",
}
UNKNOWN_TYPE = "thing"
# Temporal adjuncts ("on Monday") and amounts ("15 cts", "5 mln dlrs", "3 pct") are not participants
# a question is asked about; in newswire tables they are most of the noise.
SKIPPED_ENTITY_LABELS = frozenset({"DATE", "TIME", "MONEY", "PERCENT", "QUANTITY", "CARDINAL", "ORDINAL"})
ARGUMENT_POS = frozenset({"NOUN", "PROPN"})
# Unit and table words of financial newswire that the tagger often takes for names.
UNIT_WORDS = frozenset({"ct", "cts", "dlr", "dlrs", "pct", "mln", "billion", "bln", "shr", "shrs", "vs", "qtr",
                        "revs", "avg", "tonne", "tonnes", "pence", "stg"})
_STRIP_WORDS = frozenset({"the", "a", "an", "this", "that", "these", "those", "'s", "'", "’s", "’"})


@dataclass(frozen=True)
class Argument:
    """A mention that fills a predicate slot: `head` is its syntactic head token."""

    head: Token
    norm: str
    text: str
    type: str
    is_entity: bool


def _entity_of(token: Token) -> Span | None:
    if not token.ent_type_:
        return None
    for ent in token.sent.ents:
        if ent.start <= token.i < ent.end:
            return ent
    return None


def normalise(words: list[str]) -> str:
    """Lowercase, drop determiners and possessive markers, join with single spaces."""
    kept = [w.lower() for w in words if w.lower() not in _STRIP_WORDS]
    while kept and kept[-1] in {"'s", "’s"}:
        kept.pop()
    return " ".join(" ".join(kept).split())


def _is_amount(words: list[str]) -> bool:
    tokens = [w.lower().strip(".,") for w in words]
    return all(t in UNIT_WORDS or not any(ch.isalpha() for ch in t) for t in tokens)


def argument_of(head: Token) -> Argument | None:
    """Return the argument whose head is `head`, or None if it cannot be one (pronoun, date, amount, ...)."""
    if head.pos_ not in ARGUMENT_POS or head.like_num:
        return None
    ent = _entity_of(head)
    if ent is not None:
        if ent.label_ in SKIPPED_ENTITY_LABELS:
            return None
        words = [t.text for t in ent]
        norm = normalise(words)
        if not norm or _is_amount(words):
            return None
        text = " ".join(w for w in words if w.lower() not in {"the", "a", "an"}) or ent.text
        entity_type = ENTITY_TYPES.get(ent.label_)
        return Argument(head, norm, text, entity_type or UNKNOWN_TYPE, entity_type is not None)
    # A common noun keeps its compound modifiers; its head is lemmatised so "headaches" meets "headache".
    compounds = [c for c in head.lefts if c.dep_ == "compound"]
    words = [c.text for c in compounds] + [head.lemma_ if head.pos_ == "NOUN" else head.text]
    norm = normalise(words)
    if not norm or _is_amount(words):
        return None
    surface = " ".join([c.text for c in compounds] + [head.text])
    return Argument(head, norm, surface, UNKNOWN_TYPE, False)
