"""A news headline as a sentence the extractor can read, or the reason it states no event.

An article's title is the shortest statement of its news ("Facebook to buy Instagram for $1 billion"), often the
only one naming both participants the way a reader would ask about them. Headlines carry furniture that sentences
do not: update and repeat markers (`UPDATE 1-`, `RPT-`), desk sections (`EMERGING MARKETS-`), labels before a colon
(`Factbox:`, `Insight:`, `Exclusive:`), a source after a colon or dash (`: sources`, `- paper`, `: IMF`), and
headline grammar, where "X to buy Y" means X will buy Y; a headline the parser reads nothing from is read as the prose
it stands for (`headline_as_prose`: "Yahoo fires Mayer" -> "Yahoo fired Mayer."). Items that are not news of an event
(tables, diaries, market updates, fact boxes, polls, previews) and headlines set in capitals (Reuters-21578: "BAHIA
COCOA REVIEW", "E.D. And F. MAN TO BUY INTO HONG KONG FIRM", which the recogniser cannot read) give no sentence.
"""

from __future__ import annotations

import re

from lemminflect import getAllLemmas, getInflection
from spacy.tokens import Doc, Token

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


def headline_as_prose(doc: Doc) -> str | None:
    """The sentence of news prose a headline stands for, or None where it is no headline the rule knows ("Yahoo fires
    Mayer" -> "Yahoo fired Mayer.", "Regulators fine Barclays" -> "Regulators fined Barclays.", "Tyco sued by Swartz"
    -> "Tyco was sued by Swartz."): a headline writes a past event in the present tense and a passive without its
    auxiliary, and the small parser, trained on prose, takes such a verb for a plural noun ("fires", "fines") or an
    adjective, and the participle for an active verb. The first word after the first that is such a verb form, and
    follows no determiner, preposition or verb, is rewritten; the sentence ends with a full stop."""
    for token in doc[1:]:
        before = doc[token.i - 1]
        after = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if before.tag_ in {"DT", "PRP$", "IN", "TO", "MD", "CC"} or before.pos_ in {"VERB", "AUX"}:
            continue  # "the fines", "to back", "will fine": not a headline's verb
        plural = before.tag_ in {"NNS", "NNPS"} or any(t.lower_ == "and" for t in doc[:token.i])
        rewritten = _headline_verb(token, plural)
        if rewritten is None:
            if token.pos_ in {"VERB", "AUX"}:
                return None  # the parser found the verb, and it is no headline form: nothing to rewrite
            continue
        if after is not None and after.pos_ in {"VERB", "AUX"} and after.is_lower and token.pos_ not in {"VERB", "AUX"}:
            return None  # "RIM shares drop": the parser's noun before its verb, not the verb
        text = (doc[:token.i].text_with_ws + rewritten + token.whitespace_ + doc[token.i + 1:].text).rstrip()
        return text if text[-1:] in {".", "!", "?"} else text + "."
    return None


def _headline_verb(token: Token, plural: bool) -> str | None:
    """The prose for a headline's verb form, or None: a present tense ("fires"; "fine" after a plural subject) in the
    past tense; a participle with an agent after it ("sued by") with its auxiliary."""
    word = token.text
    if not word.isalpha() or not word.islower():
        return None
    for lemma in getAllLemmas(word, upos="VERB").get("VERB", ()):
        past = getInflection(lemma, tag="VBD")
        if not past:
            continue
        if word in getInflection(lemma, tag="VBZ") or (plural and word == lemma):
            return past[0]
        nxt = token.nbor(1) if token.i + 1 < len(token.doc) else None
        if nxt is not None and nxt.lower_ == "by" and word in getInflection(lemma, tag="VBN"):
            return ("were " if plural else "was ") + word
    return None
