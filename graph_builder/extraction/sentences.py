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
analyst analysts officials official said says vice senior managing deputy general founder head
""".split())
# Words that start a sentence and never continue a name: after an abbreviation or initialism they end the sentence
# ("... sold outside the U.S. It has ...", "... chips, memory etc. The company ..."), where a name word keeps it
# going ("the U.S. Treasury", "U.S. Steel").
_SENTENCE_STARTERS = frozenset("""
the a an it its he his she her they their we our i you this these those there but and however meanwhile since while
although though if when after before in on at for as so yet also
""".split())
# Abbreviations after which a starter may still continue the sentence ("Acme vs. The Widget Co").
_NO_STARTER_BREAK = frozenset({"vs", "v"})
# A ticker the news clean-up left glued after a name ("Inco Ltd. N.TO").
_TICKER_RE = re.compile(r"[A-Z]+(?:\.[A-Z]+)+(?=\s|$)")
_BOUNDARY_RE = re.compile(r"([.!?]+)([\"”’')\]]*)\s+(?=[\"“‘(\[]?[A-Z0-9])")
_WORD_BEFORE_RE = re.compile(r"([A-Za-z][A-Za-z.&'\-]*)$")
_NEXT_WORD_RE = re.compile(r"[\"“‘(\[]?([A-Za-z0-9][\w&'\-]*)")
_INITIAL_RE = re.compile(r"^(?:[A-Z]\.)*[A-Z]$")


def _is_boundary(text: str, match: re.Match[str]) -> bool:
    """Whether the full stop (or ? !) of `match` ends a sentence, judged by the word before it and the word after."""
    if match.group(1) != ".":
        return True  # "?", "!", "...": a sentence end before a capital
    # The word cannot run across a space: searching from the last one gives the same match without trying every
    # earlier start in the paragraph (which made splitting quadratic in its length).
    before = _WORD_BEFORE_RE.search(text, text.rfind(" ", 0, match.start()) + 1, match.start())
    word = before.group(1) if before else ""
    low = word.lower().rstrip(".")
    after = _NEXT_WORD_RE.match(text, match.end())
    next_word = after.group(1) if after else ""
    if _INITIAL_RE.match(word.rstrip(".")) or low in _ABBREVIATIONS:
        # "John F. Kennedy", "U.S. Steel", "Gov. Smith" go on; "outside the U.S. It has ..." ends
        return len(low) > 1 and low not in _NO_STARTER_BREAK and next_word.lower() in _SENTENCE_STARTERS
    if low in _COMPANY_SUFFIXES:
        # "Exxon Corp. The deal ..." ends; "Honda Motor Co. Ltd", "Acme Corp. Vice Chairman", "Inco Ltd. N.TO" go on
        return not (next_word.lower() in _TITLE_CONTINUATIONS or next_word.lower() in _COMPANY_SUFFIXES
                    or _TICKER_RE.match(text, match.end()))
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
