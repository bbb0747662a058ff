"""Canonical entities: one name per participant, for the graphs, the store, the benchmark and the queries.

A pass over the triples dataset, after extraction and typing, that rewrites each argument to its canonical
form, in three steps:

1. **The name's own form** (`base_name`): a company's legal form is dropped ("Bell Atlantic Corp" and "Bell
   Atlantic" are `bell atlantic`; the legal forms are cleanco's, and `group` / `holdings` are dropped too), and
   a common noun keeps its head ("the 11 Kuaiti tankers" and "the tankers" meet on `tanker`), as the argument
   normalisation of Hosseini et al. (2018) does.
2. **Within an article**, a short form refers to a longer name of the same type mentioned no later: a person's
   surname to the full name ("Barack Obama" ... "Obama"), a company's leading words to its full name ("New
   Jersey Bell Telephone" ... "New Jersey Bell"), an acronym to the name whose initials it spells ("Organization
   of Petroleum Exporting Countries" ... "OPEC"). Only where exactly one name of the article qualifies. (v2) A
   one-word name the recogniser typed otherwise stands for the one person of that surname the article names
   before it ("Mario Draghi" ... "Draghi", typed an organisation), where the corpus shows the name mostly does so:
   in at least MIN_RETYPED_SHARE of the articles naming it; it takes the person's type. A name written with a legal
   form is no short form, in its article and (v4) wherever at least MIN_LEGAL_SHARE of its articles write it so.
3. **Across the corpus**, a short form met where its article names no longer form is merged only with
   evidence: the articles that did resolve it agree on one full name (at least MIN_CORPUS_ARTICLES of them,
   that name in at least MIN_CORPUS_SHARE of them, and they are at least MIN_RESOLVED_SHARE of the articles
   naming it, unless it is an acronym: one spelled out is evidence enough), of the same type. Types keep different entities
   apart: `ford` the company and `gerald ford` the person never meet.

The mention names as extracted are kept beside each shard (`names-*.parquet`), so the pass re-runs from
them, never from its own output, and needs no re-parsing. Its version and report go into the manifest; the
corpus-wide map (`entity_aliases.parquet`: alias, type -> canonical, with counts) is what `egqa index` gives
the store, so that a question naming "Obama" finds `barack obama`.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from cleanco import basename as _legal_basename

from graph_builder.errors import InputError
from graph_builder.extraction.arguments import UNKNOWN_TYPE
from graph_builder.triples import TRIPLE_SCHEMA, kept_beside, record_in_manifest, shard_files, write_table

ENTITIES_VERSION = "egqa.canonical-entities.v4"
ALIASES_FILE = "entity_aliases.parquet"
ALIAS_SCHEMA = pa.schema([
    pa.field("alias", pa.string(), nullable=False),
    pa.field("type", pa.string(), nullable=False),
    pa.field("canonical", pa.string(), nullable=False),
    pa.field("mentions", pa.int64(), nullable=False),
    pa.field("rule", pa.string(), nullable=False),
])
NAMES_SCHEMA = pa.schema([
    pa.field("triple_id", pa.string(), nullable=False),
    pa.field("subj", pa.string(), nullable=False),
    pa.field("obj", pa.string(), nullable=False),
])
MIN_CORPUS_ARTICLES = 3
MIN_CORPUS_SHARE = 0.8
# ... and the articles that resolved it are at least this share of the articles that name it: a name that
# mostly stands on its own ("Bell Atlantic", next to "Bell Atlantic Mobile" now and then) is an entity itself.
MIN_RESOLVED_SHARE = 0.25
# A one-word name of another type than person stands for a person of that surname (RETYPED) only when at least this
# share of the articles naming it name that one person before it.
MIN_RETYPED_SHARE = 0.5
# (v4) A name written with a legal form is a company of its own in every article ("MBIA Inc" somewhere: "MBIA" is
# not "MBIA Insurance") only when at least this share of the articles naming it write it so. One "Goldman co" or
# "GM Co" in 1,300 and 2,700 articles had kept every "Goldman" and "GM" apart from the "Goldman Sachs" and "General
# Motors" of its own article; "Barclays", "Apple" and "KKR" (29%, 44%, 36%) stay companies of their own, and "Nokia"
# (9%) stays apart from "Nokia Siemens Networks". In its own article a legal form always keeps the name apart.
MIN_LEGAL_SHARE = 0.08
RETYPED = "surname, retyped"
# Words a company name carries beyond its legal form that still name the same company ("Goldman Sachs Group").
_GROUP_WORDS = ("group", "holdings", "holding")
# The English legal forms that come stacked ("Samsung Electronics Co Ltd", "Merrill Lynch & Co Inc"): cleanco
# drops the last legal form only, and these are dropped before it too. Not every cleanco term: "Reuss Private
# Group" keeps `private`.
STACKED_FORMS = frozenset({"co", "corp", "inc", "ltd", "plc", "llc", "company", "corporation", "limited",
                           "incorporated", "&"})
# What a company name is never cut down to.
_NOT_A_NAME = frozenset({"the", "a", "an", "his", "her", "its", "our", "their", "my", "your", "this", "that", "these",
                         "those", "it", "we", "they", "he", "she", "i", "you"})
# A company's full name that goes on with one of these is a phrase, not a name: "Expedia to Liberty Media",
# "Liberty Global and Liberty Media".
_PHRASE_WORDS = frozenset({"and", "to", "or", "vs", "versus", "with", "from", "by", "in", "on", "at", "for", "of",
                           "the", "said", "says"})
# Words an acronym skips ("Organization of Petroleum Exporting Countries" -> OPEC).
_ACRONYM_SKIP = frozenset({"of", "and", "the", "for", "de", "&", "on", "in", "du", "des", "la", "le"})
# Types a surname, a company's leading words or an acronym may stand for.
_SURNAME_TYPES = frozenset({"person"})
_PREFIX_TYPES = frozenset({"organization"})
ACRONYM_TYPES = frozenset({"organization", "location", "group", "event", "law"})
_WORD = re.compile(r"[^\W\d_]", re.UNICODE)
# Short forms too generic to stand for one name: "the Bank" is not always the Bank of England.
GENERIC_SHORT_FORMS = frozenset({"bank", "national", "first", "general", "international", "federal", "american",
                                 "united", "new", "royal", "state", "central", "union", "trust", "capital", "group",
                                 "company", "global", "standard", "world", "north", "south", "east", "west"})


@dataclass
class EntityReport:
    """What the pass did: mentions read and changed by each rule, distinct names before and after."""

    version: str = ENTITIES_VERSION
    mentions: int = 0
    changed: int = 0
    by_rule: dict[str, int] = field(default_factory=dict)
    names_before: int = 0
    names_after: int = 0
    aliases: int = 0

    def to_dict(self) -> dict[str, object]:
        """Return the report as JSON-ready data."""
        return asdict(self)


def is_common_noun(surface: str, type_: str) -> bool:
    """A mention is a common noun when it is untyped and its last word is written in lower case ("tankers")."""
    words = surface.split()
    return type_ == UNKNOWN_TYPE and bool(words) and words[-1] == words[-1].lower() and bool(_WORD.search(words[-1]))


def company_name(name: str) -> str:
    """A company name without its legal forms or a trailing group word: `goldman sachs group inc` -> `goldman
    sachs`, `samsung electronics co ltd` -> `samsung electronics`. cleanco drops one legal form; the English forms
    that come stacked before it (STACKED_FORMS: "Co Ltd", "& Co Inc", "Corp Ltd") are dropped after it (v2 stopped
    after one: `j.c. penney co inc` stayed `j.c. penney co`, apart from `j.c. penney`). A name that would be left
    empty, or with no letter, is kept whole."""
    words = _legal_basename(name).strip(" ,.&").split()
    while len(words) > 1 and (words[-1] in _GROUP_WORDS or words[-1].strip(",.") in STACKED_FORMS):
        words.pop()
    result = " ".join(words).strip(" ,.&")
    # Whole words only ("u.s." keeps its stop), never down to nothing, an article or a pronoun ("H.I.S. Co").
    whole_words = name.startswith(result + " ") or name.startswith(result + ",")
    return result if whole_words and _WORD.search(result) and result not in _NOT_A_NAME else name


# The corpus pass asks the same names millions of times; the service asks with whatever a user typed, so it calls
# company_name itself and keeps nothing.
_cached_company_name = lru_cache(maxsize=1 << 18)(company_name)


def base_name(name: str, surface: str, type_: str) -> str:
    """The name's canonical form on its own: a common noun's head, a company without its legal form."""
    return base_reading(name, surface, type_)[0]


def base_reading(name: str, surface: str, type_: str) -> tuple[str, str | None]:
    """The name's canonical form on its own and the rule that gave it (`common-noun head`, `legal form`, or None
    when the name stays as extracted)."""
    if is_common_noun(surface, type_):
        head = name.split()[-1] if name else name
        return head, "common-noun head" if head != name else None
    if type_ in {"organization", UNKNOWN_TYPE}:
        company = _cached_company_name(name)
        return company, "legal form" if company != name else None
    return name, None


def acronym_letters(surface: str) -> str | None:
    """The letters of an acronym as written ("OPEC", "U.S.", "EU"), or None if the surface is not one."""
    letters = surface.replace(".", "")
    if 2 <= len(letters) <= 6 and letters.isalpha() and letters.isupper():
        return letters.lower()
    return None


def initials(name: str) -> str:
    """The initials of a name's words, skipping function words."""
    return "".join(w[0] for w in name.replace("-", " ").split() if w not in _ACRONYM_SKIP and w[:1].isalpha())


