"""A question's names resolved against the names the store holds.

The store holds canonical names (`graph_builder.entities`): `barack obama`, `bell atlantic`, `tanker`. A
question says "Obama", "Bell Atlantic Corp", "New Jersey Bell" or "the Kuaiti tankers". In this order, the
first rule that finds a name the store holds wins:

1. `exact`: the name itself;
2. `legal form`: the name without its legal form (`bell atlantic corp` -> `bell atlantic`);
3. `alias`: the canonical-entities pass renamed it so (`obama` -> `barack obama`, `opec` -> its expansion);
4. `leading words` / `surname`: the one organisation whose name begins with its words, or the one person whose
   name ends with them (or the one holding at least DOMINANT_SHARE of such mentions), of an agreeing type;
5. `acronym`: a spelled-out name the store holds by its initials (`north atlantic treaty organization` -> `nato`);
6. `head`: a common noun's head (`kuaiti tanker` -> `tanker`).

A name asked with the full stop that ends the question ("downgraded by S&P.") is resolved without it. A common noun
the store holds as asked (`interest rate`) also offers its head (`rate`, as much news writes it) for the window to
choose.

Otherwise the name stays as asked (`unknown`, or `ambiguous` naming the candidates). A name the question writes as
a name (capitalised, or typed) also offers the names of the question's own days that it may stand for by one of
WINDOW_RULES, whatever the rest of the corpus holds: "Leon" is `richard leon` in the week a judge of that name
questions IBM, though the corpus names `michael leon` more; "Martin" is that week's `trent martin`; "SocGen" is
`societe generale`, "DOJ" the `u.s. department of justice`, "HP" `hewlett packard`. The engine then looks at
the question's window: of the chosen names and the other stored names they may stand for (two famous
Armstrongs, two Smiths, `hollande` and `francois hollande`, `motorola` and `motorola mobility`), the pair with the
most evidence there answers (the chosen pair on a tie), explained as `in window`. Resolutions are cached for CACHE_SECONDS, so a batch asks the store once per name.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from cachetools import TTLCache

from graph_builder.entities import ACRONYM_TYPES, company_name, initials
from graph_builder.extraction import noun_lemma
from graph_builder.extraction.arguments import UNKNOWN_TYPE
from graph_builder.windows import Days
from retrieval.protocol import EvidenceStore, NameMatch

DOMINANT_SHARE = 0.9
CACHE_SECONDS = 600.0  # the store changes only when re-indexed; a batch evaluation asks each name many times
CACHE_SIZE = 100_000
WINDOW_CACHE_SECONDS = 60.0  # a window's names are asked again after this long (live ingestion may add news)
WINDOW_CACHE_SIZE = 1_000
# Which stored type each partial-name rule may reach, and the rule's name in the explanation.
_PARTIAL_RULES = {"prefix": ("organization", "leading words"), "suffix": ("person", "surname")}
# Which stored types a partial match may have to be an alternative the question's window can choose: an
# organisation may also end with the name ("Disney": `walt disney`), which is never taken without the window.
_ALTERNATIVE_TYPES = {"prefix": frozenset({"organization"}), "suffix": frozenset({"person", "organization"})}


# A country a name may begin with that its acronym leaves out: the DOJ is the `u.s. department of justice`.
_COUNTRY_WORDS = frozenset({"u.s.", "us", "u.k.", "uk"})
MIN_CONTRACTION = 4  # letters of a one-word contraction of a company's name ("SocGen", "FedEx"; not "Citi")
MIN_PIECE = 2  # letters each of its words gives it at least


# Words that join two names into one stored phrase the recogniser took for a name ("Feldmann and Leverkuhn"): such a
# phrase is no full name of either.
_JOINING_WORDS = frozenset({"and", "or"})


def _joins_names(name: Sequence[str]) -> bool:
    """A stored name's words join two names ("feldmann and leverkuhn")."""
    return not _JOINING_WORDS.isdisjoint(name)


def _surname(asked: Sequence[str], name: Sequence[str]) -> bool:
    """"Leon" for `richard leon`: the name's last words are the asked words."""
    return len(name) > len(asked) and list(name[-len(asked):]) == list(asked) and not _joins_names(name)


