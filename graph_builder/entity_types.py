"""One type per name across a corpus: the majority of its recognised mentions, or a company's legal form.

The entity recogniser types each mention on its own, so one company comes out an organisation in one
sentence and a person or a location in the next, and a proper name it missed is typed `thing`. After
extraction, every capitalised mention of a name takes one type for the name:

- the names of one company vote together: "Pfizer Inc" and "Pfizer" are one name here (its form without the
  legal form, `graph_builder.entities.company_name`), as the canonical-entities pass will make them;
- a mention written with a company's legal form is an organisation; so is a name written with one in at least
  MIN_LEGAL_MENTIONS of its capitalised mentions, and in at least MIN_LEGAL_SHARE of them. The small recogniser
  types bare company names by their look: "Pfizer" a person 585 times against 323 organisations (all of them
  "Pfizer Inc"), "FedEx", "Netflix" and "Halliburton" places, "Berkshire Hathaway Inc" a building; the legal form
  is what the writer says the name is;
- (v5) so is a name the copy writes right before a stock ticker ("Glencore ( GLEN.L )", "Xstrata XTA.L") at least
  MIN_LISTED_MENTIONS times and in at least MIN_LISTED_SHARE of its capitalised mentions, keeping to one symbol in
  at least MIN_TICKER_AGREEMENT of them: the ticker says it is a listed company. The recogniser had typed
  `glencore` a person and `xstrata`, `verizon`, `nestle`, `gazprom` places over the whole 2006-2013 corpus. The names
  are counted from the raw copy while extraction reads it (`graph_builder.news.listed_names`) and kept in
  `listed.parquet`; the capitalised words before the ticker count for the name they are, or lead to after words
  that only describe it ("Swiss-based Xstrata", "Spain's Bankia"), never for a name inside them ("Air China");
- any other name takes the type most of its typed mentions have (ties to the alphabetically first type);
- a mention the recogniser left untyped takes its company's type when its own name is one: typed in some of its
  own mentions, and written capitalised at least COMMON_NOUN_RATIO times as often as in lower case (v4; "Facebook",
  untyped in 1,049 mentions of the 2006-2013 corpus, had taken its own mentions' majority, a location, while the
  1,387 it typed were organisations). Else it takes its own name's majority: a capitalised common noun ("Investor",
  "Oil", "Research", each more often a lower-case argument) or a word never recognised ("News", "No") is not made
  a company by "Investor AB", "Oil Corp" or "News Corp" (`NameTypes.of`).

Common nouns (lowercase surface) keep `thing`: "the bank" is not "Bank".
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from graph_builder.entities import company_name, names_path
from graph_builder.errors import InputError
from graph_builder.extraction.arguments import UNKNOWN_TYPE
from graph_builder.triples import TRIPLE_SCHEMA, kept_beside, read_beside, record_in_manifest, shard_files, write_table

TYPES_FILE = "entity_types.parquet"
TYPES_VERSION = "egqa.majority-types.v5"
LISTED_FILE = "listed.parquet"  # names written before a ticker, with the ticker's symbol and their counts
RECOGNISED_SCHEMA = pa.schema([
    pa.field("triple_id", pa.string(), nullable=False),
    pa.field("subj_type", pa.string(), nullable=False),
    pa.field("obj_type", pa.string(), nullable=False),
])
MIN_LEGAL_MENTIONS = 2
MIN_LEGAL_SHARE = 0.1
COMMON_NOUN_RATIO = 2  # capitalised mentions per lower-case one for an untyped mention to be a name
MIN_LISTED_MENTIONS = 2
MIN_LISTED_SHARE = 0.01  # of the name's capitalised mentions: "New York" stands before a ticker 17 times in 3,983
MIN_TICKER_AGREEMENT = 0.5
_DESCRIBING_RE = re.compile(r"[\w.]+-(?:based|listed|owned|controlled|headquartered|registered|backed|run)")


@dataclass
class TypeReport:
    """What harmonising did: names typed, mentions whose type changed, by (old, new) type."""

    version: str = TYPES_VERSION
    names: int = 0
    mentions: int = 0
    changed: int = 0
    changes: dict[str, int] = field(default_factory=dict)
    listed: int = 0  # names made organisations by their tickers (not already by a legal form)

    def to_dict(self) -> dict[str, object]:
        """Return the report as JSON-ready data."""
        return asdict(self)


def _capitalised(texts: pa.ChunkedArray | pa.Array) -> pa.Array:
    first = pc.utf8_slice_codeunits(texts, 0, 1)
    return pc.and_(pc.equal(first, pc.utf8_upper(first)), pc.not_equal(first, pc.utf8_lower(first)))


@lru_cache(maxsize=1 << 18)
def has_legal_form(surface: str) -> bool:
    """Whether a mention is written with a company's legal form or group word ("Pfizer Inc", "Goldman Sachs
    Group")."""
    text = surface.lower()
    return company_name(text) != text