@dataclass(frozen=True)
class Mention:
    """One argument mention: where (article, sentence), its base name, type and surface."""

    article: str
    sentence: str
    name: str
    type: str
    surface: str
    legal: bool = False  # the mention carried a legal form ("MBIA Inc"): a company's full name, never a short form


def _agrees(short_type: str, full_type: str, allowed: frozenset[str]) -> bool:
    return full_type in allowed and short_type in {full_type, UNKNOWN_TYPE}


def legal_initial(name: str, surface: str) -> str:
    """The first letter of the stacked legal form written right after the name in a mention ("Taiwan
    Semiconductor Manufacturing Co Ltd" -> `c`), or "" when there is none."""
    words, tokens = name.split(), [t.strip(",.") for t in surface.lower().split()]
    after = tokens[len(words)] if len(tokens) > len(words) and tokens[:len(words)] == words else ""
    return after[0] if after in STACKED_FORMS and after != "&" else ""


def _rule_for(short: Mention, full_name: str, full_type: str, retyped: bool = False,
              legal_letters: frozenset[str] = frozenset()) -> str | None:
    """Which rule lets `short` stand for `full_name` (None if none does); `retyped` also lets a one-word short form
    of another type stand for a person's full name (`canonical_map` keeps that only with corpus evidence). An
    acronym may spell the name's legal form too, one of `legal_letters` (`legal_initial` of its mentions: "TSMC"
    for "Taiwan Semiconductor Manufacturing Co Ltd", whose name is `taiwan semiconductor manufacturing`)."""
    s, f = short.name.split(), full_name.split()
    if len(s) >= len(f) or all(w in GENERIC_SHORT_FORMS for w in s) or not all(_WORD.search(w) for w in f):
        return None
    if _agrees(short.type, full_type, _SURNAME_TYPES) and f[-len(s):] == s:
        return "surname"
    if retyped and full_type in _SURNAME_TYPES and len(s) == 1 and f[-1] == s[0]:
        return RETYPED
    if _agrees(short.type, full_type, _PREFIX_TYPES) and f[:len(s)] == s and not _PHRASE_WORDS & set(f[len(s):]):
        return "leading words"
    letters = acronym_letters(short.surface)
    if letters is not None and len(s) == 1 and _agrees(short.type, full_type, ACRONYM_TYPES):
        skipped = sum(w in _ACRONYM_SKIP for w in f)
        if len(f) == len(letters) + skipped and initials(full_name) == letters:
            return "acronym"
        if len(f) + 1 == len(letters) + skipped and any(initials(full_name) + c == letters for c in legal_letters):
            return "acronym"
    return None


