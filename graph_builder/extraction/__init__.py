"""Typed binary relation extraction with spaCy: text in, normalised typed triples out."""

from __future__ import annotations

import ctypes
import gc
import logging
import threading
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from contextlib import contextmanager
from functools import lru_cache

from spacy.language import Language
from spacy.pipeline import AttributeRuler, Lemmatizer
from spacy.tokens import Doc, Span
from threadpoolctl import threadpool_limits

from graph_builder.extraction.arguments import ARGUMENT_MEMO, SKIPPED_ENTITY_LABELS
from graph_builder.extraction.attributes import memo_ruler
from graph_builder.extraction.inference_ops import use_inference_ops
from graph_builder.extraction.lemmas import add_lemma_fix, memo_lemmatizer
from graph_builder.extraction.parsers import (  # noqa: F401 (the registry is re-exported here)
    DEFAULT_PARSER,
    EXTRACTOR_VERSION,
    PARSERS,
    ParserModel,
    ParserName,
    load_spacy,
    parser_model,
)
from graph_builder.extraction.relations import Relation, frame_relations, sentence_frames
from graph_builder.extraction.sentences import article_sentences

log = logging.getLogger(__name__)

DEFAULT_MODEL: str = DEFAULT_PARSER.value  # the parser name every `model` parameter below defaults to
MAX_SENTENCE_CHARS = 2000


@dataclass(frozen=True)
class PlainArgument:
    """An argument as plain strings (no spaCy objects), safe to cache and to send between processes."""

    norm: str
    text: str
    type: str
    is_entity: bool


@dataclass(frozen=True)
class PlainRelation:
    """A relation as plain strings: what a triple row needs."""

    predicate: str
    predicate_text: str
    negated: bool
    subj: PlainArgument
    obj: PlainArgument
    described: bool = False  # `Relation.described`


@dataclass(frozen=True)
class SentenceTriples:
    """The relations of one sentence, with its index in the document and its text."""

    index: int
    text: str
    relations: Sequence[Relation | PlainRelation]
    tokens: int = 0


def load_pipeline(model: str = DEFAULT_MODEL) -> Language:
    """Load (once per process) the spaCy pipeline of a parser name (`sm`, `md`: parsers.PARSERS), or raise
    InputError for an unknown name and ModelMissingError naming the pip package when it is not installed."""
    return _load_pipeline(parser_model(model))  # one cache key per parser, however the caller spells the name


@lru_cache(maxsize=4)
def _load_pipeline(spec: ParserModel) -> Language:
    nlp = add_lemma_fix(load_spacy(spec))
    use_inference_ops(nlp)
    _LOADED_LEXEMES[spec] = len(nlp.vocab)
    return nlp


# spaCy's memory zone frees the strings and lexemes a parse adds, but the vocabulary's table of lexemes keeps
# growing by doubling with every new word ever seen (about 40 bytes a word; its counter, len(vocab), never goes
# down either). A service that parses words it has never seen therefore loads its pipeline afresh (about a
# second) once this many words have passed through it since it was loaded.
VOCAB_RENEW_AFTER = 250_000
_LOADED_LEXEMES: dict[ParserModel, int] = {}


def _renew_if_grown(model: str) -> None:
    """Drop the loaded pipelines once `model`'s vocabulary has seen VOCAB_RENEW_AFTER new words, and hand the
    freed memory back to the system; the next load_pipeline loads them again. Call with _ZONE_LOCK held and no
    reference to the pipeline kept, or it cannot be freed."""
    spec = parser_model(model)
    grown = len(_load_pipeline(spec).vocab) - _LOADED_LEXEMES.get(spec, 0) > VOCAB_RENEW_AFTER
    if grown:
        _load_pipeline.cache_clear()
        gc.collect()
        _release_freed_memory()