def _leading(asked: Sequence[str], name: Sequence[str]) -> bool:
    """"Principal Financial" for `principal financial group`: the name's first words are the asked words."""
    return len(name) > len(asked) and list(name[:len(asked)]) == list(asked) and not _joins_names(name)


def _spelled_initials(name: Sequence[str]) -> set[str]:
    """The acronyms a name may go by: its initials without function words (`initials`) or with them ("DOJ"), and
    both again without a country it begins with."""
    readings = [name] + ([name[1:]] if len(name) > 2 and name[0] in _COUNTRY_WORDS else [])
    return {spelled for words in readings
            for spelled in (initials(" ".join(words)), "".join(w[0] for w in words if w[:1].isalpha()))}


def _acronym_of(asked: Sequence[str], name: Sequence[str]) -> bool:
    """"DOJ" for `u.s. department of justice`, "HP" for `hewlett packard`: one word of two to six letters that are
    the initials of a name of two or more words."""
    letters = asked[0].replace(".", "") if len(asked) == 1 else ""
    return 2 <= len(letters) <= 6 and letters.isalpha() and len(name) >= 2 and letters in _spelled_initials(name)


def _spells(word: str, name: Sequence[str]) -> bool:
    """`word` is the beginnings of each of `name`'s words in turn, MIN_PIECE letters or more of each."""
    if not name:
        return not word
    head = name[0]
    return any(word[:k] == head[:k] and _spells(word[k:], name[1:])
               for k in range(min(MIN_PIECE, len(head)), min(len(head), len(word)) + 1))


def _contraction(asked: Sequence[str], name: Sequence[str]) -> bool:
    """"SocGen" for `societe generale`, "FedEx" for `federal express`: one word made of the beginnings of each word
    of a name of two or more words."""
    return (len(asked) == 1 and len(asked[0]) >= MIN_CONTRACTION and asked[0].isalpha() and len(name) >= 2
            and asked[0] != name[0] and _spells(asked[0], name))


# How a question's name may stand for a name of its window (the window's own news decides between them), and the
# types that rule may reach.
WINDOW_RULES: dict[str, tuple[frozenset[str], Callable[[Sequence[str], Sequence[str]], bool]]] = {
    "surname": (frozenset({"person"}), _surname),
    "leading words": (frozenset({"organization"}), _leading),
    "acronym": (ACRONYM_TYPES, _acronym_of),
    "contraction": (frozenset({"organization"}), _contraction),
}


def window_matches(asked: str, type_hint: str | None, names: Iterable[NameMatch]) -> tuple[str, ...]:
    """The names of a window (`window_names`, most named first) that the question's name `asked` may stand for by
    one of WINDOW_RULES, of a type agreeing with `type_hint`; `asked` itself is not one."""
    words = _words(asked)
    if not words:
        return ()
    found = [m.name for m in names if m.name != asked and _agrees(type_hint, m.type) and any(
        m.type in types and rule(words, _words(m.name)) for types, rule in WINDOW_RULES.values())]
    return tuple(dict.fromkeys(found))


def _words(name: str) -> list[str]:
    """A name's words, a hyphen parting them too (`freeport-mcmoran copper & gold` begins with "Freeport")."""
    return name.replace("-", " ").split()


@dataclass(frozen=True)
class ResolvedName:
    """A question's name, the name the store holds for it, and how it was found."""

    asked: str
    name: str
    how: str
    type: str | None = None
    candidates: tuple[str, ...] = ()  # an ambiguous name's candidates, most mentioned first
    alternatives: tuple[str, ...] = ()  # other stored names it may stand for, most mentioned first

    def options(self, limit: int = 4) -> tuple[str, ...]:
        """The stored names this name may stand for, the chosen one first (for a choice by the window's news).
        A name the store holds as asked comes first but is not the only option: "Motorola" is stored, and so is
        the `motorola mobility` of the news that week."""
        return tuple(dict.fromkeys([self.name, *self.candidates, *self.alternatives]))[:limit]

    def with_window(self, names: Sequence[str]) -> ResolvedName:
        """The same resolution offering `names` (of the question's window) first among the alternatives."""
        offered = tuple(n for n in dict.fromkeys([*names, *self.alternatives]) if n != self.name)
        return replace(self, alternatives=offered) if names else self

    def chose(self, name: str) -> ResolvedName:
        """The same resolution with `name` chosen, because the question's window holds news about it."""
        if name == self.name:
            return self
        return ResolvedName(self.asked, name, "in window", self.type)

    def describe(self) -> str:
        """One line for the answer's explanation: `obama -> barack obama (alias)`."""
        if self.how == "ambiguous":
            return f"{self.asked}: ambiguous ({', '.join(self.candidates)})"
        if self.how in {"exact", "unknown"} or (self.how == "in window" and self.name == self.asked):
            return f"{self.asked} ({self.how})"
        return f"{self.asked} -> {self.name} ({self.how})"