def resolve_article(mentions: list[Mention], legal_names: frozenset[tuple[str, str]] = frozenset(),
                    retyped: bool = False) -> dict[tuple[str, str], tuple[str, str, str]]:
    """Map (name, type) of the article's short forms to (full name, full type, rule): the one longer name of
    the article, mentioned no later than the short form's first mention, that the short form can stand for.
    A name written with a legal form, here or anywhere in `legal_names`, is a company of its own: no short form.
    With `retyped`, a one-word short form of another type may stand for a person (the rule `RETYPED`)."""
    legal = legal_names | {(m.name, m.type) for m in mentions if m.legal}
    first_seen: dict[tuple[str, str], str] = {}
    for m in mentions:
        if is_common_noun(m.surface, m.type):
            continue
        key = (m.name, m.type)
        if key not in first_seen or m.sentence < first_seen[key]:
            first_seen[key] = m.sentence
    by_key = {(m.name, m.type): m for m in mentions if (m.name, m.type) in first_seen}
    letters_seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for m in mentions:
        if m.legal and (letter := legal_initial(m.name, m.surface)):
            letters_seen[(m.name, m.type)].add(letter)
    legal_letters = {key: frozenset(letters) for key, letters in letters_seen.items()}  # built once, read per pair
    out: dict[tuple[str, str], tuple[str, str, str]] = {}
    for key, short in by_key.items():
        if key in legal:
            continue
        found: list[tuple[str, str, str]] = []
        for (full, full_type), seen in first_seen.items():
            if seen > first_seen[key] or full == short.name:
                continue
            rule = _rule_for(short, full, full_type, retyped, legal_letters.get((full, full_type), frozenset()))
            if rule is not None:
                found.append((full, full_type, rule))
        if len({(f, t) for f, t, _ in found}) == 1:
            out[key] = found[0]
    return out