def _release_freed_memory() -> None:
    """Return the allocator's free pages to the system (glibc's malloc_trim; elsewhere nothing): a pipeline
    freed among live objects otherwise leaves its pages with the process."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def doc_triples(doc: Doc, require_entity: bool = True) -> list[SentenceTriples]:
    """Return the relations of every sentence of a parsed document, deduplicated within a sentence.

    `require_entity=False` also keeps relations between two common nouns (used to parse a hypothesis
    whose arguments the user already chose).
    """
    out = []
    doc.user_data[ARGUMENT_MEMO] = {}
    try:
        _read_sentences(doc, require_entity, out)
    finally:
        del doc.user_data[ARGUMENT_MEMO]
    return out


def _read_sentences(doc: Doc, require_entity: bool, out: list[SentenceTriples]) -> None:
    for index, sent in enumerate(doc.sents):
        text = sent.text  # built from the tokens each time it is read
        if len(text) > MAX_SENTENCE_CHARS:
            continue
        seen: set[tuple[str, str, str]] = set()
        relations = []
        for frame in sentence_frames(sent):
            for rel in frame_relations(frame, require_entity):
                key = (rel.subj.norm, rel.predicate, rel.obj.norm)
                if key not in seen:
                    seen.add(key)
                    relations.append(rel)
        out.append(SentenceTriples(index, text.strip(), relations))


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


_ZONE_LOCK = threading.Lock()
# spaCy's rule lemmatizer memoises every (word, tag, morphology) it meets in a dict that a memory zone does not
# scope: a service parsing words it has never seen would grow it without end. Past this many entries it starts over.
LEMMA_CACHE_LIMIT = 20_000


def _bound_lemma_cache(nlp: Language) -> None:
    """Empty the lemmatizer's memo once it holds LEMMA_CACHE_LIMIT entries (it only saves time)."""
    if "lemmatizer" in nlp.pipe_names:
        cache = getattr(nlp.get_pipe("lemmatizer"), "cache", None)
        if isinstance(cache, dict) and len(cache) >= LEMMA_CACHE_LIMIT:
            cache.clear()


@contextmanager
def _parsing(model: str) -> Iterator[Language]:
    """One parse at a time in a memory zone of the pipeline, loaded afresh first if it has seen too many new words.

    A long-running service parses text it has never seen: spaCy's memory zone frees the strings a parse adds to
    the vocabulary when it ends (results must leave it as plain Python strings). Zones share one vocabulary, so
    one parse at a time enters one."""
    with _ZONE_LOCK:
        _renew_if_grown(model)
        nlp = load_pipeline(model)
        with nlp.memory_zone():
            yield nlp
            _bound_lemma_cache(nlp)


def noun_lemma(word: str, model: str = DEFAULT_MODEL) -> str:
    """The lemma the extractor gives `word` as a common noun ("tankers" -> "tanker")."""
    with _parsing(model) as nlp:
        doc = Doc(nlp.vocab, words=[word])
        doc[0].pos_ = "NOUN"
        lemmas = nlp.get_pipe("lemmatizer").rule_lemmatize(doc[0])  # type: ignore[attr-defined]
        return str(lemmas[0]).lower() if lemmas else word


def extract_text(text: str, model: str = DEFAULT_MODEL, require_entity: bool = True) -> list[dict[str, object]]:
    """Parse one text and return its triples as plain dicts (subject, predicate, object, types, negated)."""
    with _parsing(model) as nlp:
        return [relation_dict(rel) for s in doc_triples(nlp(text), require_entity) for rel in s.relations]


def pipe_docs(texts: Iterable[str], model: str = DEFAULT_MODEL, batch_size: int = 32) -> Iterator[Doc]:
    """Parse many texts with spaCy's batched `pipe` in this process."""
    return load_pipeline(model).pipe(texts, batch_size=batch_size)


def plain(rel: Relation) -> PlainRelation:
    """Copy a relation into plain strings, dropping its spaCy tokens."""
    def arg(a: object) -> PlainArgument:
        return PlainArgument(a.norm, a.text, a.type, a.is_entity)  # type: ignore[attr-defined]
    return PlainRelation(rel.predicate, rel.predicate_text, rel.negated, arg(rel.subj), arg(rel.obj), rel.described)


@dataclass
class ParseStats:
    """What `SentenceParser` did: sentences and tokens seen, and how each sentence was handled."""

    sentences: int = 0
    tokens: int = 0
    parsed: int = 0
    cached: int = 0
    no_name: int = 0
    no_entity: int = 0
    too_long: int = 0
    article_names: int = 0  # sentences where a name the article holds was marked where the recogniser missed it

    def add(self, other: ParseStats) -> None:
        """Add another run's counts to these."""
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


# Entity labels whose names an article carries to its other sentences (`SentenceParser`): the recogniser reads a
# company or a person in one sentence and misses it in another ("Barclays has launched a consultation ...").
ARTICLE_NAME_LABELS = frozenset({"ORG", "PERSON"})
MIN_ARTICLE_NAME = 3  # characters of such a name at least ("Man", "Pru")

Mark = tuple[int, int, str, tuple[str, ...]]  # an entity of a sentence: first token, the token after, label, words
Key = tuple[str, tuple[Mark, ...]]  # a sentence and its entities: what its triples depend on


