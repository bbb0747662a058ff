"""Reading a question the small parser gets wrong: its names stood in for by names it reads well.

A question is one short sentence, often a headline's words ("UBS fined the regulators.", "Standard & Poor's
downgraded France."), where the small parser takes an unfamiliar name for an adverb or a possessive and no
proposition comes out. When the question as written gives none, each name the recogniser finds is replaced by a
common first name (`Alice`, `Bob`, `Carol`), the sentence is read again, and the names are put back with the
types the recogniser gave them.
"""

from __future__ import annotations

from dataclasses import dataclass

from graph_builder.extraction import DEFAULT_MODEL, _parsing, extract_text
from graph_builder.extraction.arguments import ENTITY_TYPES, company_type, normalise

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
                 for e in doc.ents if e.label_ in ENTITY_TYPES][:len(STAND_INS)]
    if not names:
        return []
    pieces, last = [], 0
    for name, stand_in in zip(names, STAND_INS):
        pieces += [text[last:name.start], stand_in]
        last = name.end
    masked = "".join(pieces) + text[last:]
    back = {stand_in.lower(): name for name, stand_in in zip(names, STAND_INS)}
    out = []
    for t in extract_text(masked, model, require_entity=False):
        t = dict(t)
        for side in ("subject", "object"):
            name = back.get(str(t[side]))
            if name is not None:
                t[side], t[f"{side}_type"], t[f"{side}_text"] = name.norm, name.type, name.text
        if t["subject"] != t["object"]:
            out.append(t)
    return out