@dataclass
class CanonicalMap:
    """The pass's decisions: per article (its own short forms) and corpus-wide (aliases with evidence)."""

    in_article: dict[str, dict[tuple[str, str], tuple[str, str, str]]]
    corpus: dict[tuple[str, str], tuple[str, str, str]]

    def lookup(self, article: str, name: str, type_: str) -> tuple[str, str, str] | None:
        """(canonical name, type, rule) for a base name in an article, or None when it stays as it is."""
        hit = self.in_article.get(article, {}).get((name, type_))
        return hit if hit is not None else self.corpus.get((name, type_))


def corpus_legal_names(by_article: dict[str, list[Mention]]) -> frozenset[tuple[str, str]]:
    """The (name, type) pairs that are companies of their own in every article: written with a legal form in at
    least MIN_LEGAL_SHARE of the articles that name them."""
    naming: Counter[tuple[str, str]] = Counter()
    legal: Counter[tuple[str, str]] = Counter()
    for items in by_article.values():
        naming.update({(m.name, m.type) for m in items})
        legal.update({(m.name, m.type) for m in items if m.legal})
    return frozenset(key for key, n in legal.items() if n >= MIN_LEGAL_SHARE * naming[key])


def canonical_map(mentions: Iterable[Mention]) -> CanonicalMap:
    """Decide every merge from the corpus' mentions (base names already applied)."""
    by_article: dict[str, list[Mention]] = defaultdict(list)
    for m in mentions:
        by_article[m.article].append(m)
    legal_names = corpus_legal_names(by_article)
    resolved_by_article = {article: resolve_article(items, legal_names, retyped=True)
                           for article, items in by_article.items()}
    # A surname of another type stands for the person only where the name mostly does: most of the articles that
    # name it (with that type) name one person of that surname before it. "Draghi", typed an organisation, follows
    # "Mario Draghi" in nearly every article; "Ford" the company follows a Ford (Gerald, Bill) in few.
    retyped_in: Counter[tuple[str, str]] = Counter(
        key for resolved in resolved_by_article.values() for key, hit in resolved.items() if hit[2] == RETYPED)
    naming: Counter[tuple[str, str]] = Counter(
        key for items in by_article.values() for key in {(m.name, m.type) for m in items} if key in retyped_in)
    trusted = {key for key, n in retyped_in.items() if n >= MIN_RETYPED_SHARE * naming[key]}
    in_article = {}
    votes: dict[tuple[str, str], Counter[tuple[str, str]]] = defaultdict(Counter)
    articles: Counter[tuple[str, str]] = Counter()
    rules_seen: dict[tuple[str, str], dict[tuple[str, str], set[str]]] = defaultdict(lambda: defaultdict(set))
    for article, items in by_article.items():
        articles.update({(m.name, m.type) for m in items})
        resolved = {key: hit for key, hit in resolved_by_article[article].items()
                    if hit[2] != RETYPED or key in trusted}
        if resolved:
            in_article[article] = resolved
        for key, (full, full_type, rule) in resolved.items():
            votes[key][(full, full_type)] += 1
            rules_seen[key][(full, full_type)].add(rule)
    corpus = {}
    for key, counter in votes.items():
        (full, full_type), n = counter.most_common(1)[0]
        total = sum(counter.values())
        # An acronym spelled out is evidence enough in itself ("U.S." after "United States" in a few articles).
        spelled = {rule for (f, t), rules in rules_seen[key].items() if (f, t) == (full, full_type) for rule in rules}
        if total >= MIN_CORPUS_ARTICLES and n / total >= MIN_CORPUS_SHARE \
                and (spelled == {"acronym"} or total >= MIN_RESOLVED_SHARE * articles[key]):
            corpus[key] = (full, full_type, "corpus")
    return CanonicalMap(in_article, corpus)


