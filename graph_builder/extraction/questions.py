"""Reading a question the small parser gets wrong: its parse repaired, its names stood in for by names it reads well.

A question is one short sentence, often a headline's words ("UBS fined the regulators.", "Standard & Poor's
downgraded France."), where the small parser takes an unfamiliar name for an adverb or a possessive, a verb for a
noun or an adjective, and no proposition comes out. A question always states something, so a parse with no reading
is wrong, and the question is read again:
- with its parse repaired (`REPAIRS`, tried in order until one gives a reading): a root noun with a subject read
  as the verb ("Dish bid for Sprint.", `bid` tagged a noun); a participle the parser hung on the object as an
  adjective read as the verb ("The Interior Department loosened safety rules."); a past-tense verb the parser hung
  on the root noun as its clause read as the verb ("Ford named Fields to succeed Mulally as CEO.", also where that
  parse gave side readings: `ROOT_REPAIRS`); a small clause read as object and
  post ("Lilly made Rice its chief executive."); the main clause alone, without a time clause the parser tangled
  into it ("Joyce quit KCG days after the takeover closed.");
- with each name the recogniser finds replaced by a common first name (`Alice`, `Bob`, `Carol`), read and repaired
  the same way, and the names put back with the types the recogniser gave them. A capitalised word the recogniser
  missed at the head of the question ("Dish bid for Sprint.") is stood in for too, as a name of unknown type.
A question written as a headline that gives nothing is read as the prose it stands for ("Yahoo fires Mayer" -> "Yahoo
fired Mayer.": `headlines.headline_as_prose`), with every step above.
A common noun a name owns ("Portugal's rating") or comes before ("Tepco shareholders"), or a demonym's country
("Chinese authorities": China), also gives a reading with the name in its place (`read_question`).
A description of a participant (an apposition, a post written before a name: `Relation.described`) is presupposed,
not asked: its reading is kept only where the question gives no other.
Questions only: the corpus is read as the parser reads it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from countryinfo import CountryInfo
from spacy.language import Language
from spacy.tokens import Doc, Token

from graph_builder.extraction import DEFAULT_MODEL, _parsing, doc_triples, relation_dict
from graph_builder.extraction.arguments import ENTITY_TYPES, UNKNOWN_TYPE, company_type, normalise
from graph_builder.headlines import headline_as_prose

STAND_INS = ("Alice", "Bob", "Carol")
MEMBERSHIP_PREDICATE = "(one.of.1,one.of.2)"  # "X is one of the N": a class, not a participant a name stands for
# Subordinators of a time or cause clause after the main one ("... days after the takeover closed").
CLAUSE_MARKS = frozenset({"after", "before", "when", "while", "as", "because", "since", "until", "once"})
# Words that measure the time between the main clause and a time clause ("days after", "shortly before").
TIME_WORDS = frozenset({"minute", "hour", "day", "week", "month", "year", "shortly", "soon", "just", "only", "moment",
                        "a", "few", "several"})
Repair = Callable[[Language, Doc], Doc | None]


@dataclass(frozen=True)
class _Name:
    start: int
    end: int
    norm: str
    text: str
    type: str


def read_question(text: str, model: str = DEFAULT_MODEL) -> list[dict[str, object]]:
    """Every reading of one question, as `extract_text` gives them: those of `extract_question`, then a copy of each
    with a common noun a name owns read as the name ("Fitch cut Portugal's rating" -> Fitch / Portugal), none where
    the owner is that reading's other side already. The question is parsed once (twice where names are stood in)."""
    found, owners = _read(text, model, with_owners=True)
    return found + _owner_readings(found, owners)


def extract_question(text: str, model: str = DEFAULT_MODEL) -> list[dict[str, object]]:
    """The propositions of one question, as `extract_text` gives them; when it gives none, those of its repaired
    parse or of the question with its names stood in for (see the module), the names put back."""
    return _read(text, model, with_owners=False)[0]


