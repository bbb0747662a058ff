"""Binary relations from a spaCy dependency parse, with predicates written as the CCG reference parser does.

A *frame* is one predicate occurrence (a verb, a copula + noun/adjective) with its argument *slots*;
each slot has a role: `1` (active subject / by-agent), `2` (object or passive subject), `prep.2` (a
prepositional object) or `noun.prep.2` (the noun of a light-verb construction plus its preposition).
Every pair of slots with different roles gives a relation; the slot ranked first (1 < 2 < prep roles,
then sentence order) is the relation's first argument. As in Hosseini et al. (2018); see tests/graph_builder.
"""

from __future__ import annotations

from collections.abc import Iterator

from spacy.tokens import Span, Token

from graph_builder.extraction.frames import (
    Frame, apposition_frames, copula_frames, negating_determiner, nominal_frames, one_of, owned_post_frames, phrase_verb,
    title_frames, verb_frame,
)
from graph_builder.extraction.inheritance import has_to, inherit
from graph_builder.extraction.naming import CONTROL_SEPARATOR, NEGATION_PREFIX, Relation, frame_relations, predicate_name
from graph_builder.extraction.slots import Slot, clean_lemma
from graph_builder.extraction.words import (
    CONDITION_MARKS, COPULA_LEMMAS, MODAL_AUXILIARIES, NONVERIDICAL_VERBS, PREDICTION_VERBS, SPECULATION_NOUNS, SUBJECT_DEPS,
)

__all__ = ["CONTROL_SEPARATOR", "NEGATION_PREFIX", "Frame", "Relation", "Slot", "clean_lemma", "frame_relations",
           "predicate_name", "sentence_frames"]


def sentence_frames(sent: Span) -> list[Frame]:
    """Return every predicate frame of a sentence, with shared arguments filled in."""
    frames: dict[int, Frame] = {}
    extra: list[Frame] = []
    for token in sent:
        if token.pos_ == "VERB":
            frame = verb_frame(token)
            if frame is not None:
                frames[token.i] = frame
        elif token.pos_ == "AUX" and token.lemma_ in COPULA_LEMMAS and token.dep_ in {"ROOT", "conj", "ccomp", "relcl", "advcl"}:
            extra += copula_frames(token)
        if token.dep_ == "appos" and token.pos_ == "NOUN" and not token.ent_type_:
            extra += apposition_frames(token)
        elif token.dep_ == "appos" and (member := one_of(token)) is not None:  # "X, one of the shareholders in Y"
            extra += apposition_frames(member, token)
        elif token.dep_ == "appos" and token.ent_type_ == "PERSON":
            extra += title_frames(token)
        if token.ent_type_ in {"PERSON", "ORG"}:
            extra += owned_post_frames(token)
        if token.pos_ == "NOUN":
            extra += nominal_frames(token)
    # Heads before dependents, so a conjunct inherits from a frame that already inherited.
    for index in sorted(frames, key=lambda i: _depth(sent.doc[i])):
        inherit(frames[index], frames)
    kept = [f for f in [*frames.values(), *extra] if asserted(f.head)]
    for frame in kept:
        modal = modal_of(frame.head)
        if modal is not None:
            frame.controllers = [MODAL_AUXILIARIES[modal.lower_], *frame.controllers]
            frame.words.add(modal)
        marker = supposed_by(frame.head)
        if marker is not None:
            frame.controllers = [marker.lemma_.lower(), *frame.controllers]
            denial = denial_of(marker)
            if denial is not None:  # "analysts do not expect X will buy Y": NEG__expect__(buy.1,buy.2)
                frame.negations += 1
                frame.words.add(denial)
        condition = condition_of(frame.head)
        if condition is not None:  # "if Romney defeats Obama, ...": if__(defeat.1,defeat.2)
            frame.controllers = [CONDITION_MARKS[condition.lower_], *frame.controllers]
            frame.words.add(condition)
    return kept


# Dependencies that embed a clause in the one above it; a noun's frame sits in the clause of the verb it is an
# argument of.
CLAUSE_DEPS = frozenset({"ccomp", "xcomp", "conj", "advcl"})
ARGUMENT_DEPS = frozenset({"nsubj", "nsubjpass", "dobj", "attr"})


def asserted(token: Token) -> bool:
    """Whether the sentence states the clause of `token`: not when that clause, or one it is embedded in, is the
    complement of a verb that denies it or takes it as a mere supposition ("denied that X paid Y", "it is wrong to
    assume X formed Y", "doubt that X will buy Y"). A condition or a modal clause is kept, marked by its controller
    (`condition_of`, `modal_of`); a question states its relation, as in the published extraction. A relative
    clause is presupposed: the walk stops there."""
    # Only a finite clause: an infinitive or gerund joins its verb's predicate ("denied buying Y" ->
    # deny__(buy.1,buy.2)), which says the denial itself. A clause before the verb is a misparse of two
    # clauses ("X lifted output ... but analysts doubt its potential"), not its complement.
    return not any(t.dep_ == "ccomp" and t.i > t.head.i and t.head.lemma_.lower() in NONVERIDICAL_VERBS
                   for t in _clauses_up(token))


