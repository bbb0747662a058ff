"""Sentence splitting of cleaned news paragraphs, before any parsing.

egqa splits sentences with rules, then parses each sentence as its own document. That keeps a sentence
from ever running into the next line (a headline, a table row), lets a sentence seen before be answered
from a cache, and lets a sentence that cannot hold a named entity be skipped before the expensive parse.
"""

from __future__ import annotations

import re

# Abbreviations after which a full stop does not end a sentence, even before a capital.
_ABBREVIATIONS = frozenset("""
mr mrs ms dr prof sen rep gov gen lt col capt sgt adm cmdr st mt ft jr sr rev hon pres supt insp
jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
no nos vol fig figs approx est dept div assn bros etc vs v al op cf ca
u.s u.k u.n e.u u.s.a n.y d.c l.a a.m p.m i.e e.g
ariz calif colo conn del fla ga ill ind kan ky la md mass mich minn miss mo mont neb nev okla ore pa
tenn tex va vt wash wis wyo
""".split())
# A company suffix ends a name; before a capitalised word it usually also ends the sentence
# ("... acquired by Exxon Corp. The deal ..."), unless that word continues the sentence as a title or name.
_COMPANY_SUFFIXES = frozenset("inc corp co ltd plc llc lp bhd ag sa nv bv spa".split())
_TITLE_CONTINUATIONS = frozenset("""
chairman chief president executive ceo cfo coo director spokesman spokeswoman unit shares stock
analyst analysts officials official said says
""".split())
_BOUNDARY_RE = re.compile(r"([.!?]+)([\"”’')\]]*)\s+(?=[\"“‘(\[]?[A-Z0-9])")
_WORD_BEFORE_RE = re.compile(r"([A-Za-z][A-Za-z.&'\-]*)$")
_NEXT_WORD_RE = re.compile(r"[\"“‘(\[]?([A-Za-z0-9][\w&'\-]*)")
_INITIAL_RE = re.compile(r"^(?:[A-Z]\.)*[A-Z]$")


def _is_boundary(text: str, match: re.Match[str]) -> bool:
    if match.group(1) != ".":
        return True  # "?", "!", "...": a sentence end before a capital
    before = _WORD_BEFORE_RE.search(text, 0, match.start())
    word = before.group(1) if before else ""
    low = word.lower().rstrip(".")
    if _INITIAL_RE.match(word.rstrip(".")):
        return False  # "John F. Kennedy", "U.S. Steel"
    if low in _ABBREVIATIONS:
        return False
    if low in _COMPANY_SUFFIXES:
        after = _NEXT_WORD_RE.match(text, match.end())
        return not (after and after.group(1).lower() in _TITLE_CONTINUATIONS)
    return True


def split_sentences(paragraph: str) -> list[str]:
    """Split one cleaned paragraph into sentences (full stops after abbreviations and initials do not split)."""
    out: list[str] = []
    start = 0
    for match in _BOUNDARY_RE.finditer(paragraph):
        if _is_boundary(paragraph, match):
            end = match.end(2)
            piece = paragraph[start:end].strip()
            if piece:
                out.append(piece)
            start = match.end()
    tail = paragraph[start:].strip()
    if tail:
        out.append(tail)
    return out


def article_sentences(text: str) -> list[str]:
    """Split a cleaned article (one paragraph per line) into its sentences, in order."""
    return [s for line in text.split("\n") for s in split_sentences(line)]