def _read(text: str, model: str, with_owners: bool) -> tuple[list[dict[str, object]], dict[str, _Name]]:
    """The readings of the question (`_read_parsed`); where it gives none, those of the news prose a headline stands
    for (`headline_as_prose`: "Yahoo fires Mayer" is read as "Yahoo fired Mayer.")."""
    with _parsing(model) as nlp:
        found, owners = _read_parsed(nlp, text, with_owners)
        if found:
            return found, owners
        prose = headline_as_prose(nlp(detached_final_stop(nlp, text)))
        return _read_parsed(nlp, prose, with_owners) if prose is not None else (found, owners)


def _read_parsed(nlp: Language, text: str, with_owners: bool) -> tuple[list[dict[str, object]], dict[str, _Name]]:
    """The readings as written (where the root is a noun, those of its repaired parse first); else those with the
    names stood in for (the first repair only); else those of the repaired parse as written; else of the repaired
    parse with the names stood in for. And the names that own a noun, `with_owners`."""
    text = detached_final_stop(nlp, text)
    doc = nlp(text)
    owners = _owners(doc) if with_owners else {}
    found = _with_unrecognised_names(_relations(doc, True), _relations(doc, False))
    if found and _root_is_noun(doc):
        found = _repaired(nlp, doc, ROOT_REPAIRS) or found  # no verb at the root: its readings are side ones
    asserted = [t for t in found if not t["described"]]
    if asserted:
        return _without_marks(asserted), owners
    described, found = found, []  # a description alone ("Apple's chief executive Tim Cook resigned"): read again
    names = _stand_in_names(doc)
    masked = _masked(text, names)
    masked_doc = nlp(masked) if names else None
    if masked_doc is not None:
        found = _put_back(_relations(masked_doc, False) or _repaired(nlp, masked_doc, REPAIRS[:1]), names)
    found = found or _repaired(nlp, doc, REPAIRS)
    if not found and masked_doc is not None:
        found = _put_back(_repaired(nlp, masked_doc, REPAIRS[1:]), names)  # the repairs not tried above
    return _without_marks([t for t in found if not t["described"]] or described or found), owners


def detached_final_stop(nlp: Language, text: str) -> str:
    """The question with its closing full stop apart from its last word, where the tokenizer left it on a word it may
    read as an abbreviation ("downgraded by S&P.", "against BofA."), which then names `s&p.`: a question ends with a
    name far more often than news does. A last word with a stop inside ("U.S.") keeps it."""
    tokens = nlp.tokenizer(text)
    last = tokens[-1].text if len(tokens) else ""
    if len(last) < 2 or not last.endswith(".") or "." in last[:-1]:
        return text
    end = tokens[-1].idx + len(last) - 1
    return f"{text[:end]} {text[end:]}"


def _stand_in_names(doc: Doc) -> list[_Name]:
    """The names to stand in for, in order, at most one per stand-in: the recogniser's, and the capitalised words
    the question begins with where it found none there."""
    names = [_Name(e.start_char, e.end_char, normalise([t.text for t in e]), e.text,
                   company_type([t.text for t in e], ENTITY_TYPES[e.label_]) or ENTITY_TYPES[e.label_])
             for e in doc.ents if e.label_ in ENTITY_TYPES]
    first = _unrecognised_first_name(doc)
    if first is not None and all(n.start > first.start for n in names):
        names.insert(0, first)
    return names[:len(STAND_INS)]


def _masked(text: str, names: list[_Name]) -> str:
    pieces, last = [], 0
    for name, stand_in in zip(names, STAND_INS):
        pieces += [text[last:name.start], stand_in]
        last = name.end
    return "".join(pieces) + text[last:]