def names_path(shard: Path) -> Path:
    """The side file that keeps a shard's mention names as extracted."""
    return shard.with_name(f"names-{shard.stem.removeprefix('part-')}.parquet")


def _original_names(shard: Path, table: pa.Table) -> pa.Table:
    """The mention names as extracted: the side file once the pass has run, else the shard's own columns."""
    return kept_beside(shard, names_path(shard), table, NAMES_SCHEMA)


def _mentions(files: list[Path]) -> Iterable[Mention]:
    for file in files:
        table = pq.read_table(file, columns=["triple_id", "article_id", "sentence_id", "subj", "subj_text", "subj_type", "obj",
                                             "obj_text", "obj_type"])
        names = _original_names(file, table)
        for side in ("subj", "obj"):
            for article, sentence, name, surface, type_ in zip(
                    table["article_id"].to_pylist(), table["sentence_id"].to_pylist(), names[side].to_pylist(),
                    table[f"{side}_text"].to_pylist(), table[f"{side}_type"].to_pylist(), strict=True):
                base, rule = base_reading(name, surface, type_)
                yield Mention(article, sentence, base, type_, surface, rule == "legal form")


def canonicalise(triples: Path, progress: Callable[[int], object] | None = None) -> EntityReport:
    """Rewrite every argument of the dataset at `triples` to its canonical form, shard by shard, atomically.

    Idempotent and re-runnable: it always starts from the names as extracted (kept in `names-*.parquet`).
    Writes `entity_aliases.parquet` and records its version and report in the manifest."""
    files = shard_files(triples)
    if not triples.is_dir():
        raise InputError(f"{triples}: canonical entities need a triples dataset folder, not a single file")
    mapping = canonical_map(_mentions(files))
    report = EntityReport()
    before: set[str] = set()
    after: set[str] = set()
    aliases: Counter[tuple[str, str, str, str]] = Counter()
    for file in files:
        shard = pq.read_table(file, schema=TRIPLE_SCHEMA)
        names = _original_names(file, shard)
        for side in ("subj", "obj"):
            new_names, new_types = [], []
            for article, name, surface, type_ in zip(shard["article_id"].to_pylist(), names[side].to_pylist(),
                                                     shard[f"{side}_text"].to_pylist(),
                                                     shard[f"{side}_type"].to_pylist(), strict=True):
                report.mentions += 1
                before.add(name)
                base, rule = base_reading(name, surface, type_)
                hit = None if rule == "legal form" else mapping.lookup(article, base, type_)
                canonical, new_type = (hit[0], hit[1]) if hit else (base, type_)
                if hit:
                    # A corpus alias of another type than the mention's came from RETYPED resolutions.
                    rule = f"{hit[2]}, retyped" if hit[2] == "corpus" and type_ not in {hit[1], UNKNOWN_TYPE} \
                        else hit[2]
                if canonical != name:
                    report.changed += 1
                    report.by_rule[rule or "?"] = report.by_rule.get(rule or "?", 0) + 1
                    if rule not in {"common-noun head"}:
                        aliases[(name, type_, canonical, rule or "?")] += 1
                new_names.append(canonical)
                new_types.append(new_type)
                after.add(canonical)
            shard = shard.set_column(shard.schema.get_field_index(side), side, pa.array(new_names, pa.string()))
            shard = shard.set_column(shard.schema.get_field_index(f"{side}_type"), f"{side}_type",
                                     pa.array(new_types, pa.string()))
        write_table(shard.cast(TRIPLE_SCHEMA), file)
        if progress:
            progress(1)
    report.names_before, report.names_after = len(before), len(after)
    _write_aliases(triples, aliases, mapping)
    report.aliases = len(aliases)
    record_in_manifest(triples, "entities", {"version": ENTITIES_VERSION, "aliases": ALIASES_FILE, "report": {
        k: v for k, v in report.to_dict().items() if k != "version"}})
    return report


