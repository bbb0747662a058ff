"""Reading a question the small parser gets wrong: its names stood in for by names it reads well.

A question is one short sentence, often a headline's words ("UBS fined the regulators.", "Standard & Poor's
downgraded France."), where the small parser takes an unfamiliar name for an adverb or a possessive and no
proposition comes out. When the question as written gives none, each name the recogniser finds is replaced by a
common first name (`Alice`, `Bob`, `Carol`), the sentence is read again, and the names are put back with the
types the recogniser gave them. A capitalised word the recogniser missed at the head of the question ("Dish bid
for Sprint.") is stood in for too, as a name of unknown type. And where the question has no verb but its root has
a subject ("Alice bid for Bob.", where the tagger took the past tense for a noun), the root is read as the verb.
"""

from __future__ import annotations

from dataclasses import dataclass

from spacy.tokens import Doc

from graph_builder.extraction import DEFAULT_MODEL, _parsing, doc_triples, extract_text, relation_dict
from graph_builder.extraction.arguments import ENTITY_TYPES, UNKNOWN_TYPE, company_type, normalise

STAND_INS = ("Alice", "Bob", "Carol")


@dataclass(frozen=True)
class _Name:
    start: int
    end: int
    norm: str
    text: str
    type: str


def extract_question(text: str, model: str = DEFAULT_MODEL) -> list[dict[str, object]]:
    """The propositions of one question, as `extract_text` gives them; when it gives none, those of the question
    with its names stood in for (see the module), the names put back."""
    found = extract_text(text, model) or extract_text(text, model, require_entity=False)
    if found:
        return found
    with _parsing(model) as nlp:
        doc = nlp(text)
        names = [_Name(e.start_char, e.end_char, normalise([t.text for t in e]), e.text,
                       company_type([t.text for t in e], ENTITY_TYPES[e.label_]) or ENTITY_TYPES[e.label_])
                 for e in doc.ents if e.label_ in ENTITY_TYPES]
        first = _unrecognised_first_name(doc)
        if first is not None and all(n.start > first.start for n in names):
            names.insert(0, first)
        names = names[:len(STAND_INS)]
    if not names:
        return []
    pieces, last = [], 0
    for name, stand_in in zip(names, STAND_INS):
        pieces += [text[last:name.start], stand_in]
        last = name.end
    masked = "".join(pieces) + text[last:]
    back = {stand_in.lower(): name for name, stand_in in zip(names, STAND_INS)}
    out = []
    for t in _read_masked(masked, model):
        t = dict(t)
        for side in ("subject", "object"):
            name = back.get(str(t[side]))
            if name is not None:
                t[side], t[f"{side}_type"], t[f"{side}_text"] = name.norm, name.type, name.text
        if t["subject"] != t["object"]:
            out.append(t)
    return out


def possessor_readings(text: str, found: list[dict[str, object]],
                       model: str = DEFAULT_MODEL) -> list[dict[str, object]]:
    """Readings of a question with a common noun that a name owns ("Portugal's rating", "Greece's reform progress")
    read as that name: the news often says the act of the owner ("Fitch warned Portugal"). One copy of each reading
    with such an argument, the owner in its place; none where the owner is an argument of that reading already."""
    with _parsing(model) as nlp:
        doc = nlp(text)
        owners: dict[str, _Name] = {}
        for token in doc:
            if token.dep_ != "poss" or token.pos_ != "PROPN" or token.head.pos_ != "NOUN":
                continue
            span = next((e for e in doc.ents if e.start <= token.i < e.end), None)
            words = [t for t in (span if span is not None else token.subtree) if t.dep_ != "case" and t.tag_ != "POS"]
            if not words:
                continue
            label = span.label_ if span is not None else ""
            type_ = ENTITY_TYPES.get(label, UNKNOWN_TYPE)
            type_ = company_type([t.text for t in words], type_) or type_
            owners[token.head.lemma_.lower()] = _Name(words[0].idx, words[-1].idx + len(words[-1].text),
                                                      normalise([t.text for t in words]),
                                                      " ".join(t.text for t in words), type_)
    out = []
    for t in found:
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


def _read_masked(text: str, model: str) -> list[dict[str, object]]:
    """The propositions of a question with its names stood in for, as `extract_text` reads them without requiring an
    entity; where that gives none and the question has no verb but its root has a subject, the same parse again with
    the root read as a past-tense verb: "Alice bid for Bob." (`bid` tagged a noun)."""
    with _parsing(model) as nlp:
        doc = nlp(text)
        found = [relation_dict(rel) for s in doc_triples(doc, False) for rel in s.relations]
        roots = [t for t in doc if t.dep_ == "ROOT"]
        if found or len(roots) != 1 or any(t.pos_ in {"VERB", "AUX"} for t in doc):
            return found
        root = roots[0]
        if root.pos_ != "NOUN" or not any(c.dep_ == "nsubj" for c in root.children):
            return []
        root.pos_, root.tag_ = "VERB", "VBD"
        return [relation_dict(rel) for s in doc_triples(doc, False) for rel in s.relations]
