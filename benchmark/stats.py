"""What a benchmark build produced and how: typed statistics, written as stats.json and printed as a table."""

from __future__ import annotations

from dataclasses import dataclass, field

from graph_builder.tables import render, table

Buckets = dict[str, dict[str, int]]  # frequency bucket "[low,high)" -> {"positives": n, "negatives": n}


def _share(positives: int, total: int) -> float | None:
    return positives / total if total else None


@dataclass(frozen=True)
class SplitStats:
    """One split (dev or test): the windows it was drawn from and the propositions it holds."""

    window_ids: list[int]
    dates: list[str] | None  # first and last date of its positives
    articles: int
    candidate_windows: int
    candidate_bundles: int
    bundles: int
    positives: int
    negatives: int
    buckets: Buckets

    @property
    def windows(self) -> int:
        """Windows the chosen bundles come from."""
        return len(self.window_ids)

    @property
    def xi(self) -> float | None:
        """Share of positives among the propositions (None when there are none)."""
        return _share(self.positives, self.positives + self.negatives)

    def to_dict(self) -> dict[str, object]:
        """The split as stats.json writes it."""
        return {"windows": self.windows, "window_ids": self.window_ids, "dates": self.dates,
                "articles": self.articles, "candidate_windows": self.candidate_windows,
                "candidate_bundles": self.candidate_bundles, "bundles": self.bundles, "positives": self.positives,
                "negatives": self.negatives, "xi": self.xi, "buckets": self.buckets}


@dataclass(frozen=True)
class SenseStats:
    """How the replaced spans' senses were chosen, and what that cost."""

    chooser: str
    version: str
    spans: int = 0
    spans_with_a_sense: int = 0
    bundles_left_without_negative: int = 0


@dataclass(frozen=True)
class BenchmarkStats:
    """The statistics of a built benchmark: splits, the counts of every step, and the thresholds used."""

    builder: str
    senses: SenseStats
    filter_order: list[str]
    filter_removed: dict[str, int]  # probably-true negatives removed, per filter
    fragment_positives: int
    bundles_before_senses: int
    splits: dict[str, SplitStats]
    graph_split: str
    graph_dates: list[str] | None
    dropped_straddling_windows: list[int]
    starring_pairs: int
    felicitous_predicates: int
    positives_available: int
    candidate_bundles: int
    thresholds: dict[str, object]
    triples: str | None = field(default=None)  # the triples dataset read, once written beside the files
    hyponym_reads: dict[str, object] | None = field(default=None)  # the reads the hyponym_read filter used
    negative_reads: dict[str, object] | None = field(default=None)  # the reads the negative_read filter used
    detached_positives: int = 0  # positives dropped as not one run of words of their sentence

    @property
    def windows(self) -> int:
        """Windows over both splits."""
        return sum(s.windows for s in self.splits.values())

    @property
    def positives(self) -> int:
        """Positives over both splits."""
        return sum(s.positives for s in self.splits.values())

    @property
    def negatives(self) -> int:
        """Negatives over both splits."""
        return sum(s.negatives for s in self.splits.values())

    @property
    def xi(self) -> float | None:
        """Share of positives over both splits."""
        return _share(self.positives, self.positives + self.negatives)

    def to_dict(self) -> dict[str, object]:
        """The statistics as stats.json holds them."""
        out: dict[str, object] = {
            "builder": self.builder,
            "senses": {"chooser": self.senses.chooser, "version": self.senses.version, "spans": self.senses.spans,
                       "spans_with_a_sense": self.senses.spans_with_a_sense,
                       "bundles_left_without_negative": self.senses.bundles_left_without_negative},
            "negative_filters": {"order": self.filter_order, "removed": self.filter_removed},
            "fragment_positives": self.fragment_positives,
            "detached_positives": self.detached_positives,
            "bundles_before_senses": self.bundles_before_senses,
            "windows": self.windows,
            "positives": self.positives,
            "negatives": self.negatives,
            "xi": self.xi,
            "splits": {name: s.to_dict() for name, s in self.splits.items()},
            "graph_period": {"split": self.graph_split, "dates": self.graph_dates},
            "dropped_straddling_windows": self.dropped_straddling_windows,
            "starring_pairs": self.starring_pairs,
            "felicitous_predicates": self.felicitous_predicates,
            "positives_available": self.positives_available,
            "candidate_bundles": self.candidate_bundles,
            "thresholds": self.thresholds,
        }
        if self.hyponym_reads is not None:
            out["hyponym_reads"] = self.hyponym_reads
        if self.negative_reads is not None:
            out["negative_reads"] = self.negative_reads
        if self.triples is not None:
            out["triples"] = self.triples
        return out

    def table(self) -> str:
        """The splits as a text table: dates, windows, bundles, positives, negatives and share true (xi)."""
        numbers = ("windows", "bundles", "positives", "negatives", "xi")
        rows = [(name, " .. ".join(s.dates) if s.dates else "-", f"{s.windows:,}", f"{s.bundles:,}",
                 f"{s.positives:,}", f"{s.negatives:,}", _xi(s.xi)) for name, s in self.splits.items()]
        rows.append(("all", "", f"{self.windows:,}", f"{sum(s.bundles for s in self.splits.values()):,}",
                     f"{self.positives:,}", f"{self.negatives:,}", _xi(self.xi)))
        return render(table(("split", "dates", *numbers), right=numbers, rows=rows))

    def summary(self) -> str:
        """One line on the senses chosen, fragment positives dropped and probably-true negatives removed."""
        removed = ", ".join(f"{name} {n:,}" for name, n in self.filter_removed.items()) or "none"
        reads = self.hyponym_reads or {}
        unread = int(reads.get("never_read", 0))  # type: ignore[call-overload]
        hint = (f"; {unread:,} of the {int(reads['replacements_in_candidates']):,} replacements the candidates use were "  # type: ignore[call-overload]
                "never read by hand and gave no negative (python bench/hyponym_reads.py TRIPLES --sheet F lists "
                "them)") if unread else ""
        checked = self.negative_reads or {}
        unchecked = int(checked.get("never_read", 0))  # type: ignore[call-overload]
        hint += (f"; {unchecked:,} of the {int(checked['candidates_asked']):,} candidate negatives were never read "  # type: ignore[call-overload]
                 "by hand and were dropped (python bench/negative_reads.py sheet TRIPLES F lists them)") if unchecked else ""
        return (f"senses ({self.senses.chooser}): {self.senses.spans_with_a_sense:,} of {self.senses.spans:,} spans "
                f"got a sense; fragment positives dropped: {self.fragment_positives:,}, detached ones "
                f"{self.detached_positives:,}; negatives removed as "
                f"probably true: {removed}{hint}")


def _xi(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