def _put_back(found: list[dict[str, object]], names: list[_Name]) -> list[dict[str, object]]:
    """Readings of the question with its names stood in for, each name put back with its type; none that joins a
    name to itself."""
    back = {stand_in.lower(): name for name, stand_in in zip(names, STAND_INS)}
    out = []
    for t in found:
        for side in ("subject", "object"):
            name = back.get(str(t[side]))
            if name is not None:
                t[side], t[f"{side}_type"], t[f"{side}_text"] = name.norm, name.type, name.text
        if t["subject"] != t["object"]:
            out.append(t)
    return out


def _with_unrecognised_names(named: list[dict[str, object]],
                             every: list[dict[str, object]]) -> list[dict[str, object]]:
    """The readings with a recognised name, then those a name the recogniser missed gives, written with a capital
    ("Avon is pulling out of Ireland and cutting 400 jobs": Avon / Ireland, and Avon / jobs, which the news
    extraction drops as it names no entity); every reading where none has a recognised name."""
    if not named:
        return every
    seen = {(r["subject"], r["predicate"], r["object"]) for r in named}
    return named + [r for r in every if (r["subject"], r["predicate"], r["object"]) not in seen
                    and any(str(r[f"{side}_text"])[:1].isupper() for side in ("subject", "object"))]


def _without_marks(found: list[dict[str, object]]) -> list[dict[str, object]]:
    """The readings as `extract_text` gives them, without the `described` mark `_relations` adds."""
    return [{k: v for k, v in t.items() if k != "described"} for t in found]


def _relations(doc: Doc, require_entity: bool) -> list[dict[str, object]]:
    """The readings of a parse, each marked `described` where it comes from a description of a participant (an
    apposition, a post before a name), which a question presupposes rather than asks: "Barclays boss Diamond was
    arrested" asks whether Diamond was arrested, not whether he is Barclays' boss."""
    return [{**relation_dict(rel), "described": rel.described}
            for s in doc_triples(doc, require_entity) for rel in s.relations]


def _repaired(nlp: Language, doc: Doc, repairs: tuple[Repair, ...]) -> list[dict[str, object]]:
    """The readings of the first of `repairs` that applies to the parse and gives any, or none. A repair changes
    the parse in place, so a later one sees the earlier ones' changes."""
    for repair in repairs:
        read = repair(nlp, doc)
        if read is None:
            continue
        found = _relations(read, True) or _relations(read, False)
        if found:
            return found
    return []


def _has_verb(doc: Doc) -> bool:
    return any(t.pos_ in {"VERB", "AUX"} and t.dep_ != "amod" for t in doc)


def _root_is_noun(doc: Doc) -> bool:
    root = _root(doc)
    return root is not None and root.pos_ in {"NOUN", "PROPN"}


def _make_verb(token: Token) -> None:
    token.head, token.dep_ = token, "ROOT"
    token.pos_, token.tag_ = "VERB", "VBD"


def _root(doc: Doc) -> Token | None:
    roots = [t for t in doc if t.dep_ == "ROOT"]
    return roots[0] if len(roots) == 1 else None


def _noun_root_as_verb(nlp: Language, doc: Doc) -> Doc | None:
    """A question with no verb whose root has a subject: the root is the verb ("Alice bid for Bob.", `bid` tagged a
    noun)."""
    root = _root(doc)
    if root is None or _has_verb(doc) or root.pos_ != "NOUN" or not any(c.dep_ == "nsubj" for c in root.children):
        return None
    root.pos_, root.tag_ = "VERB", "VBD"
    return doc


def _participle_as_verb(nlp: Language, doc: Doc) -> Doc | None:
    """A question with no verb, where a participle right after a noun phrase modifies a noun: the participle is the
    verb, the phrase before it its subject and the noun its object ("The Interior Department loosened safety
    rules.", "France's finance minister briefed bond investors.", each parsed as noun phrases)."""
    root = _root(doc)
    if root is None or _has_verb(doc):
        return None
    for verb in doc:
        if verb.dep_ != "amod" or verb.tag_ not in {"VBD", "VBN"} or verb.i == 0 or verb.head.i < verb.i:
            continue
        obj = verb.head
        subject = next((c for c in verb.children if c.dep_ == "nsubj"), None) or _phrase_head(doc[verb.i - 1])
        if subject.pos_ not in {"NOUN", "PROPN"}:
            continue
        _make_verb(verb)
        subject.head, subject.dep_ = verb, "nsubj"
        obj.head, obj.dep_ = verb, "dobj"
        if root.i not in {subject.i, obj.i}:
            root.head, root.dep_ = verb, "dep"
        return doc
    return None


