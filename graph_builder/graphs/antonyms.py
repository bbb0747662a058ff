"""Contradictions the graphs cannot see: a premise and a hypothesis that say opposite things of the same roles.

Distributional measures score antonyms high, since antonyms share their arguments: the pairs S&P downgraded
are the pairs it upgraded, the prices that rose are the prices that fell. A premise whose words hold one verb of
a pair WordNet lists as antonyms (`downgrade`/`upgrade`, `buy`/`sell`, `rise`/`fall`) and a hypothesis that holds
the other, both with their subject first, the arguments in the same order and neither negated, contradict each
other; every graph scorer gives such a pair 0 (match `antonym`). A converse keeps its score: "Y sold X to Z"
entails "Z bought X" with the arguments the other way around, and "X was sold by Y" entails "X was bought from
Y" (neither has its subject first). The pairs come from `graph_builder/data/verb_antonyms.tsv`
(`scripts/verb_antonyms.py` writes it from WordNet 3.0), so serving needs no WordNet, and from
`graph_builder/data/verb_directions.tsv`: every verb of an increase against every verb of a decrease ("raised" /
"cut" an outlook, "upgraded" / "slashed" a rating), which WordNet lists as antonyms only pair by pair.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

ANTONYMS_FILE = Path(__file__).resolve().parent.parent / "data" / "verb_antonyms.tsv"
DIRECTIONS_FILE = ANTONYMS_FILE.with_name("verb_directions.tsv")
DIRECTIONS = ("up", "down")
NEGATED = "NEG__"
_WORD = re.compile(r"[a-z]+")


def _rows(path: Path) -> list[tuple[str, str]]:
    """A data file's two-column rows, comments and blank lines left out."""
    return [tuple(line.split("\t")) for line in path.read_text(encoding="utf-8").splitlines()  # type: ignore[misc]
            if line and not line.startswith("#")]


def directions() -> dict[str, set[str]]:
    """The verbs of each direction of change (`verb_directions.tsv`); an unknown direction is refused."""
    out: dict[str, set[str]] = {way: set() for way in DIRECTIONS}
    for word, way in _rows(DIRECTIONS_FILE):
        if way not in out:
            raise ValueError(f"{DIRECTIONS_FILE.name}: {word!r} has direction {way!r}, not one of {DIRECTIONS}")
        out[way].add(word)
    return out


@lru_cache(maxsize=1)
def antonyms() -> dict[str, frozenset[str]]:
    """Each verb's antonyms, both ways: WordNet's pairs, and every verb of one direction of change against every verb
    of the other."""
    pairs = _rows(ANTONYMS_FILE)
    ways = directions()
    pairs += [(a, b) for a in ways["up"] for b in ways["down"]]
    table: dict[str, set[str]] = {}
    for a, b in pairs:
        table.setdefault(a, set()).add(b)
        table.setdefault(b, set()).add(a)
    return {word: frozenset(others) for word, others in table.items()}


@lru_cache(maxsize=100_000)
def _words(predicate: str) -> frozenset[str]:
    return frozenset(_WORD.findall(predicate))


@lru_cache(maxsize=100_000)
def _subject_first(predicate: str) -> bool:
    """`(buy.1,buy.from.2)`: the first argument is the verb's subject (not so in `(sell.2,sell.by.2)`)."""
    inside = predicate[predicate.find("(") + 1:]
    return inside.split(",", 1)[0].endswith(".1")


@lru_cache(maxsize=100_000)
def may_be_contradicted(hypothesis: str) -> bool:
    """Whether some premise could contradict this hypothesis (`contradicts`): it is not negated, has its
    subject first and holds a word with an antonym. Most hypotheses do not, and their pairs need no check."""
    if NEGATED in hypothesis or not _subject_first(hypothesis):
        return False
    table = antonyms()
    return any(word in table for word in _words(hypothesis))


def contradicts(premise: str, hypothesis: str, premise_reversed: bool) -> bool:
    """Whether a premise predicate says the opposite of the hypothesis of the same arguments in the same order:
    words of a WordNet verb antonym pair on either side (not shared by both), and neither side negated."""
    if premise_reversed or premise == hypothesis or NEGATED in premise or NEGATED in hypothesis:
        return False
    if not (_subject_first(premise) and _subject_first(hypothesis)):
        return False
    p, h = _words(premise), _words(hypothesis)
    table = antonyms()
    only_h = h - p
    return any(table.get(word, frozenset()) & only_h for word in p - h)