def _write_aliases(triples: Path, aliases: Counter[tuple[str, str, str, str]], mapping: CanonicalMap) -> None:
    """The corpus-wide alias table: every name as extracted that the pass renamed, with its mention count;
    corpus-level merges also under their base name (what a question names)."""
    rows: dict[tuple[str, str], tuple[str, int, str]] = {}
    for (alias, type_, canonical, rule), n in aliases.items():
        old = rows.get((alias, type_))
        # One canonical per alias and type: the one most of its mentions got (an in-article rule can differ).
        if old is None or n > old[1]:
            rows[(alias, type_)] = (canonical, n, rule)
    for (alias, type_), (canonical, _, rule) in mapping.corpus.items():
        rows.setdefault((alias, type_), (canonical, 0, rule))
    keys = sorted(rows)
    table = pa.table({"alias": [k[0] for k in keys], "type": [k[1] for k in keys],
                      "canonical": [rows[k][0] for k in keys], "mentions": [rows[k][1] for k in keys],
                      "rule": [rows[k][2] for k in keys]}, schema=ALIAS_SCHEMA)
    write_table(table, triples / ALIASES_FILE)


def read_aliases(triples: Path) -> pa.Table | None:
    """The alias table of a canonicalised dataset (None when the pass has not run)."""
    path = triples / ALIASES_FILE if triples.is_dir() else triples.parent / ALIASES_FILE
    return pq.read_table(path, schema=ALIAS_SCHEMA) if path.is_file() else None