def _phrase_head(last: Token) -> Token:
    """The head of the phrase that ends with `last`: its highest ancestor before the next word."""
    head = last
    while head.head.i != head.i and head.head.i <= last.i:
        head = head.head
    return head


def _clause_on_subject(nlp: Language, doc: Doc) -> Doc | None:
    """A root noun with a past-tense verb hung on it as a clause right after it: the verb is the root and the noun its
    subject ("Ford named Fields to succeed Mulally as CEO.", parsed as the noun "Ford" with "named Fields ..." as its
    clause)."""
    root = _root(doc)
    if root is None or not _root_is_noun(doc):
        return None
    verb = next((c for c in root.rights if c.dep_ == "acl" and c.tag_ == "VBD" and c.i == root.i + 1), None)
    if verb is None:
        return None
    _make_verb(verb)
    root.head, root.dep_ = verb, "nsubj"
    for child in list(verb.children):
        if child.dep_ == "oprd" and child.pos_ == "PROPN":
            child.dep_ = "dobj"  # "named Fields to succeed ...": the parser's predicate noun is the object
    for mark in [c for c in root.children if c.dep_ == "punct"]:
        mark.head = verb
    return doc


def _small_clause(nlp: Language, doc: Doc) -> Doc | None:
    """A verb's clause of a subject and a noun is its object and what the object is made ("Lilly made Rice its
    chief executive.", parsed as "Rice [is] its chief executive")."""
    for clause in doc:
        subject = next((c for c in clause.children if c.dep_ == "nsubj" and c.i < clause.i), None)
        if clause.dep_ != "ccomp" or clause.pos_ != "NOUN" or subject is None or clause.head.pos_ != "VERB":
            continue
        subject.head, subject.dep_ = clause.head, "dobj"
        clause.dep_ = "oprd"
        return doc
    return None


def _main_clause(nlp: Language, doc: Doc) -> Doc | None:
    """The question without a time or cause clause after its main verb, read again on its own ("Joyce quit KCG days
    after the Getco takeover closed.": the parser hung KCG on "days"). Cut at the clause's subordinator or at a noun
    that measures it ("days", "shortly")."""
    root = _root(doc)
    if root is None:
        return None
    for clause in root.rights:
        mark = next((c for c in clause.children if c.dep_ == "mark" and c.lower_ in CLAUSE_MARKS), None)
        if clause.dep_ != "advcl" or mark is None:
            continue
        cut = min([mark.i, *(c.i for c in clause.children if c.dep_ in {"npadvmod", "advmod"} and c.i < mark.i)])
        while cut > root.i + 1 and (doc[cut - 1].lemma_.lower() in TIME_WORDS or doc[cut - 1].like_num):
            cut -= 1  # "... days after", "... two weeks before", "... shortly after"
        if cut <= root.i + 1:
            return None
        return nlp(doc[:cut].text.rstrip(" ,;") + ".")
    return None


# How a question with no reading is read again, in order: each takes the pipeline and the parse, changes the parse
# in place or parses a new text, and returns the doc to read, or None where it does not apply.
# Those for a parse whose root is a noun are tried even where it gave readings: they are side readings.
ROOT_REPAIRS: tuple[Repair, ...] = (_noun_root_as_verb, _participle_as_verb, _clause_on_subject)
REPAIRS: tuple[Repair, ...] = (*ROOT_REPAIRS, _small_clause, _main_clause)