@dataclass(frozen=True)
class NameTypes:
    """The type of each capitalised name, decided over its company's names or over its own mentions."""

    company: dict[str, str]  # with its company's names (legal forms dropped) pooled
    own: dict[str, str]      # the majority of the name's own typed mentions
    common: frozenset[str] = frozenset()  # names written in lower case too often for an untyped mention to be a name
    by_ticker: frozenset[str] = frozenset()  # names an organisation by their tickers, which their votes were not

    def of(self, name: str, surface: str, type_: str) -> str:
        """The type one mention takes: an organisation when written with a legal form; else its company's type,
        unless the recogniser left it untyped and its name is a common noun or was never recognised: then its own
        name's majority (pooled, a capitalised "Oil" or "News" would take the type of "Oil Corp" or "News Corp"); a
        mention in lower case (a common noun) keeps its own."""
        if not is_capitalised(surface):
            return type_
        if has_legal_form(surface):
            return "organization"
        if type_ == UNKNOWN_TYPE and (name not in self.own or name in self.common):
            return self.own.get(name, type_)
        return self.company.get(name, type_)


def _majority(votes: Counter[str]) -> str:
    # Ties go to the alphabetically first type, so the result never depends on row order.
    return min(votes.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def write_listed(triples: Path, listed: Mapping[tuple[str, str], int]) -> None:
    """Keep the names written before a ticker, with the ticker's symbol and how often, beside the dataset's shards."""
    pairs = sorted(listed)
    write_table(pa.table({"name": pa.array([n for n, _ in pairs], pa.string()),
                          "ticker": pa.array([t for _, t in pairs], pa.string()),
                          "mentions": pa.array([listed[p] for p in pairs], pa.int64())}), triples / LISTED_FILE)


def read_listed(triples: Path) -> dict[tuple[str, str], int]:
    """The names written before a ticker, as `write_listed` kept them (none for a dataset extracted before v5)."""
    path = triples / LISTED_FILE
    if not path.is_file():
        return {}
    table = pq.read_table(path)
    return {(name, ticker): n for name, ticker, n in zip(
        table["name"].to_pylist(), table["ticker"].to_pylist(), table["mentions"].to_pylist(), strict=True)}


def listed_companies(listed: Mapping[tuple[str, str], int], names: Iterable[str],
                     places: frozenset[str] = frozenset()) -> Counter[str]:
    """How many ticker mentions each company of `names` (their forms without legal forms) has, counting only names
    that keep to one symbol in at least MIN_TICKER_AGREEMENT of them: a company has its ticker, a place before
    tickers ("traded in Frankfurt ( AAPL.F )", "( SYMC.F )") has many. A run counts for itself ("bank of america
    corp" for `bank of america`), or, after words that only describe the company, for the name they lead to:
    "swiss-based xstrata plc" (a `-based`, `-listed`, `-owned` ... word) and "spain's bankia" (the possessive of one
    of `places`) for `xstrata` and `bankia`. Never for a name inside another ("air china", "boeing's dreamliner",
    "uni-president china holdings"): the ticker is the whole run's."""
    known = {company_name(n) for n in names}
    symbols: dict[str, Counter[str]] = defaultdict(Counter)
    for (run, ticker), n in listed.items():
        words = run.split()
        for start in range(len(words)):
            key = company_name(" ".join(words[start:]))
            if key in known:
                symbols[key][ticker] += n
                break
            if not _describes(words[start], places):
                break
    votes: Counter[str] = Counter()
    for key, tickers in symbols.items():
        total = sum(tickers.values())
        if max(tickers.values()) >= MIN_TICKER_AGREEMENT * total:
            votes[key] = total
    return votes


def _describes(word: str, places: frozenset[str]) -> bool:
    """A word before a company's name that only describes it: "swiss-based", "state-owned", "spain's"."""
    if _DESCRIBING_RE.fullmatch(word):
        return True
    owner = word.removesuffix("'s").removesuffix("’s")
    return owner != word and owner in places


def majority_types(table: pa.Table, listed: Mapping[tuple[str, str], int] | None = None) -> NameTypes:
    """Type each capitalised name: organisation when its company's mentions carry a legal form often enough, or
    when the copy writes it before a ticker often enough (`listed`), else the type most of its recognised
    (non-`thing`) mentions have."""
    own: dict[str, Counter[str]] = defaultdict(Counter)
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    capitalised: Counter[str] = Counter()  # by company
    written: Counter[str] = Counter()      # by name
    legal: Counter[str] = Counter()
    names: dict[str, str] = {}
    lower: Counter[str] = Counter()
    for side in ("subj", "obj"):
        part = table.select([side, f"{side}_text", f"{side}_type"])
        capital = _capitalised(part[f"{side}_text"])
        common = part.filter(pc.invert(capital)).group_by([side]).aggregate([([], "count_all")])
        lower.update(dict(zip(common[side].to_pylist(), common["count_all"].to_pylist())))
        part = part.filter(capital)
        counts = part.group_by([side, f"{side}_text", f"{side}_type"]).aggregate([([], "count_all")])
        for name, text, kind, n in zip(counts[side].to_pylist(), counts[f"{side}_text"].to_pylist(),
                                       counts[f"{side}_type"].to_pylist(), counts["count_all"].to_pylist()):
            key = names.setdefault(name, company_name(name))
            capitalised[key] += n
            written[name] += n
            if kind != UNKNOWN_TYPE:
                votes[key][kind] += n
                own[name][kind] += n
            if has_legal_form(text):
                legal[key] += n
    places = frozenset(key for key, kinds in votes.items() if kinds and _majority(kinds) == "location")
    tickers = listed_companies(listed or {}, capitalised, places)
    types: dict[str, str] = {}
    by_ticker: set[str] = set()
    for key, n in capitalised.items():
        if legal[key] >= MIN_LEGAL_MENTIONS and legal[key] >= MIN_LEGAL_SHARE * n:
            types[key] = "organization"
        elif tickers[key] >= MIN_LISTED_MENTIONS and tickers[key] >= MIN_LISTED_SHARE * n:
            types[key] = "organization"
            if not votes[key] or _majority(votes[key]) != "organization":
                by_ticker.add(key)
        elif votes[key]:
            types[key] = _majority(votes[key])
    company = {name: "organization" if key != name else types[key] for name, key in names.items() if key in types}
    common = frozenset(name for name in own if lower[name] * COMMON_NOUN_RATIO > written[name])
    # A company's other names (legal forms) are organisations either way: only the name itself counts.
    listed_names = frozenset(name for name, key in names.items() if key == name and key in by_ticker)
    return NameTypes(company, {name: _majority(c) for name, c in own.items()}, common, listed_names)


def is_capitalised(surface: str) -> bool:
    """Whether a mention starts with a capital letter (a name, not a common noun)."""
    first = surface[:1]
    return bool(first) and first == first.upper() and first != first.lower()


def recognised_path(shard: Path) -> Path:
    """The side file that keeps a shard's mention types as the recogniser gave them, before any typing."""
    return shard.with_name(f"recognised-{shard.stem.removeprefix('part-')}.parquet")


def _recognised_types(shard: Path, table: pa.Table) -> pa.Table:
    """The mention types as recognised: the side file once typing has run, else the shard's own columns. A dataset
    typed before the side file existed keeps the types it had when first typed again."""
    return kept_beside(shard, recognised_path(shard), table, RECOGNISED_SCHEMA)


def _as_extracted(file: Path, table: pa.Table) -> pa.Table:
    """The shard's columns with the mention names and types as extracted: once the canonical-entities pass has
    run, the names are kept beside the shard, and the types once typing has; typing votes on them, so that it types
    alike before and after either pass, and any number of times."""
    recognised = _recognised_types(file, table)
    for column in ("subj_type", "obj_type"):
        table = table.set_column(table.schema.get_field_index(column), column, recognised[column])
    names = read_beside(file, names_path(file), table)
    if names is None:
        return table
    for column in ("subj", "obj"):
        table = table.set_column(table.schema.get_field_index(column), column, names[column])
    return table


def _retype(table: pa.Table, extracted: pa.Table, types: NameTypes, report: TypeReport) -> pa.Table:
    for side in ("subj", "obj"):
        names = extracted[side].to_pylist()
        recognised = extracted[f"{side}_type"].to_pylist()
        old = table[f"{side}_type"].to_pylist()
        texts = table[f"{side}_text"].to_pylist()
        new = []
        for name, text, given, kind in zip(names, texts, recognised, old, strict=True):
            target = types.of(name, text, given)
            report.mentions += 1
            if target != kind:
                report.changed += 1
                key = f"{kind}->{target}"
                report.changes[key] = report.changes.get(key, 0) + 1
            new.append(target)
        table = table.set_column(table.schema.get_field_index(f"{side}_type"), f"{side}_type",
                                 pa.array(new, pa.string()))
    return table


def harmonise_types(triples: Path) -> TypeReport:
    """Give every capitalised mention of a name its majority type, rewriting each shard atomically.

    It votes on the names and types as extracted (the types kept in `recognised-*.parquet` by its first run, the
    names in `names-*.parquet` by the canonical-entities pass), so a second run gives the same types, also after
    `egqa entities`, and `egqa types` then `egqa entities` give what extraction gave. (v2 voted on the types the last
    run had written: run again after `egqa entities` it re-typed 0.28% of the 2006-2013 corpus' mentions, and the
    frozen benchmark's test AP_norm fell by a point, its `draghi` typed an organisation no longer found.) Only
    `egqa entities` changes types beyond it (a surname typed otherwise takes its person's type), and a run of this
    pass alone after it undoes that until `egqa entities` runs again. The name -> type map is written to
    `entity_types.parquet`.
    """
    files = shard_files(triples)
    if not files:
        raise InputError(f"{triples} holds no triple shards (run `egqa extract` first)")
    columns = ["triple_id", "subj", "subj_text", "subj_type", "obj", "obj_text", "obj_type"]
    table = pa.concat_tables(_as_extracted(f, pq.read_table(f, columns=columns)) for f in files)
    listed = read_listed(triples)
    types = majority_types(table, listed)
    del table
    report = TypeReport(names=len(types.company), listed=len(types.by_ticker))
    for file in files:
        shard = pq.read_table(file, schema=TRIPLE_SCHEMA)
        changed_before = report.changed
        # The cast keeps the not-null fields of the schema.
        shard = _retype(shard, _as_extracted(file, shard), types, report).cast(TRIPLE_SCHEMA)
        if report.changed != changed_before:
            write_table(shard, file)
    names = sorted(types.company)
    write_table(pa.table({"name": names, "type": [types.company[n] for n in names]}), triples / TYPES_FILE)
    record_in_manifest(triples, "types", {"version": TYPES_VERSION, "names": TYPES_FILE, "report": {
        k: v for k, v in report.to_dict().items() if k != "version"}})
    return report