def _others(name: str, type_hint: str | None, matches: list[NameMatch]) -> tuple[str, ...]:
    """Every stored name of an agreeing type that `name` may stand for by a rule, most mentioned first; and the name
    with a legal form after it (`yammer inc` for "Yammer") whatever type the store gives it: the form says it is a
    company, where the recogniser's type of a name it did not know is often wrong."""
    ranked = sorted((m for m in matches if m.name != name and (
                        _legal_form_of(name, m) or (_agrees(type_hint, m.type) and (
                            m.how == "alias" or m.type in _ALTERNATIVE_TYPES.get(m.how, ()))))),
                    key=lambda m: (-m.count, m.name))
    return tuple(dict.fromkeys(m.name for m in ranked))


def _legal_form_of(name: str, match: NameMatch) -> bool:
    """`match` is `name` followed by a legal form (`yammer inc`, `bell atlantic corp`)."""
    return match.how == "prefix" and company_name(match.name) == name


def _agrees(hint: str | None, found: str) -> bool:
    return hint in (None, UNKNOWN_TYPE) or hint == found


class NameResolver:
    """Resolves names against one store, caching each answer for a while (the store may grow)."""

    def __init__(self, store: EvidenceStore) -> None:
        self.store = store
        self._cache: TTLCache[tuple[str, str | None, bool], ResolvedName] = TTLCache(CACHE_SIZE, CACHE_SECONDS)
        self._windows: TTLCache[tuple[int, Days | None], list[NameMatch]] = TTLCache(WINDOW_CACHE_SIZE,
                                                                                     WINDOW_CACHE_SECONDS)
        self._window_lock = threading.Lock()

    def resolve(self, name: str, type_hint: str | None = None, strict: bool = True) -> ResolvedName:
        """Return the name the store holds for `name` (see the module's rules). A `type_hint` that is not
        `strict` (the recogniser's guess, not the request's) is dropped when no name of that type is found."""
        key = (name, type_hint, strict)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._resolve(name, type_hint)
            if not strict and type_hint is not None and hit.how in {"unknown", "ambiguous"}:
                hit = self._resolve(name, None)
            elif type_hint is not None and hit.how == "unknown":
                # A name the store holds under no type of its own but merged, under another type, into one name
                # ("cerberus", typed a person by an older typing, is `cerberus capital management`): a name held as
                # asked is found whatever its type, and so is its alias.
                untyped = self._resolve(name, None)
                hit = untyped if untyped.how == "alias" else hit
            # Only names the store holds are remembered: what users type that it does not know would fill the
            # cache with strings no later question needs (memory under free text stays flat).
            if hit.how != "unknown":
                self._cache[key] = hit
        return hit

    def in_window(self, resolved: ResolvedName, type_hint: str | None, window: int, days: Days | None,
                  written: str = "") -> ResolvedName:
        """`resolved` also offering the names of the window (or of `days`) its asked name, or the name as the
        question wrote it (`written`: "Plains", which the extractor read as the noun `plain`), may stand for by
        WINDOW_RULES (`window_matches`), first among its alternatives."""
        key = (window, days)
        names = self._windows.get(key)
        if names is None:
            with self._window_lock:  # one read of a window at a time: a burst of questions about it waits for it
                names = self._windows.get(key)
                if names is None:
                    names = self._windows[key] = self.store.window_names(window, days)
        asked = dict.fromkeys(n for n in (resolved.asked, written) if n)
        return resolved.with_window([m for n in asked for m in window_matches(n, type_hint, names)])

    def forget(self, names: Iterable[str]) -> None:
        """Drop the cached answers that names newly added to the store may change: those sharing a word with one
        (and every window's names)."""
        self._windows.clear()
        words = {w for n in names for w in n.split()}
        try:
            stale = [key for key in list(self._cache) if words.intersection(key[0].split())]
            for key in stale:
                self._cache.pop(key, None)
        except RuntimeError:  # another thread changed the cache meanwhile: forget everything instead
            self._cache.clear()

    def _held(self, name: str, type_hint: str | None) -> int:
        """How many mentions of `name` (of an agreeing type) the store holds."""
        return sum(t.count for t in self.store.argument_types(name) if _agrees(type_hint, t.type))

    def _resolve(self, name: str, type_hint: str | None) -> ResolvedName:
        company = company_name(name) if type_hint in (None, UNKNOWN_TYPE, "organization") else name
        for asked in dict.fromkeys([name, company]):
            held = self._held(asked, type_hint)
            # Every rule, even for a name held as asked: the others give the alternatives the window may choose.
            matches = self.store.names_for(asked)
            aliases = [m for m in matches if m.how == "alias" and _agrees(type_hint, m.type)]
            best = max(aliases, key=lambda m: (m.count, m.name), default=None)
            others = _others(name, type_hint, matches)
            # A name the pass merged elsewhere may still stand alone in a few articles: the more mentioned wins.
            if best is not None and best.count > held:
                return ResolvedName(name, best.name, "alias", best.type,
                                    alternatives=tuple(n for n in (asked if held else "", *others) if n and n != best.name))
            if held:
                head = self._head(asked, type_hint)  # "interest rate" is also stored as `rate`: the window chooses
                return ResolvedName(name, asked, "exact" if asked == name else "legal form",
                                    alternatives=(*others, head) if head else others)
            partial = self._partial(name, type_hint, matches)
            if partial is not None:
                return replace(partial, alternatives=tuple(n for n in others if n != partial.name))
        acronym = self._acronym(name, type_hint)
        if acronym is not None:
            return acronym
        head = self._head(name, type_hint)
        if head is not None:
            return ResolvedName(name, head, "head", UNKNOWN_TYPE)
        if name.endswith(".") and len(name) > 1:  # a question's last word keeps its full stop: "by S&P."
            bare = self._resolve(name.rstrip("."), type_hint)
            if bare.how != "unknown":
                return bare
        return ResolvedName(name, name, "unknown")

    def _head(self, name: str, type_hint: str | None) -> str | None:
        """A common noun's head the store holds as a common noun (`kuaiti tanker` -> `tanker`), if any."""
        words = name.split()
        if len(words) < 2 or type_hint not in (None, UNKNOWN_TYPE):
            return None
        for head in dict.fromkeys([words[-1], noun_lemma(words[-1])]):
            types = self.store.argument_types(head)
            if types and types[0].type == UNKNOWN_TYPE:
                return head
        return None

    def _acronym(self, name: str, type_hint: str | None) -> ResolvedName | None:
        """A spelled-out name the store holds by its initials only ("North Atlantic Treaty Organization" -> `nato`),
        when the name is known to be of a type acronyms name (a common noun such as "exchange rate" is no `er`)."""
        letters = initials(name) if len(name.split()) > 1 else ""
        if len(letters) < 2 or letters == name or type_hint not in ACRONYM_TYPES:
            return None
        types = [t for t in self.store.argument_types(letters) if t.type == type_hint]
        return ResolvedName(name, letters, "acronym", types[0].type) if types else None

    @staticmethod
    def _partial(name: str, type_hint: str | None, matches: list[NameMatch]) -> ResolvedName | None:
        """The one (or dominant) stored name that begins (an organisation) or ends (a person) with `name`."""
        candidates: dict[tuple[str, str], tuple[int, str]] = {}
        for m in matches:
            rule = _PARTIAL_RULES.get(m.how)
            if rule is not None and m.type == rule[0] and _agrees(type_hint, m.type) \
                    and not _joins_names(_words(m.name)):
                candidates[(m.name, m.type)] = (m.count, rule[1])
        if not candidates:
            return None
        ranked = sorted(candidates.items(), key=lambda kv: (-kv[1][0], kv[0]))
        (best, best_type), (count, how) = ranked[0]
        if len(ranked) == 1 or count >= DOMINANT_SHARE * sum(c for c, _ in candidates.values()):
            return ResolvedName(name, best, how, best_type)
        return ResolvedName(name, name, "ambiguous", candidates=tuple(n for (n, _), _ in ranked[:5]))
