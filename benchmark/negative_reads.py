"""Negatives read by hand in their window: is each one most likely false although its positive is true?

The replacement reads (benchmark.hyponym_reads) judge a replacement out of context, for any participants of its
types. Readers who see the real participants and the date still find about a fifth of the negatives those reads
let through probably true: what they know of the participants ("chair of" the bank its chief executive also
chairs), or the way such participants typically act ("bought up" the bonds a central bank "bought"). These reads
judge each candidate negative itself, from its positive, its arguments and its date (never a corpus sentence):

- `F`: a more specific statement of the positive's meaning that may well be false although the positive is true;
- `T`: probably true whenever the positive is (a near-synonym, the typical way, or known of these participants);
- `O`: the new word is read in another meaning, or the negative makes no sense with these arguments.

Each candidate is named by a digest of its window, its argument pair, its positive's predicate and its own
predicate (`negative_key`): the file holds verdicts only, no names. Every candidate is read by two readers; the
`negative_read` filter (benchmark.negatives) keeps a candidate only when every read of it is `F`, and drops a
candidate never read. bench/negative_reads.py writes the reading sheet of a corpus' unread candidates and adds
the filled sheets to the file.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from benchmark.hyponym_reads import read_text, tsv_rows
from graph_builder.errors import InputError

READS_VERSION = "egqa.negative-reads.v1"
READS_PATH = Path(__file__).parent / "data" / "negative_reads.tsv"
VERDICTS = {"F": "may well be false", "T": "probably true", "O": "other meaning or no sense"}
COLUMNS = ("candidate", "reads")
KEY_LENGTH = 16


def negative_key(window: int, subj: str, obj: str, positive: str, candidate: str) -> str:
    """The digest that names one candidate negative of one positive in one window."""
    text = "\t".join((str(window), subj, obj, positive, candidate))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:KEY_LENGTH]


@dataclass(frozen=True)
class NegativeReads:
    """Every reader's verdict per candidate, with where they came from."""

    reads: Mapping[str, tuple[str, ...]]
    source: str
    sha256: str

    def keeps(self, key: str) -> bool | None:
        """Whether every read of the candidate is `F`; None when it was never read."""
        verdicts = self.reads.get(key)
        return None if verdicts is None else all(v == "F" for v in verdicts)

    def manifest(self) -> dict[str, object]:
        """What stats.json records: the version, the file's digest, the candidates read and the verdicts."""
        verdicts = Counter(v for vs in self.reads.values() for v in vs)
        return {"version": READS_VERSION, "sha256": self.sha256, "candidates": len(self.reads),
                "kept": sum(1 for vs in self.reads.values() if all(v == "F" for v in vs)),
                "verdicts": {v: verdicts.get(v, 0) for v in VERDICTS}}


def parse_negative_reads(text: str, source: str) -> NegativeReads:
    """Read the TSV (comment lines start with #; a header names COLUMNS); refuse a malformed line."""
    reads: dict[str, tuple[str, ...]] = {}
    for n, fields in tsv_rows(text, source, COLUMNS):
        key, joined = fields
        if len(key) != KEY_LENGTH or any(ch not in "0123456789abcdef" for ch in key):
            raise InputError(f"{source}:{n}: {key!r} is not a candidate digest ({KEY_LENGTH} hex digits)")
        verdicts = tuple(joined.split(","))
        bad = [v for v in verdicts if v not in VERDICTS]
        if bad:
            raise InputError(f"{source}:{n}: verdict(s) {', '.join(map(repr, bad))} not among {', '.join(VERDICTS)}")
        if key in reads:
            raise InputError(f"{source}:{n}: candidate {key} listed twice")
        reads[key] = verdicts
    return NegativeReads(reads, source, hashlib.sha256(text.encode("utf-8")).hexdigest())


@cache
def load_negative_reads(path: Path = READS_PATH) -> NegativeReads:
    """The reads shipped with egqa (or another file of the same format)."""
    return parse_negative_reads(read_text(path, "negative reads"), str(path))
