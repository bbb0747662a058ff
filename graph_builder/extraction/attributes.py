"""spaCy's attribute ruler, applied from a memo of each token's attributes instead of the rule matcher.

The small English pipeline's attribute ruler maps tags to parts of speech and morphology with 179 one- and two-token
patterns over TAG, LOWER, DEP and IS_SPACE. spaCy runs them through its Matcher and sets each match's attributes with
a Python call per match: 13% of the sentence path's CPU time, more than the parser. Every one-token pattern's outcome
depends only on the token's (tag, lower-case form, dependency label, is-space), so `MemoAttributeRuler` looks each
distinct tuple up once, keeps which patterns it matches, and sets a token's merged attributes with one call. Two-token
patterns ("gon na", "let 's", an expletive before "is") are checked over adjacent tokens from the same memo. The
outcome is the ruler's: matches apply in the ruler's order (a later pattern wins), as `AttributeRuler.match` sorts
them. A pipeline whose patterns use anything else (operators, other attributes) keeps spaCy's ruler (`memo_ruler`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from spacy.attrs import DEP, IS_SPACE, LOWER, TAG
from spacy.pipeline import AttributeRuler
from spacy.tokens import Doc
from spacy.tokens._retokenize import set_token_attrs  # the setter AttributeRuler.set_annotations uses

# A token as the patterns see it: (tag, lower-case form, dependency label, is-space); the first three as hashes.
Key = tuple[int, int, int, int]
_FIELDS = ("TAG", "LOWER", "DEP", "IS_SPACE")
_OTHER_WORD = -1  # the key's word for every form no pattern names
_MEMO_LIMIT = 200_000  # distinct keys kept before the memo starts over (it only saves time)


class UnsupportedPattern(ValueError):
    """A pattern uses an operator or attribute the memo cannot evaluate token by token."""


def _value_test(value: Any) -> Callable[[Any], bool]:
    """The test one attribute of a Matcher token pattern applies to a token's value (string or bool)."""
    if isinstance(value, (str, bool)):
        return lambda v: v == value
    if isinstance(value, dict) and len(value) == 1:
        (op, arg), = value.items()
        if op == "IN":
            allowed = frozenset(arg)
            return lambda v: v in allowed
        if op == "NOT_IN":
            banned = frozenset(arg)
            return lambda v: v not in banned
        if op == "REGEX":
            regex = re.compile(arg)
            return lambda v: bool(regex.search(v))
    raise UnsupportedPattern(f"unsupported value {value!r}")


def _spec_test(spec: dict[str, Any]) -> Callable[[tuple[str, str, str, bool]], bool]:
    """The test of one token pattern, over a token's (tag, lower, dep, is_space) strings."""
    tests = []
    for name, value in spec.items():
        if name not in _FIELDS:
            raise UnsupportedPattern(f"unsupported attribute {name!r}")
        tests.append((_FIELDS.index(name), _value_test(value)))
    return lambda fields: all(test(fields[i]) for i, test in tests)


def _words_named(patterns: list[dict[str, Any]]) -> tuple[frozenset[str], list[re.Pattern[str]]]:
    """The lower-case forms the patterns name (as a value, IN or NOT_IN) and the regular expressions they match."""
    named: set[str] = set()
    regexes = []
    for pattern in patterns:
        for alternative in pattern["patterns"]:
            for spec in alternative:
                value = spec.get("LOWER") if isinstance(spec, dict) else None
                if isinstance(value, str):
                    named.add(value)
                elif isinstance(value, dict):
                    for op, arg in value.items():
                        if op == "REGEX":
                            regexes.append(re.compile(arg))
                        elif op in {"IN", "NOT_IN"}:
                            named.update(arg)
    return frozenset(named), regexes


