"""The predicate format, read and written in one place.

A normalised predicate is written as the CCG-based extraction of Hosseini et al. (2018) writes it: optional
prefixes, each ending in `__` (`NEG__` for a negated predicate, a control verb's lemma such as `want__`), then
`(left,right)`, each half its lemma words joined by `.` and ending in the argument's slot number:
`NEG__want__(buy.1,buy.from.2)`. A typed node appends the two argument types: `(visit.1,visit.2)#person#location`.
Imported rules may hold plain text instead (`be find in`); readers here return None for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NEGATION = "NEG"
_SHAPE = re.compile(r"^(?P<prefix>.*?)\((?P<left>[^,()]+),(?P<right>[^,()]+)\)$")
# What a client may send as an already normalised predicate: lower-case prefixes, no spaces, no `#`.
_NORMALISED = re.compile(r"^(NEG__)?([a-z][\w'.\-]*__)*\([^(),#\s]+\.[^(),#\s]+,[^(),#\s]+\.[^(),#\s]+\)$")
_ROLE = re.compile(r"\.\d+$")


@dataclass(frozen=True)
class Predicate:
    """A predicate split into its parts: `prefix` (the prefixes with their `__`), each half's lemma words and
    slot (the slot is empty when a half carries none)."""

    prefix: str
    left: tuple[str, ...]
    left_slot: str
    right: tuple[str, ...]
    right_slot: str

    def text(self) -> str:
        """Return the predicate in the extractor's format."""
        return f"{self.prefix}({'.'.join((*self.left, self.left_slot))},{'.'.join((*self.right, self.right_slot))})"

    @property
    def prefixes(self) -> tuple[str, ...]:
        """The prefixes without their `__`: `NEG__want__` -> ("NEG", "want")."""
        return tuple(p for p in self.prefix.split("__") if p)

    def common(self) -> int:
        """Return the length of the lemma prefix both halves share (the head, e.g. `arrive`)."""
        n = 0
        for a, b in zip(self.left, self.right):
            if a != b:
                break
            n += 1
        return n


def predicate_of(node: str) -> str:
    """Return the predicate of a typed node `pred#type1#type2` (the string before the two types)."""
    parts = node.rsplit("#", 2)
    return parts[0] if len(parts) == 3 else node


def halves(predicate: str) -> tuple[str, list[str], list[str]] | None:
    """Split a predicate leniently into (prefix, left words, right words), slot numbers dropped; None for
    plain text. `(shop.1,shop.in.2)` -> ("", ["shop"], ["shop", "in"])."""
    match = _SHAPE.match(predicate.strip())
    if match is None:
        return None
    return match["prefix"], _ROLE.sub("", match["left"]).split("."), _ROLE.sub("", match["right"]).split(".")


def parse(predicate: str) -> Predicate | None:
    """Parse a predicate strictly: prefixes each ending in `__`, each half with a numeric slot; else None."""
    match = _SHAPE.match(predicate)
    if match is None or "(" in match["prefix"] or "," in match["prefix"] or \
            (match["prefix"] and not match["prefix"].endswith("__")):
        return None
    parts = []
    for half in (match["left"], match["right"]):
        tokens = half.split(".")
        if len(tokens) < 2 or not tokens[-1].isdigit() or not all(tokens[:-1]):
            return None
        parts.append((tuple(tokens[:-1]), tokens[-1]))
    (left, left_slot), (right, right_slot) = parts
    return Predicate(match["prefix"], left, left_slot, right, right_slot)


def is_normalised(text: str) -> bool:
    """Whether a client's predicate is already in the normalised format (else it is read as words)."""
    return _NORMALISED.match(text) is not None


def is_negated(predicate: str) -> bool:
    """Return whether the predicate carries the extractor's negation prefix."""
    return predicate.startswith(f"{NEGATION}__") or f"__{NEGATION}__" in predicate
