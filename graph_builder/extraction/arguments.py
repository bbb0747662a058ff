"""Argument mentions: which tokens can fill a slot, their normalised and surface forms, and their types."""

from __future__ import annotations

import re

from dataclasses import dataclass

from spacy.tokens import Span, Token

# spaCy (OntoNotes) entity labels -> FIGER-like first-level types. Labels absent here are numeric or
# temporal (MONEY, CARDINAL, ...): such a mention may be an argument, typed `thing`, but is no entity.
ENTITY_TYPES: dict[str, str] = {
    "PERSON": "person",
    "ORG": "organization",
    "GPE": "location",
    "LOC": "location",
    "FAC": "building",
    "NORP": "group",
    "EVENT": "event",
    "PRODUCT": "product",
    "WORK_OF_ART": "art",
    "LAW": "law",
    "LANGUAGE": "language",
}
UNKNOWN_TYPE = "thing"
# Temporal adjuncts ("on Monday") and amounts ("15 cts", "5 mln dlrs", "3 pct") are not participants
# a question is asked about; in newswire tables they are most of the noise.
SKIPPED_ENTITY_LABELS = frozenset({"DATE", "TIME", "MONEY", "PERCENT", "QUANTITY", "CARDINAL", "ORDINAL"})
ARGUMENT_POS = frozenset({"NOUN", "PROPN"})
# Unit and table words of financial newswire that the tagger often takes for names (and time zones: "at 0900 GMT").
UNIT_WORDS = frozenset({"ct", "cts", "dlr", "dlrs", "pct", "mln", "billion", "bln", "shr", "shrs", "vs", "qtr",
                        "revs", "avg", "tonne", "tonnes", "pence", "stg", "percent", "percentage", "point", "points",
                        "bps", "gmt", "edt", "est", "bst", "cet", "jst"})
# Currencies: with a number they are an amount ("for 984 million euros"), without one a participant ("the euro rose").
CURRENCY_WORDS = frozenset({"euro", "dollar", "yen", "pound", "franc", "yuan", "renminbi", "rupee", "peso", "won", "krona",
                            "krone", "crown", "rouble", "ruble", "lira", "rand", "ringgit", "baht", "shekel", "dinar",
                            "riyal", "dirham", "real", "zloty", "forint", "rupiah", "cent", "penny", "guilder", "mark"})
# Common nouns that only say when: "in calendar 2001", "the first half", "for the first time" (dates are skipped by label).
TIME_NOUNS = frozenset({"calendar", "year", "quarter", "month", "week", "weekend", "day", "hour", "minute", "period",
                        "half", "season", "decade", "century", "morning", "afternoon", "evening", "night", "time"})
_STRIP_WORDS = frozenset({"the", "a", "an", "this", "that", "these", "those", "neither", "either"})
# "Widget Inc." and "Widget Inc" are one name (the tokenizer also keeps a sentence's last full stop on "Inc.").
_DOTTED_SUFFIXES = frozenset({"inc.", "corp.", "co.", "ltd.", "plc.", "bros."})
_POSSESSIVES = frozenset({"'s", "’s", "'", "’"})
# Names that end in a possessive-looking 's: the 's is part of the name, never a possessive.
POSSESSIVE_NAMES = frozenset({"moody", "standard & poor", "mcdonald", "macy", "sotheby", "christie", "dillard",
                              "kellogg", "lloyd", "wendy", "domino", "denny", "kohl", "applebee", "hershey",
                              "sainsbury", "land", "dunkin", "carl", "friendly", "church", "nathan", "shoney",
                              "barron", "s&p", "poor"})
# Company-form words: a name ending in one of these is an organisation whatever the recogniser said
# (Reuters-21578's "Epitope Inc" came out a person).
COMPANY_SUFFIXES = frozenset({"inc", "inc.", "corp", "corp.", "co", "co.", "ltd", "ltd.", "plc", "llc", "lp", "l.p.",
                              "bank", "group", "holdings", "holding", "partners", "ag", "sa", "s.a.", "nv", "n.v.",
                              "bhd", "spa", "s.p.a.", "corporation", "company", "incorporated", "limited", "trust",
                              "bancorp", "industries", "airlines", "airways", "motors", "securities", "capital",
                              "investments", "fund", "associates", "systems", "technologies", "pharmaceuticals",
                              "energy", "petroleum", "resources", "insurance", "financial", "communications", "ratings"})