@dataclass
class SentenceParser:
    """Parse articles sentence by sentence, doing the expensive work only where a triple can come out.

    A triple needs a named-entity argument, so: split sentences by rule; skip a sentence with no capitalised word
    (it cannot hold a name); run the entity recogniser (which has its own token vectors) on the rest, once per
    distinct sentence (story updates repeat sentences: its entities are remembered); mark in each sentence the
    companies and people the recogniser found in other sentences of its article where it missed them there
    (ARTICLE_NAME_LABELS; whole tokens, not overlapping an entity); and run the tagger, parser and lemmatiser only
    on sentences with an entity that can be an argument, once per distinct sentence and entities. The attribute
    ruler runs from a memo of its matches (`attributes.MemoAttributeRuler`, the same attributes).
    """

    nlp: Language
    batch_size: int = 128
    cache_size: int = 100_000
    stats: ParseStats = field(default_factory=ParseStats)
    _entities: dict[str, tuple[Mark, ...] | None] = field(default_factory=dict)  # None: no capitalised word
    _cache: dict[Key, tuple[int, tuple[PlainRelation, ...]]] = field(default_factory=dict)

    def _may_name(self, doc: Doc) -> bool:
        stop = self.nlp.Defaults.stop_words
        first = doc[0] if len(doc) else None
        if first is not None and first.text[:1].isupper() and first.lower_ not in stop:
            return True
        return any(t.text[:1].isupper() for t in doc[1:])

    def parse(self, texts: Sequence[str]) -> list[list[SentenceTriples]]:
        """Return, for each cleaned article text (one paragraph per line), its sentences with their triples."""
        # One BLAS thread for the pipeline's matrix products (InferenceOps): extraction runs a process per core,
        # and OpenBLAS' own threads would wait on each other's cores.
        with threadpool_limits(1, user_api="blas"):
            return self._parse(texts)

    def _parse(self, texts: Sequence[str]) -> list[list[SentenceTriples]]:
        articles = [article_sentences(t) for t in texts]
        marks, docs = self._recognise([s for sentences in articles for s in sentences if len(s) <= MAX_SENTENCE_CHARS])
        keys: dict[tuple[int, int], Key | None] = {}
        for a, sentences in enumerate(articles):
            names = _article_names(marks.get(s) or () for s in sentences)
            for i, sentence in enumerate(sentences):
                self.stats.sentences += 1
                if len(sentence) > MAX_SENTENCE_CHARS:
                    self.stats.too_long += 1
                    keys[a, i] = None
                    continue
                found = marks.get(sentence)
                added = () if found is None or not names else self._article_marks(sentence, docs, names, found)
                self.stats.article_names += bool(added)
                keys[a, i] = (sentence, tuple(sorted((*(found or ()), *added))))
        # What an earlier batch read, taken before this one's reading may clear the memo.
        known = {k: self._cache[k] for k in keys.values() if k is not None and k in self._cache}
        todo = {k for k in keys.values() if k is not None and k not in known}
        self.stats.cached += sum(1 for k in keys.values() if k is not None) - len(todo)
        results = {**self._read(todo, marks, docs), **known}
        out: list[list[SentenceTriples]] = []
        for a, sentences in enumerate(articles):
            rows = []
            for i, sentence in enumerate(sentences):
                key = keys[a, i]
                tokens, relations = (len(sentence.split()), ()) if key is None else results[key]
                self.stats.tokens += tokens
                rows.append(SentenceTriples(i, sentence, list(relations), tokens))
            out.append(rows)
        return out

    def _article_marks(self, sentence: str, docs: dict[str, Doc], names: dict[tuple[str, ...], str],
                       found: tuple[Mark, ...]) -> tuple[Mark, ...]:
        """`_marks_of` the sentence's words; a sentence whose text holds no name's first word is not tokenised."""
        if not any(name[0] in sentence for name in names):
            return ()
        doc = docs[sentence] if sentence in docs else self.nlp.tokenizer(sentence)
        return _marks_of([t.text for t in doc], names, found)

    def _recognise(self, sentences: list[str]) -> tuple[dict[str, tuple[Mark, ...] | None], dict[str, Doc]]:
        """Each distinct sentence's entities (None: no capitalised word, never read), the recogniser run once per
        sentence not seen before; and the docs it read, for the parser to go on with."""
        marks: dict[str, tuple[Mark, ...] | None] = {}
        fresh: list[Doc] = []
        texts: list[str] = []
        unnamed: dict[str, Doc] = {}
        for sentence in dict.fromkeys(sentences):
            if sentence in self._entities:
                marks[sentence] = self._entities[sentence]
                continue
            doc = self.nlp.make_doc(sentence)
            if self._may_name(doc):
                fresh.append(doc)
                texts.append(sentence)  # what doc.text gives back (the tokenizer keeps every character)
            else:
                self.stats.no_name += 1
                marks[sentence] = None
                unnamed[sentence] = doc
        docs = unnamed
        for sentence, doc in zip(texts, self.nlp.get_pipe("ner").pipe(fresh, batch_size=self.batch_size), strict=True):
            marks[sentence] = tuple((e.start, e.end, e.label_, tuple(t.text for t in e)) for e in doc.ents)
            docs[sentence] = doc
        if len(self._entities) + len(marks) > self.cache_size:
            self._entities.clear()  # story updates repeat sentences within days; an old cache rarely pays
        self._entities.update(marks)
        return marks, docs

    def _read(self, keys: set[Key], marks: dict[str, tuple[Mark, ...] | None], recognised: dict[str, Doc]
              ) -> dict[Key, tuple[int, tuple[PlainRelation, ...]]]:
        """The triples of each (sentence, entities) not read before: tagger, parser and rules on those with an
        entity that can be an argument (the recogniser's own doc where the entities are its own)."""
        rest = [_memo_component(proc) for name, proc in self.nlp.pipeline if name != "ner"]
        results: dict[Key, tuple[int, tuple[PlainRelation, ...]]] = {}
        docs, read = [], []
        for key in sorted(keys):
            sentence, entities = key
            own = marks.get(sentence)
            if own is None or not any(m[2] not in SKIPPED_ENTITY_LABELS for m in entities):
                self.stats.no_entity += own is not None
                results[key] = (len(recognised[sentence]) if sentence in recognised else
                                len(self.nlp.tokenizer(sentence)), ())
                continue
            doc = recognised.pop(sentence, None) if entities == tuple(sorted(own)) else None
            if doc is None:
                doc = self.nlp.make_doc(sentence)
                doc.ents = [Span(doc, start, end, label=label) for start, end, label, _ in entities]
            docs.append(doc)
            read.append(key)
        stream: Iterable[Doc] = docs
        for proc in rest:
            stream = proc.pipe(stream, batch_size=self.batch_size)
        for key, doc in zip(read, stream, strict=True):
            self.stats.parsed += 1
            relations = tuple(plain(r) for s in doc_triples(doc) for r in s.relations)
            results[key] = (len(doc), _dedupe(relations))
        if len(self._cache) + len(results) > self.cache_size:
            self._cache.clear()
        self._cache.update(results)
        return results