def _owners(doc: Doc) -> dict[str, _Name]:
    """The names that own a common noun in the question, by the noun's lemma ("Portugal's rating": rating ->
    Portugal; "Tepco shareholders": shareholder -> Tepco), typed by the recogniser; and the country of a demonym
    before it ("Chinese authorities": authority -> China), a location."""
    owners: dict[str, _Name] = {}
    for token in doc:
        country = countries_by_demonym().get(token.text.lower()) if token.dep_ == "amod" else None
        if country is not None and token.head.pos_ == "NOUN":  # "Chinese authorities": China
            owners[token.head.lemma_.lower()] = _Name(token.idx, token.idx + len(token.text),
                                                      normalise(country.split()), token.text, "location")
            continue
        if token.dep_ not in {"poss", "compound"} or token.pos_ != "PROPN" or token.head.pos_ != "NOUN":
            continue
        span = next((e for e in doc.ents if e.start <= token.i < e.end), None)
        if token.dep_ == "compound" and (span is None or span.end != token.head.i):
            continue  # a name before the noun it modifies ("Tepco shareholders"), not inside another name
        words = [t for t in (span if span is not None else token.subtree) if t.dep_ != "case" and t.tag_ != "POS"]
        if not words:
            continue
        label = span.label_ if span is not None else ""
        type_ = ENTITY_TYPES.get(label, UNKNOWN_TYPE)
        type_ = company_type([t.text for t in words], type_) or type_
        owners[token.head.lemma_.lower()] = _Name(words[0].idx, words[-1].idx + len(words[-1].text),
                                                  normalise([t.text for t in words]),
                                                  " ".join(t.text for t in words), type_)
    return owners


@functools.cache
def countries_by_demonym() -> dict[str, str]:
    """Each demonym's country, lower-cased demonym first ("chinese": "China"); where several countries share one
    ("Chinese": China, Hong Kong, Macau), the most populous."""
    best: dict[str, tuple[int, str]] = {}
    for info in CountryInfo.all().values():
        demonym, name = str(info.get("demonym") or "").lower(), info.get("name")
        population = int(info.get("population") or 0)
        if demonym and name and population > best.get(demonym, (-1, ""))[0]:
            best[demonym] = (population, name)
    return {demonym: name for demonym, (_, name) in best.items()}


def _owner_readings(found: list[dict[str, object]], owners: dict[str, _Name]) -> list[dict[str, object]]:
    """A copy of each reading with an argument of unknown type whose head a name owns, the owner in its place; not of
    a class membership ("is one of Apple's executives": Cook is not one of Apple)."""
    out = []
    for t in found:
        if str(t["predicate"]).endswith(MEMBERSHIP_PREDICATE):
            continue
        for side, other in (("subject", "object"), ("object", "subject")):
            head = str(t[side]).split()[-1] if t[side] else ""
            owner = owners.get(head)
            if owner is None or owner.norm in (t[other], t[side]) or str(t[f"{side}_type"]) != UNKNOWN_TYPE:
                continue
            copy = dict(t)
            copy[side], copy[f"{side}_type"], copy[f"{side}_text"] = owner.norm, owner.type, owner.text
            out.append(copy)
    return out


def _unrecognised_first_name(doc: Doc) -> _Name | None:
    """The capitalised words a question begins with, where the recogniser found no entity there and they are no
    determiner or pronoun ("Dish bid for Sprint."): a name of unknown type."""
    words = []
    for token in doc:
        if not token.text[:1].isupper() or token.ent_type_ or token.is_stop or token.pos_ in {"DET", "PRON", "PUNCT"}:
            break
        words.append(token)
    if not words:
        return None
    return _Name(words[0].idx, words[-1].idx + len(words[-1].text), normalise([t.text for t in words]),
                 doc.text[words[0].idx:words[-1].idx + len(words[-1].text)], UNKNOWN_TYPE)