@dataclass(frozen=True)
class Argument:
    """A mention that fills a predicate slot: `head` is its syntactic head token."""

    head: Token
    norm: str
    text: str
    type: str
    is_entity: bool


def _entity_of(token: Token) -> Span | None:
    if not token.ent_type_:
        return None
    for ent in token.sent.ents:
        if ent.start <= token.i < ent.end:
            return ent
    return None


def normalise(words: list[str]) -> str:
    """Lowercase, drop determiners, a final possessive and a company suffix's full stop, join with single spaces.

    An 's inside a name stays attached ("Moody's Investors Service" -> "moody's investors service"), and so
    does a final one of a name that ends in 's ("Moody's" -> "moody's", but "Exxon's" -> "exxon").
    """
    kept: list[str] = []
    possessive_last = False  # the last word took a possessive token ("Exxon 's"); a word written with its 's
    for word in (w.lower() for w in words):  # in it ("chesebrough-pond's", a stored name) keeps it: idempotent
        word = word[:-1] if word in _DOTTED_SUFFIXES else word
        if word in _STRIP_WORDS and not kept:
            continue
        if word in _POSSESSIVES and kept:
            kept[-1] += "'s" if word.endswith("s") else ""
            possessive_last = True
            continue
        kept.append(word)
        possessive_last = False
    if possessive_last and kept[-1].endswith("'s"):
        base = kept[-1][:-2]
        if " ".join([*kept[:-1], base]) not in POSSESSIVE_NAMES:
            kept[-1] = base
    return " ".join(" ".join(w for w in kept if w).split())


def company_type(words: list[str], entity_type: str | None) -> str | None:
    """The type a name's form says: a company suffix ("Epitope Inc", "Daiwa Securities") makes an organisation."""
    if len(words) > 1 and words[-1].lower().rstrip(",") in COMPANY_SUFFIXES and entity_type in {"person", "location", None,
                                                                                                 "product", "art"}:
        return "organization"
    return entity_type


# Credit ratings are values, like amounts: "cut the debt to CCC-minus", "rated B-3", "Aa2".
_RATING_RE = re.compile(r"^(?:aaa|aa|a|bbb|bb|b|ccc|cc|c|d|baa|ba|caa|ca)(?:[-+]|-?[123])?(?:\s*-?\s*(?:minus|plus))?$")


def _is_amount(words: list[str]) -> bool:
    tokens = [w.lower().strip(".,") for w in words]
    if len(tokens) <= 3 and _RATING_RE.match(" ".join(tokens).replace(" - ", "-")):
        return True
    return all(t in UNIT_WORDS or not any(ch.isalpha() for ch in t) for t in tokens)


# Capitalised words the tagger calls proper nouns that name no one: titles and newswire capitals.
_NOT_NAMES = frozenset({"ceo", "cfo", "coo", "chairman", "president", "minister", "secretary", "chief", "director",
                        "governor", "senator", "inc", "corp", "co", "ltd", "plc", "group", "bank", "street", "exchange",
                        "index", "government", "congress", "parliament", "court", "state", "states", "reuters"})


def _with_missed_words(ent: Span) -> Span:
    """A company's name with the first words the recogniser left out: "E*Trade Financial Corp", where it marks
    only "Financial Corp", is one name when the parser hangs "E*Trade" on it as a proper-noun compound."""
    if ent.label_ != "ORG":
        return ent
    start = ent.start
    while start > ent.sent.start:
        word = ent.doc[start - 1]
        if word.dep_ != "compound" or word.pos_ != "PROPN" or word.ent_type_ or not word.text[:1].isupper() \
                or word.is_upper or word.lower_ in _NOT_NAMES or word.text.endswith(".") \
                or not ent.start <= word.head.i < ent.end:
            break  # an all-capital word is a newswire heading ("LABOR NEGOTIATIONS AMR sought ...")
        if word.i == ent.sent.start and word.text.isalpha() and word.text[1:].islower():
            break  # a plain capitalised word opening the sentence may be any word ("Meanwhile Kraft, ...")
        start -= 1
    return ent if start == ent.start else Span(ent.doc, start, ent.end, label=ent.label_)


