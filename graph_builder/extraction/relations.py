"""Binary relations from a spaCy dependency parse, with predicates written as the CCG reference parser does.

A *frame* is one predicate occurrence (a verb, a copula + noun/adjective) with its argument *slots*;
each slot has a role: `1` (active subject / by-agent), `2` (object or passive subject), `prep.2` (a
prepositional object) or `noun.prep.2` (the noun of a light-verb construction plus its preposition).
Every pair of slots with different roles gives a relation; the slot ranked first (1 < 2 < prep roles,
then sentence order) is the relation's first argument. See REFERENCE §4 and tests/graph_builder.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from spacy.tokens import Span, Token

from graph_builder.extraction.arguments import Argument, argument_of

# Known lemmatiser slips of the small English pipeline, fixed so the predicate reads as the verb.
_LEMMA_FIXES = {"fin": "fine", "datum": "data", "lay off": "lay off"}
_WORD_RE = re.compile(r"^[a-z][a-z'\-]*$")
_RELATIVE_PRONOUNS = frozenset({"which", "who", "that", "whom"})
_COPULA_LEMMAS = frozenset({"be"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
NEGATION_PREFIX = "NEG__"
CONTROL_SEPARATOR = "__"


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


@dataclass
class Frame:
    """One predicate occurrence with its slots, negation count, controlling verbs and surface words."""

    lemma: str
    head: Token
    slots: list[Slot] = field(default_factory=list)
    negations: int = 0
    controllers: list[str] = field(default_factory=list)
    words: set[Token] = field(default_factory=set)
    passive: bool = False


@dataclass(frozen=True)
class Relation:
    """A binary relation: normalised predicate, its surface words, and the two arguments in order."""

    predicate: str
    predicate_text: str
    negated: bool
    subj: Argument
    obj: Argument


def clean_lemma(token: Token) -> str | None:
    """Return the token's lowercase lemma if it can be part of a predicate name, else None."""
    lemma = token.lemma_.lower().strip()
    lemma = _LEMMA_FIXES.get(lemma, lemma)
    return lemma if _WORD_RE.match(lemma) else None


def _with_conjuncts(token: Token) -> list[Token]:
    out = [token]
    for child in token.children:
        if child.dep_ == "conj":
            out.extend(_with_conjuncts(child))
    return out


def _slots_for(heads: list[Token], role: str, words: tuple[Token, ...] = ()) -> list[Slot]:
    slots = []
    for head in heads:
        for conjunct in _with_conjuncts(head):
            arg = argument_of(conjunct)
            if arg is not None:
                slots.append(Slot(arg, role, words))
    return slots


def _prep_slots(prep: Token, suffix_words: tuple[Token, ...] = (), noun: str = "") -> list[Slot]:
    marker = clean_lemma(prep)
    if marker is None:
        return []
    pobjs = [c for c in prep.children if c.dep_ == "pobj"]
    role = f"{noun}.{marker}.2" if noun else f"{marker}.2"
    return _slots_for(pobjs, role, (*suffix_words, prep))


def _is_passive(verb: Token) -> bool:
    return any(c.dep_ in {"auxpass", "nsubjpass"} for c in verb.children)


def _verb_frame(verb: Token) -> Frame | None:
    lemma = clean_lemma(verb)
    if lemma is None:
        return None
    particles = [c for c in verb.children if c.dep_ == "prt" and clean_lemma(c)]
    for particle in particles:
        lemma = f"{lemma}.{clean_lemma(particle)}"
    frame = Frame(lemma, verb, passive=_is_passive(verb))
    frame.words.update([verb, *particles])
    for child in verb.children:
        dep = child.dep_
        if dep in {"aux", "auxpass"} and child.tag_ != "MD":
            frame.words.add(child)
        elif dep == "neg":
            frame.negations += 1
            frame.words.add(child)
        elif dep == "nsubj":
            frame.slots += _slots_for([child], "1")
        elif dep == "nsubjpass":
            frame.slots += _slots_for([child], "2")
        elif dep == "dobj":
            frame.slots += _slots_for([child], "2")
            frame.slots += _light_noun_slots(child)
        elif dep == "agent" and frame.passive:
            frame.slots += _slots_for([c for c in child.children if c.dep_ == "pobj"], "1", (child,))
        elif dep in {"prep", "dative"} and child.pos_ == "ADP":
            frame.slots += _prep_slots(child)
    return frame


def _light_noun_slots(dobj: Token) -> list[Slot]:
    """`maintains relations with Y`: the object noun joins the predicate with its preposition."""
    if dobj.pos_ != "NOUN" or dobj.ent_type_:
        return []
    noun = clean_lemma(dobj)
    if noun is None:
        return []
    slots = []
    for prep in dobj.children:
        if prep.dep_ == "prep":
            slots += _prep_slots(prep, (dobj,), noun)
    return slots