def _article_names(sentence_marks: Iterable[tuple[Mark, ...]]) -> dict[tuple[str, ...], str]:
    """The companies and people the recogniser found in an article's sentences, by their words: the label of the
    first mention."""
    names: dict[tuple[str, ...], str] = {}
    for marks in sentence_marks:
        for _, _, label, words in marks:
            if label in ARTICLE_NAME_LABELS and words[0][:1].isupper() and len(" ".join(words)) >= MIN_ARTICLE_NAME:
                names.setdefault(words, label)
    return names


def _marks_of(words: list[str], names: dict[tuple[str, ...], str], found: tuple[Mark, ...]) -> tuple[Mark, ...]:
    """Where a sentence's words hold one of its article's names outside every entity found in it, a mark for it
    (longer names first); not where a capitalised word goes on before or after it ("NYSE Euronext" holds the
    article's "Euronext") or a hyphen joins it to one ("Man-made")."""
    present = set(words)
    candidates = [(name, label) for name, label in names.items() if name[0] in present]
    if not candidates:
        return ()
    taken = {i for start, end, _, _ in found for i in range(start, end)}
    added: list[Mark] = []
    for name, label in sorted(candidates, key=lambda item: (-len(item[0]), item[0])):
        n = len(name)
        for i in range(len(words) - n + 1):
            if tuple(words[i:i + n]) != name or taken.intersection(range(i, i + n)):
                continue
            before, after = words[i - 1] if i else "", words[i + n] if i + n < len(words) else ""
            if "-" in (before, after) or (i and before[:1].isupper()) or after[:1].isupper():
                continue  # a part of a longer name the recogniser missed too ("NYSE Euronext"), or a hyphened word
            added.append((i, i + n, label, name))
            taken.update(range(i, i + n))
    return tuple(added)


_MEMOS: weakref.WeakKeyDictionary[object, object] = weakref.WeakKeyDictionary()


def _memo_component(proc: object) -> object:
    """The memo form of a loaded pipeline's attribute ruler or rule lemmatiser, one per component so its memo
    outlives a SentenceParser and goes with the pipeline (other components as they are)."""
    if not isinstance(proc, AttributeRuler | Lemmatizer):
        return proc
    if proc not in _MEMOS:
        _MEMOS[proc] = memo_ruler(proc) if isinstance(proc, AttributeRuler) else memo_lemmatizer(proc)
    return _MEMOS[proc]


def _dedupe(relations: tuple[PlainRelation, ...]) -> tuple[PlainRelation, ...]:
    seen: set[tuple[str, str, str]] = set()
    out = []
    for rel in relations:
        key = (rel.subj.norm, rel.predicate, rel.obj.norm)
        if key not in seen:
            seen.add(key)
            out.append(rel)
    return tuple(out)
