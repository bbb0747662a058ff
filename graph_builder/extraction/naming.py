"""Relations from a frame: every pair of slots with different roles, named as the CCG reference parser does."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from spacy.tokens import Token

from graph_builder.extraction.arguments import Argument
from graph_builder.extraction.frames import Frame
from graph_builder.extraction.slots import Slot

NEGATION_PREFIX = "NEG__"
CONTROL_SEPARATOR = "__"


@dataclass(frozen=True)
class Relation:
    """A binary relation: normalised predicate, its surface words, and the two arguments in order."""

    predicate: str
    predicate_text: str
    negated: bool
    subj: Argument
    obj: Argument
    described: bool = False  # from a description of a participant (`Frame.described`), not an asserted clause



def predicate_name(frame: Frame, first: Slot, second: Slot, negated: bool) -> str:
    """Write the reference-format predicate, e.g. `NEG__want__(visit.1,visit.2)`."""
    core = f"({frame.lemma}.{first.role},{frame.lemma}.{second.role})"
    prefix = "".join(f"{c}{CONTROL_SEPARATOR}" for c in frame.controllers)
    return f"{NEGATION_PREFIX if negated else ''}{prefix}{core}"


def _first_conjunct(token: Token) -> Token:
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head
    return token


def _beside_light_noun(slot: Slot, other: Slot) -> bool:
    """"bought plants and mills of X": `mill` is no argument of `buy.plant.of`, it is a second object."""
    nouns = [w for w in other.words if w.pos_ == "NOUN" and w.dep_ in {"dobj", "conj"}]
    return any(_first_conjunct(slot.arg.head) == _first_conjunct(noun) for noun in nouns)


def frame_relations(frame: Frame, require_entity: bool = True) -> Iterator[Relation]:
    """Yield every relation a frame states: each pair of slots with different roles, then the frame's own pairs."""
    slots = sorted(frame.slots, key=lambda s: s.rank)
    negated = frame.negations % 2 == 1
    candidates = [(first, second) for i, first in enumerate(slots) for second in slots[i + 1:]]
    candidates += [tuple(sorted(pair, key=lambda s: s.rank)) for pair in frame.pairs]  # type: ignore[misc]
    for first, second in candidates:
        if first.role == second.role or first.arg.norm == second.arg.norm:
            continue
        if first.arg.head in second.words or second.arg.head in first.words:
            continue  # a light-verb noun is part of the predicate, not an argument of it
        if _beside_light_noun(first, second) or _beside_light_noun(second, first):
            continue
        if require_entity and not (first.arg.is_entity or second.arg.is_entity):
            continue
        words = sorted({*frame.words, *first.words, *second.words}, key=lambda t: t.i)
        yield Relation(predicate_name(frame, first, second, negated), " ".join(t.text for t in words),
                       negated, first.arg, second.arg, frame.described)