def _copula_frames(copula: Token) -> list[Frame]:
    """`X is the treatment for Y` -> (treatment.for.1,treatment.for.2); `X is useful in Y` -> (useful.1,useful.in.2)."""
    subjects = _slots_for([c for c in copula.children if c.dep_ == "nsubj"], "1")
    negations = sum(1 for c in copula.children if c.dep_ == "neg")
    base_words = {copula, *(c for c in copula.children if c.dep_ in {"neg", "aux"} and c.tag_ != "MD")}
    frames = []
    for child in copula.children:
        if child.dep_ == "attr" and child.pos_ == "NOUN" and not child.ent_type_:
            noun = clean_lemma(child)
            for prep in child.children:
                marker = clean_lemma(prep) if prep.dep_ == "prep" else None
                if noun is None or marker is None:
                    continue
                lemma = f"{noun}.{marker}"
                objects = _slots_for([c for c in prep.children if c.dep_ == "pobj"], "2")
                dets = [d for d in child.children if d.dep_ == "det"]
                frame = Frame(lemma, copula, subjects + objects, negations,
                              words={*base_words, child, prep, *dets})
                frames.append(frame)
        elif child.dep_ == "acomp" and child.pos_ == "ADJ":
            adjective = clean_lemma(child)
            if adjective is None:
                continue
            frame = Frame(adjective, copula, list(subjects), negations, words={*base_words, child})
            # The parser hangs "in Y" of "X is useful in Y" on the adjective or on the copula.
            for prep in [*child.children, *copula.children]:
                if prep.dep_ == "prep":
                    frame.slots += _prep_slots(prep)
            frames.append(frame)
    return frames


def _subject_slots(frame: Frame) -> list[Slot]:
    return [s for s in frame.slots if s.role == "1" or (s.role == "2" and frame.passive and s.arg.head.dep_ == "nsubjpass")]


def _inherit(frame: Frame, frames: dict[int, Frame]) -> None:
    """Give subjectless coordinated, controlled and relative-clause verbs the argument they share."""
    verb = frame.head
    has_subject = any(c.dep_ in _SUBJECT_DEPS for c in verb.children)
    head = frames.get(verb.head.i)
    if verb.dep_ == "conj" and not has_subject and head is not None:
        own_role = "2" if frame.passive or (verb.tag_ == "VBN" and head.passive) else "1"
        frame.passive = own_role == "2"
        frame.slots += [Slot(s.arg, own_role) for s in _subject_slots(head)]
        frame.controllers = list(head.controllers)
    elif verb.dep_ == "xcomp" and not has_subject and head is not None and head.head.pos_ in {"VERB", "AUX"}:
        objects = [s for s in head.slots if s.role == "2" and s.arg.head.dep_ == "dobj"]
        controllers = objects or [s for s in head.slots if s.role == "1"]
        frame.slots += [Slot(s.arg, "2" if frame.passive else "1") for s in controllers]
        frame.controllers = [*head.controllers, head.lemma]
        frame.negations += head.negations
        frame.words |= head.words | {c for c in verb.children if c.dep_ == "aux"}
    elif verb.dep_ == "relcl":
        noun = argument_of(verb.head)
        if noun is None:
            return
        relative = [c for c in verb.children if c.lower_ in _RELATIVE_PRONOUNS and c.dep_ in {"nsubj", "nsubjpass", "dobj"}]
        for pronoun in relative:
            role = {"nsubj": "1"}.get(pronoun.dep_, "2")
            frame.slots.append(Slot(noun, role))
    elif verb.dep_ == "acl" and verb.tag_ == "VBN" and not has_subject:
        noun = argument_of(verb.head)
        if noun is not None:
            frame.passive = True
            frame.slots.append(Slot(noun, "2"))


def sentence_frames(sent: Span) -> list[Frame]:
    """Return every predicate frame of a sentence, with shared arguments filled in."""
    frames: dict[int, Frame] = {}
    extra: list[Frame] = []
    for token in sent:
        if token.pos_ == "VERB":
            frame = _verb_frame(token)
            if frame is not None:
                frames[token.i] = frame
        elif token.pos_ == "AUX" and token.lemma_ in _COPULA_LEMMAS and token.dep_ in {"ROOT", "conj", "ccomp", "relcl", "advcl"}:
            extra += _copula_frames(token)
    # Heads before dependents, so a conjunct inherits from a frame that already inherited.
    for index in sorted(frames, key=lambda i: _depth(sent.doc[i])):
        _inherit(frames[index], frames)
    return [*frames.values(), *extra]


def _depth(token: Token) -> int:
    depth = 0
    while token.head.i != token.i:
        token = token.head
        depth += 1
    return depth


def predicate_name(frame: Frame, first: Slot, second: Slot, negated: bool) -> str:
    """Write the reference-format predicate, e.g. `NEG__want__(visit.1,visit.2)`."""
    core = f"({frame.lemma}.{first.role},{frame.lemma}.{second.role})"
    prefix = "".join(f"{c}{CONTROL_SEPARATOR}" for c in frame.controllers)
    return f"{NEGATION_PREFIX if negated else ''}{prefix}{core}"


def frame_relations(frame: Frame, require_entity: bool = True) -> Iterator[Relation]:
    """Yield every relation a frame states: each pair of slots with different roles."""
    slots = sorted(frame.slots, key=lambda s: s.rank)
    negated = frame.negations % 2 == 1
    for i, first in enumerate(slots):
        for second in slots[i + 1:]:
            if first.role == second.role or first.arg.norm == second.arg.norm:
                continue
            if first.arg.head in second.words or second.arg.head in first.words:
                continue  # a light-verb noun is part of the predicate, not an argument of it
            if require_entity and not (first.arg.is_entity or second.arg.is_entity):
                continue
            words = sorted({*frame.words, *first.words, *second.words}, key=lambda t: t.i)
            yield Relation(predicate_name(frame, first, second, negated), " ".join(t.text for t in words),
                           negated, first.arg, second.arg)
