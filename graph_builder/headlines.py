"""A news headline as a sentence the extractor can read, or the reason it states no event.

An article's title is the shortest statement of its news ("Facebook to buy Instagram for $1 billion"), often the
only one naming both participants the way a reader would ask about them. Headlines carry furniture that sentences
do not: update and repeat markers (`UPDATE 1-`, `RPT-`), desk sections (`EMERGING MARKETS-`), labels before a colon
(`Factbox:`, `Insight:`, `Exclusive:`), a source after a colon or dash (`: sources`, `- paper`, `: IMF`), and
headline grammar, where "X to buy Y" means X will buy Y. Items that are not news of an event (tables, diaries,
market updates, fact boxes, polls, previews) and headlines set in capitals (Reuters-21578: "BAHIA COCOA REVIEW",
"E.D. And F. MAN TO BUY INTO HONG KONG FIRM", which the recogniser cannot read) give no sentence.
"""

from __future__ import annotations

import re

_MARKERS = re.compile(r"^(?:(?:UPDATE|RPT|REFILE|CORRECTED|CORRECTION|EXCLUSIVE|URGENT|FEATURE|ANALYSIS|WRAPUP)"
                      r"(?:\s*\d+)?\s*-\s*)+", re.IGNORECASE)
_SOURCE_TAG = re.compile(r"\s*(?:-{1,2}\s*|:\s*)(?:paper|papers|report|reports|source|sources|filing|sources say|"
                         r"newspaper|media|agency|statement|document|official|officials|TV|radio|trade|traders|"
                         r"dealers|analysts)\s*$", re.IGNORECASE)
# A desk's section prefix: "EMERGING MARKETS-Latam stocks climb" (three capitals at least, so "US-China" stays).
_SECTION = re.compile(r"^[A-Z][A-Z &/+]{2,}-\s*(?=[A-Z0-9])")
# A label or speaker of at most four words before a colon: "Factbox:", "Wall Street Week Ahead:", "Anglo CEO:".
_LABEL = re.compile(r"^(?:[^\s:]+\s+){0,3}[^\s:]+:\s+(?=\S)")
# Who said it, after a colon or a spaced dash at the end, in at most four words: ": IMF", ": Eurogroup head", "- sources".
_ATTRIBUTION = re.compile(r"\s*(?::|\s[-–—])\s+(?:[^\s:]+\s+){0,3}[^\s:]+\s*$")
_NON_EVENTS = {
    "table": re.compile(r"^TABLE\s*-", re.IGNORECASE),
    "diary": re.compile(r"^(?:DIARY|CALENDAR)\b", re.IGNORECASE),
    "market update": re.compile(r"^(?:Stock Market Update|NY Money|Money Markets|.*Closing (?:Prices|Rates))",
                                re.IGNORECASE),
    "fact box": re.compile(r"^(?:FACTBOX|TIMELINE|Q\+A|BIOGRAPHY|KEY FACTS|INSTANT VIEW|SCENARIOS|GRAPHIC)\b",
                           re.IGNORECASE),
    "brief": re.compile(r"^(?:BRIEF|BUZZ|RESEARCH ALERT|PRESS DIGEST|REUTERS POLL|POLL|PREVIEW|CORRECTED TABLE)\b",
                        re.IGNORECASE),
}
# "X to buy Y": a subject written in names ("Facebook", "Bank of America", "ADP, Paychex") then "to" and a verb.
_NAME_WORD = r"(?:[A-Z0-9][\w.&'’\-]*|of|and|&|the|de)"
_INFINITIVE_HEADLINE = re.compile(rf"^((?:{_NAME_WORD},?\s+){{0,5}}{_NAME_WORD}) to (?=[a-z])")
MIN_WORDS = 3
MIN_LOWER_SHARE = 1 / 3  # of a headline's letters; fewer, and it is set in capitals


def clean_headline(title: str) -> tuple[str | None, str | None]:
    """The headline as a sentence, or None with the kind of item it is when it states no event."""
    title = " ".join(title.split())
    for kind, pattern in _NON_EVENTS.items():
        if pattern.match(title):
            return None, kind
    letters = [c for c in title if c.isalpha()]
    if sum(c.islower() for c in letters) < MIN_LOWER_SHARE * len(letters) or not letters:
        return None, "capitals"
    text = _SOURCE_TAG.sub("", _SECTION.sub("", _MARKERS.sub("", title))).strip(" -:;")
    text = _LABEL.sub("", text)
    said = _ATTRIBUTION.sub("", text)
    if len(said.split()) >= MIN_WORDS:
        text = said
    text = _INFINITIVE_HEADLINE.sub(r"\1 will ", text).strip(" -:;")
    if len(text.split()) < MIN_WORDS:
        return None, "too short"
    return (text if text[-1] in ".?!" else text + "."), None


def headline_sentence(title: str) -> str:
    """The headline as a sentence, or "" when it states no event (what the extractor reads for an article's title)."""
    return clean_headline(title)[0] or ""
