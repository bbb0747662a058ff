"""Positives whose predicate is a fragment of an idiom: the extraction dropped the word that carries the meaning.

"5 billion shares changed hands on the Nasdaq" is extracted as `share (change.1,change.on.2) nasdaq`: the
object *hands* is dropped, and "shares changed on Nasdaq" says something the sentence does not. Such a
positive is not a relation, and its hyponym negatives ("shares converted on Nasdaq") are nonsense.

A positive is a fragment when its sentence has the predicate's verb (as written) followed, within two words,
by a complement that makes an idiom with it, and the predicate itself does not hold that complement; or when
its text starts with a capitalised function word ("With increase", "At expect", "On continue"): the relation
was read across a sentence-initial phrase, and the predicate is not one.

A positive is also a fragment when its predicate is the bare object frame of a verb whose object is a clause
(`(say.1,say.2)`): "JPMorgan said Lehman had pointed to nothing" gives jpmorgan `said` lehman, but what was
said is the clause, and its subject is not what was said (every such positive read blind in 2026-11-27's reads
was a fragment).

A positive is also detached (`detached`, the builder's `--contiguous-positives`) when its predicate's text does
not stand in its sentence as one run of words: "Bernanke won confirmation to a second term" gives `won to`
(term), "hired an executive with experience" gives `hired with` (experience). Most such predicates join a verb
to a phrase that only modifies its object; some are relations all the same ("sold 28,000 loans to Fannie Mae"),
so the check trades positives for fewer fragments.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from graph_builder.predicates import parse as parse_predicate

# Verb lemma -> complements that make an idiom with it, whose meaning the bare verb does not carry.
IDIOMS: Mapping[str, frozenset[str]] = {
    "change": frozenset({"hands"}),
    "end": frozenset({"up", "higher", "lower", "down", "flat", "unchanged", "steady"}),
    "close": frozenset({"higher", "lower", "up", "down", "flat", "unchanged", "steady"}),
    "finish": frozenset({"higher", "lower", "up", "down", "flat", "unchanged"}),
    "take": frozenset({"place", "part", "hold", "effect", "shape", "office", "charge", "aim", "issue", "note",
                       "steps", "action", "advantage", "control", "over"}),
    "make": frozenset({"sure", "sense", "headway", "clear", "way", "progress", "good"}),
    "give": frozenset({"way", "up", "rise", "birth", "ground", "notice"}),
    "come": frozenset({"up", "under", "out", "in", "true", "close"}),
    "set": frozenset({"up", "out", "off", "aside", "stage"}),
    "keep": frozenset({"track", "pace", "tabs"}),
    "pay": frozenset({"off", "attention", "heed"}),
    "put": frozenset({"pressure", "forward", "off", "out", "together"}),
    "carry": frozenset({"out", "on"}),
    "go": frozenset({"public", "private", "ahead", "bust", "bankrupt", "under"}),
    "shed": frozenset({"light"}),
    "rule": frozenset({"out"}),
}

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# Words of a predicate's text that are not its verb.
_NOT_VERB = frozenset(
    "a an the to of in on at by for with from into over about as be is are was were been being am has have had "
    "having do does did will would shall should can could may might must not n't never also still".split())


_OPENERS = frozenset("With At On In For From By Of To As After Before Under Over Despite Amid".split())


def garbled(predicate_text: str) -> bool:
    """Whether the predicate's text starts with a capitalised function word (a sentence-initial phrase)."""
    first = predicate_text.split(maxsplit=1)[0] if predicate_text.strip() else ""
    return first in _OPENERS


def idiom_complement(predicate: str, predicate_text: str, sentence: str,
                     arguments: tuple[str, ...] = ()) -> str | None:
    """Return the idiom complement the predicate dropped ("hands"), or None when the positive is a relation.

    A complement that is one of the arguments (`take` + `control` with the object `control`) is not dropped.
    """
    parsed = parse_predicate(predicate)
    if parsed is None or not parsed.left:
        return None
    head = parsed.left[0].split("_")[0]
    complements = IDIOMS.get(head)
    if not complements:
        return None
    held = {w for token in (*parsed.left, *parsed.right) for w in token.split("_")}
    held |= {w.lower() for text in (predicate_text, *arguments) for w in _WORD.findall(text)}
    words = [w.lower() for w in _WORD.findall(sentence)]
    # The verb as written (`changed`, `took`): the predicate text's words that are not auxiliaries or particles.
    forms = {w.lower() for w in _WORD.findall(predicate_text)} - _NOT_VERB or {head}
    for i, word in enumerate(words):
        if word in forms:
            for follower in words[i + 1:i + 3]:
                if follower in complements and follower not in held:
                    return follower
    return None


def detached(predicate_text: str, sentence: str) -> bool:
    """Whether the predicate's text is not one run of words of its sentence (case and punctuation aside)."""
    text = [w.lower() for w in _WORD.findall(predicate_text)]
    words = [w.lower() for w in _WORD.findall(sentence)]
    n = len(text)
    if not n:
        return False
    return not any(words[i:i + n] == text for i in range(len(words) - n + 1))


# Verbs whose object is a clause: their bare object frame holds the clause's subject, not what the verb governs.
CLAUSE_OBJECT_VERBS: frozenset[str] = frozenset({"say"})


def clause_object(predicate: str) -> bool:
    """Whether the predicate is the bare subject-object frame of a verb whose object is a clause."""
    parsed = parse_predicate(predicate)
    return (parsed is not None and len(parsed.left) == 1 and parsed.left == parsed.right
            and parsed.left[0] in CLAUSE_OBJECT_VERBS and (parsed.left_slot, parsed.right_slot) == ("1", "2"))