def supposed_by(token: Token) -> Token | None:
    """The verb of prediction or belief, or the noun of supposition, whose finite clause holds `token`'s clause
    ("the IMF expects the Fed will trim" -> expects; "speculation that X would bid" -> speculation), or None. Its
    lemma becomes the relation's controller, as "X is expected to trim" gives `expect__`: the act is expected, not
    reported."""
    for t in _clauses_up(token):
        head = t.head
        if t.dep_ == "ccomp" and t.i > head.i and head.pos_ in {"VERB", "AUX"} \
                and head.lemma_.lower() in PREDICTION_VERBS:
            return head
        if t.dep_ in {"acl", "ccomp"} and t.i > head.i and head.pos_ == "NOUN" \
                and head.lemma_.lower() in SPECULATION_NOUNS and any(c.dep_ in SUBJECT_DEPS for c in t.children):
            return head
    return None


def condition_of(token: Token) -> Token | None:
    """The "if" or "unless" that makes `token`'s clause, or a clause it is embedded in, a condition, or None: "China
    threatened to retaliate if the EU pushes ahead with the investigation" -> if for push; "if the jury determines
    Samsung violated Apple's patents" -> if for violate. The sentence does not state a condition's relation; it keeps
    the word as its controller, as a modal does (`if__(push.ahead.1,push.ahead.with.2)`). The clause the condition
    ("China threatened to retaliate") is stated."""
    for t in _clauses_up(token):
        if t.dep_ == "advcl":
            mark = next((c for c in t.children if c.dep_ == "mark" and c.lower_ in CONDITION_MARKS), None)
            if mark is not None:
                return mark
    return None


def denial_of(marker: Token) -> Token | None:
    """The word that denies a verb of prediction ("do not expect", "don't think") or a noun of supposition ("no
    expectation that"), or None: the prediction is then of the act not happening."""
    if marker.pos_ == "NOUN":
        return negating_determiner(marker)
    return next((c for c in marker.children if c.dep_ == "neg"), None)


def modal_of(token: Token) -> Token | None:
    """The modal auxiliary ("could", "may", "must", ...) of `token`'s clause, or of the clause whose open complement,
    conjunct or purpose it is, or None: "Sanofi could announce a deal" -> could; "X may decide to sell Y and buy Z" ->
    may for sell and buy; "X could renegotiate the terms to appease investors" -> could for appease. A conjunct or
    complement with an auxiliary of its own ("and will sell") is a clause of its own; a denied "could" ("could not
    survive") is a past inability, read as before."""
    t = token.head if token.pos_ in {"NOUN", "PROPN", "ADJ"} and token.dep_ in ARGUMENT_DEPS | {"acomp"} else token
    while True:
        auxiliaries = [c for c in t.children if c.dep_ in {"aux", "auxpass"} and c.lower_ != "to"]
        modal = next((c for c in auxiliaries if c.lower_ in MODAL_AUXILIARIES), None)
        if modal is not None:
            denied = any(c.dep_ == "neg" for c in t.children)
            return None if denied and modal.lower_ == "could" else modal
        purpose = t.dep_ == "advcl" and has_to(t)
        if not auxiliaries and _gerund_of_verb(t):
            t = phrase_verb(t.head)
            continue
        if auxiliaries or (t.dep_ not in {"xcomp", "conj"} and not purpose) or t.head.i == t.i \
                or t.head.pos_ not in {"VERB", "AUX"}:
            return None
        t = t.head


def _clauses_up(token: Token) -> Iterator[Token]:
    """The head of `token`'s clause (a noun argument's clause is its verb's), then the head of each clause it is
    embedded in, up to the first that is not a clausal dependent (a relative clause, the root)."""
    t = token.head if token.pos_ in {"NOUN", "PROPN"} and token.dep_ in ARGUMENT_DEPS else token
    while True:
        yield t
        if _gerund_of_verb(t):  # "even if Europe succeeds in restoring confidence": restoring is in the if-clause
            t = phrase_verb(t.head)
            continue
        if t.dep_ not in CLAUSE_DEPS or t.head.i == t.i:
            return
        t = t.head


def _gerund_of_verb(t: Token) -> bool:
    """A gerund after a preposition of a verb ("succeeds in restoring", "could help by offering", "backed away from
    buying"): in its clause."""
    if t.dep_ != "pcomp" or t.head.dep_ != "prep":
        return False
    verb = phrase_verb(t.head)
    return verb.pos_ in {"VERB", "AUX"} and verb.i != t.head.i


def _depth(token: Token) -> int:
    depth = 0
    while token.head.i != token.i:
        token = token.head
        depth += 1
    return depth