class MemoAttributeRuler:
    """Apply an AttributeRuler's patterns and attributes to docs, memoising each distinct token's matches."""

    def __init__(self, ruler: AttributeRuler) -> None:
        self.vocab = ruler.vocab
        self.name = ruler.name
        self._attrs = list(ruler.attrs)  # normalised (attribute id -> value hash), as set_annotations uses them
        self._indices = list(ruler.indices)
        self._single: list[tuple[int, Callable[[tuple[str, str, str, bool]], bool]]] = []
        # two-or-more-token patterns: (rule number, the token of the match it sets, one test per token)
        self._multi: list[tuple[int, int, list[Callable[[tuple[str, str, str, bool]], bool]]]] = []
        for number, pattern in enumerate(ruler.patterns):
            for alternative in pattern["patterns"]:
                if not alternative or any(not isinstance(spec, dict) for spec in alternative):
                    raise UnsupportedPattern(f"pattern {number}: {alternative!r}")
                tests = [_spec_test(spec) for spec in alternative]
                if len(tests) == 1:
                    self._single.append((number, tests[0]))
                else:
                    self._multi.append((number, self._indices[number], tests))
        # A word no pattern names nor matches by regex behaves as any other such word: such words share one key.
        self._named_words, self._word_regexes = _words_named(ruler.patterns)
        self._word_class: dict[int, int] = {}
        self._other_word: str | None = None  # a text, not a hash: a memory zone may free the hash's string
        # key -> (rule numbers of the one-token patterns it matches, the (multi pattern, position) pairs it matches)
        self._memo: dict[Key, tuple[tuple[int, ...], frozenset[tuple[int, int]]]] = {}
        self._merged: dict[tuple[int, ...], dict[int, int]] = {}

    def _word(self, lower: int) -> int:
        """The lower-case form's hash, or one shared stand-in for every form no pattern names or matches."""
        word = self._word_class.get(lower)
        if word is None:
            text = self.vocab.strings[lower]
            if text in self._named_words or any(r.search(text) for r in self._word_regexes):
                word = lower
            else:
                if self._other_word is None:
                    self._other_word = text
                word = _OTHER_WORD
            if len(self._word_class) >= _MEMO_LIMIT:
                self._word_class.clear()
            self._word_class[lower] = word
        return word

    def _lookup(self, key: Key) -> tuple[tuple[int, ...], frozenset[tuple[int, int]]]:
        key = (key[0], self._word(key[1]), key[2], key[3])
        found = self._memo.get(key)
        if found is None:
            strings = self.vocab.strings
            word = self._other_word if key[1] == _OTHER_WORD else strings[key[1]]
            fields = (strings[key[0]], word, strings[key[2]], bool(key[3]))
            single = tuple(number for number, test in self._single if test(fields))
            multi = frozenset((m, j) for m, (_, _, tests) in enumerate(self._multi)
                              for j, test in enumerate(tests) if test(fields))
            if len(self._memo) >= _MEMO_LIMIT:
                self._memo.clear()
            found = self._memo[key] = (single, multi)
        return found

    def _attributes(self, rules: tuple[int, ...]) -> dict[int, int]:
        """The attributes a token matched by `rules` ends with: each rule's in turn, a later rule overwriting."""
        merged = self._merged.get(rules)
        if merged is None:
            merged = {}
            for number in sorted(set(rules)):
                merged.update(self._attrs[number])
            self._merged[rules] = merged
        return merged

    def __call__(self, doc: Doc) -> Doc:
        """Set the ruler's attributes on every token of `doc`."""
        keys = doc.to_array([TAG, LOWER, DEP, IS_SPACE]).tolist()
        found = [self._lookup(tuple(k)) for k in keys]  # type: ignore[arg-type]
        extra: dict[int, list[int]] = {}
        for start, (_, multi) in enumerate(found):
            for m, position in multi:
                if position:
                    continue  # a match is found from its first token
                number, index, tests = self._multi[m]
                width = len(tests)
                if start + width <= len(found) and all((m, j) in found[start + j][1] for j in range(1, width)):
                    target = start + index if index >= 0 else start + width + index
                    extra.setdefault(target, []).append(number)
        for i, (single, _) in enumerate(found):
            rules = single if i not in extra else (*single, *extra[i])
            if rules:
                set_token_attrs(doc[i], self._attributes(rules))
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 128) -> Iterator[Doc]:
        """Apply the ruler to each doc of a stream."""
        for doc in docs:
            yield self(doc)


def memo_ruler(ruler: Any) -> Any:
    """A MemoAttributeRuler for spaCy's AttributeRuler `ruler`, or `ruler` itself where its patterns need the Matcher."""
    if not isinstance(ruler, AttributeRuler):
        return ruler
    try:
        return MemoAttributeRuler(ruler)
    except UnsupportedPattern:
        return ruler
