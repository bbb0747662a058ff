"""Hyponym replacements read by hand, out of context: which ones make the intended negative.

WordNet files under a word's sense hyponyms that a news reader takes in another meaning ("sold" -> "pushed",
"bought" -> "took", "cut" jobs -> "tapped") or as the same event told otherwise ("posted" a profit ->
"registered"). Disambiguating the replaced word in its sentence (`benchmark.senses`) does not help with the
first kind, since the hyponym is of the right sense and is still read in its common one.

Each read names a replacement: the replaced word and part of speech, the hyponym synset, the lemma put in the
replaced word's place, the argument types it was read for (`*` for any), and a verdict, given from the words,
the synset's gloss and the predicate's typical texts and argument types (never a corpus sentence):

- `S`: a more specific statement of the same meaning, that can well be false when the positive is true;
- `Y`: a near-synonym, usually true when the positive is;
- `O`: read in another meaning than the positive's typical one in the news;
- `X`: no sense with these arguments.

A read for the candidate's own types (`organization,organization`) overrides the read for any types: "bought"
-> "took over" is a more specific statement for a thing bought, and the same event for a company bought.

The `hyponym_read` negative filter (benchmark.negatives) keeps a candidate only when its replacement was
read `S`; a replacement never read is dropped. The reads cover the commonest replacements of a corpus;
bench/hyponym_reads.py lists the ones a corpus still needs, by how many candidates they make.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from graph_builder.errors import InputError

READS_VERSION = "egqa.hyponym-reads.v1"
READS_PATH = Path(__file__).parent / "data" / "hyponym_reads.tsv"
VERDICTS = {"S": "specific", "Y": "near-synonym", "O": "other meaning", "X": "no sense"}
COLUMNS = ("replaced", "pos", "synset", "lemma", "types", "verdict")
ANY_TYPES = "*"

# replaced word, part of speech, hyponym synset, lemma put in its place, argument types ("subj,obj" or "*")
Replacement = tuple[str, str, str, str, str]


@dataclass(frozen=True)
class HyponymReads:
    """Verdicts on replacements, with where they came from."""

    verdicts: Mapping[Replacement, str]
    source: str
    sha256: str

    def verdict(self, replaced: str, pos: str, synset: str, lemma: str,
                types: tuple[str, str] | None = None) -> str | None:
        """The verdict on one replacement for these argument types (else for any), or None when never read."""
        if types is not None:
            typed = self.verdicts.get((replaced, pos, synset, lemma, ",".join(types)))
            if typed is not None:
                return typed
        return self.verdicts.get((replaced, pos, synset, lemma, ANY_TYPES))

    def manifest(self) -> dict[str, object]:
        """What stats.json records: the version, the file's digest and how many reads of each verdict."""
        counts = {v: sum(1 for x in self.verdicts.values() if x == v) for v in VERDICTS}
        return {"version": READS_VERSION, "sha256": self.sha256, "reads": len(self.verdicts), "verdicts": counts}


def tsv_rows(text: str, source: str, columns: tuple[str, ...]) -> list[tuple[int, list[str]]]:
    """The (line number, fields) of a reads TSV: comment lines start with #, the first other line is the header
    naming `columns`; a line with another number of fields is refused with its number."""
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip() and not line.startswith("#")]
    header = "\t".join(columns)
    if not lines or lines[0][1] != header:
        raise InputError(f"{source}: the first line that is not a comment must be the header {header!r}")
    rows = []
    for n, line in lines[1:]:
        fields = line.split("\t")
        if len(fields) != len(columns):
            raise InputError(f"{source}:{n}: expected {len(columns)} tab-separated fields, got {len(fields)}")
        rows.append((n, fields))
    return rows


def read_text(path: Path, what: str) -> str:
    """A reads file's text, or an InputError naming `what` could not be read."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the {what} {path}: {exc}") from exc


def parse_reads(text: str, source: str) -> HyponymReads:
    """Read the TSV (comment lines start with #; a header names COLUMNS); refuse a malformed line."""
    verdicts: dict[Replacement, str] = {}
    for n, fields in tsv_rows(text, source, COLUMNS):
        replaced, pos, synset, lemma, types, verdict = fields
        if verdict not in VERDICTS:
            raise InputError(f"{source}:{n}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
        if types != ANY_TYPES and len(types.split(",")) != 2:
            raise InputError(f"{source}:{n}: types {types!r} must be {ANY_TYPES!r} or 'subject type,object type'")
        key = (replaced, pos, synset, lemma, types)
        if verdicts.get(key, verdict) != verdict:
            raise InputError(f"{source}:{n}: {' '.join(key)} read twice with different verdicts")
        verdicts[key] = verdict
    return HyponymReads(verdicts, source, hashlib.sha256(text.encode("utf-8")).hexdigest())


@cache
def load_reads(path: Path = READS_PATH) -> HyponymReads:
    """The reads shipped with egqa (or another file of the same format)."""
    return parse_reads(read_text(path, "hyponym reads"), str(path))