def _join_norm(norm: str, surface: str) -> str:
    """Keep hyphens and slashes inside names tight ("Fox-Pitt" -> "fox-pitt", not "fox - pitt") and commas on the
    word before them ("Smith, Jones & Roe" -> "smith, jones & roe")."""
    for mark in ("-", "/", "&"):
        if f" {mark} " in norm and f" {mark} " not in surface:
            norm = norm.replace(f" {mark} ", mark)
    if " , " in norm and " , " not in surface:
        norm = norm.replace(" , ", ", ")
    return norm


# The rules ask for the same token's argument many times (slots, measures, inheritance): doc_triples keeps the
# answers in the doc's user_data under this key while it reads the doc, and removes them when done.
ARGUMENT_MEMO = "egqa.arguments"


def argument_of(head: Token) -> Argument | None:
    """Return the argument whose head is `head`, or None if it cannot be one (pronoun, date, amount, ...)."""
    memo = head.doc.user_data.get(ARGUMENT_MEMO)
    if memo is None:
        return _argument_of(head)
    i = head.i
    if i not in memo:
        memo[i] = _argument_of(head)
    return memo[i]


def _argument_of(head: Token) -> Argument | None:
    if head.pos_ not in ARGUMENT_POS or head.like_num or head.lower_ in UNIT_WORDS:
        return None
    ent = _entity_of(head)
    if ent is not None:
        if ent.label_ in SKIPPED_ENTITY_LABELS:
            return None
        ent = _with_missed_words(ent)
        words = [t.text for t in ent]
        norm = _join_norm(normalise(words), ent.text)
        if not norm or _is_amount(words):
            return None
        text = " ".join(w for w in words if w.lower() not in {"the", "a", "an"}) or ent.text
        entity_type = company_type(words, ENTITY_TYPES.get(ent.label_))
        return Argument(head, norm, text, entity_type or UNKNOWN_TYPE, entity_type is not None)
    if head.lemma_.lower() in TIME_NOUNS or head.lower_ in TIME_NOUNS:
        return None
    if head.pos_ == "PROPN" and head.text[:1].isupper() and head.lower_ not in _NOT_NAMES and head.i > head.sent.start \
            and not head.is_upper:
        # A proper name the recogniser missed ("Gol Linhas Aereas", "Ridenour"): a named argument of unknown type,
        # unless its form says company. Sentence-initial capitals are left out: they may be any word.
        names = [c for c in head.lefts if c.dep_ == "compound" and c.pos_ == "PROPN"] + [head]
        words = [t.text for t in names]
        norm = _join_norm(normalise(words), head.doc[names[0].i:head.i + 1].text)
        if norm and not _is_amount(words):
            entity_type = company_type(words, None)
            return Argument(head, norm, " ".join(words), entity_type or UNKNOWN_TYPE, True)
    if head.lemma_.lower() in CURRENCY_WORDS and any(c.like_num or c.dep_ in {"nummod", "quantmod"} for c in head.lefts):
        return None
    # A common noun keeps its compound modifiers; its head is lemmatised so "headaches" meets "headache".
    compounds = [c for c in head.lefts if c.dep_ == "compound"]
    words = [c.text for c in compounds] + [head.lemma_ if head.pos_ == "NOUN" else head.text]
    norm = normalise(words)
    if not norm or _is_amount(words):
        return None
    surface = " ".join([c.text for c in compounds] + [head.text])
    return Argument(head, norm, surface, UNKNOWN_TYPE, False)
