"""One contract for every evidence store: the same tests run on SQLite and on a real Elasticsearch."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import pyarrow as pa
import pytest

from graph_builder.errors import NotFoundError
from graph_builder.triples import ARTICLE_SCHEMA, TRIPLE_SCHEMA
from graph_builder.windows import window_of
from retrieval.protocol import Alias, EvidenceQuery, EvidenceStore, NameMatch, PredicateCount, TypeCount, summarise
from tests.retrieval.rows import article, triple

MAR3, MAR4, MAR5, MAR6, MAR9 = (dt.date(1987, 3, d) for d in (3, 4, 5, 6, 9))
W1, W2, W3 = window_of(MAR3), window_of(MAR6), window_of(MAR9)  # 2090, 2091, 2092

TRIPLES = [
    triple(1, MAR4, "john", "ikea", article="a1", sentence="a1:s1"),
    triple(2, MAR3, "ikea", "john", predicate="(hire.1,hire.2)", subj_type="organization",
           obj_type="person", article="a1", sentence="a1:s2"),
    triple(3, MAR4, "john", "ikea", predicate="(shop.1,shop.in.2)", article="a2", sentence="a2:s1",
           negated=True),
    triple(4, MAR4, "john", "john", obj_type="person", article="a2", sentence="a2:s2"),
    triple(5, MAR4, "ikea", "ikea", subj_type="organization", obj_type="organization", article="a2",
           sentence="a2:s3"),
    triple(6, MAR4, "john", "paris", article="a2", sentence="a2:s4"),
    triple(7, MAR6, "john", "ikea", article="a3", sentence="a3:s1"),
    triple(8, MAR4, "mary", "ikea", article="a2", sentence="a2:s1"),
]
ARTICLES = [article("a1", MAR4, 2), article("a2", MAR4, 5), article("a3", MAR6, 1),
            article("a9", MAR5, 0), article("a8", MAR9, 0)]


@pytest.fixture
def loaded(store: Any) -> Any:
    """A store holding the fixture triples and articles."""
    assert store.add_triples(TRIPLES) == len(TRIPLES)
    store.add_articles(ARTICLES)
    return store


def ids(items: list[Any]) -> list[str]:
    """Return the triple ids of evidence items, in order."""
    return [e.triple_id for e in items]


def test_store_satisfies_protocol(store: Any) -> None:
    """Every backend is an EvidenceStore by the runtime protocol check."""
    assert isinstance(store, EvidenceStore)


def test_evidence_both_orders_with_aligned_flag_sorted_by_date_then_id(loaded: Any) -> None:
    """(john, ikea) finds triples in either order of that window only, aligned when subj is john."""
    got = loaded.evidence(W1, "john", "ikea")
    assert ids(got) == ["t0002", "t0001", "t0003"]  # t0002 is dated Mar 3, the others Mar 4
    assert [e.aligned for e in got] == [False, True, True]
    flipped = loaded.evidence(W1, "ikea", "john")
    assert ids(flipped) == ids(got)
    assert [e.aligned for e in flipped] == [True, False, False]


def test_evidence_round_trips_every_field(loaded: Any) -> None:
    """An evidence item carries exactly the stored triple's fields, with Python types."""
    got = {e.triple_id: e for e in loaded.evidence(W1, "john", "ikea")}
    for row in TRIPLES:
        if row["triple_id"] in got:
            item = dataclasses.asdict(got[str(row["triple_id"])])
            aligned = item.pop("aligned")
            assert item == row
            assert aligned is (row["subj"] == "john")
    assert got["t0003"].negated is True and got["t0001"].negated is False
    assert isinstance(got["t0001"].date, dt.date) and isinstance(got["t0001"].window, int)


def test_evidence_excludes_other_pairs_windows_and_self_pairs(loaded: Any) -> None:
    """Pairs that share one argument, or repeat one argument, are not evidence."""
    assert ids(loaded.evidence(W2, "john", "ikea")) == ["t0007"]
    assert ids(loaded.evidence(W1, "john", "john")) == ["t0004"]
    assert ids(loaded.evidence(W1, "paris", "john")) == ["t0006"]
    assert loaded.evidence(W1, "john", "london") == []
    assert loaded.evidence(W3, "john", "ikea") == []  # window with articles but no triples
    assert loaded.evidence(99999, "john", "ikea") == []  # window (and year index) never seen


def test_exclude_sentence_ids_then_limit(loaded: Any) -> None:
    """Excluded sentences are dropped before the limit is applied."""
    assert ids(loaded.evidence(W1, "john", "ikea", exclude_sentence_ids=["a1:s2"])) == ["t0001", "t0003"]
    assert ids(loaded.evidence(W1, "john", "ikea", exclude_sentence_ids=("a1:s2",), limit=1)) == ["t0001"]
    assert ids(loaded.evidence(W1, "john", "ikea", limit=2)) == ["t0002", "t0001"]
    assert loaded.evidence(W1, "john", "ikea", limit=0) == []


def test_add_triples_is_idempotent_by_triple_id(loaded: Any) -> None:
    """Re-adding known triples adds nothing; a mixed batch adds only the new ones."""
    assert loaded.add_triples(TRIPLES) == 0
    new = triple(9, MAR4, "john", "ikea", article="a2", sentence="a2:s9")
    assert loaded.add_triples([*TRIPLES[:3], new, new]) == 1
    assert ids(loaded.evidence(W1, "john", "ikea")) == ["t0002", "t0001", "t0003", "t0009"]
    assert loaded.stats().triples == len(TRIPLES) + 1
    assert loaded.argument_types("mary") == [TypeCount("person", 1)]  # counts not inflated


def test_arrow_table_input_equals_mapping_input(store_factory: Any) -> None:
    """A pyarrow Table in the triple schema is stored exactly like the same rows as dicts."""
    from_dicts, from_table = store_factory(), store_factory()
    from_dicts.add_triples(TRIPLES)
    from_table.add_triples(pa.Table.from_pylist(TRIPLES, schema=TRIPLE_SCHEMA))
    from_table.add_articles(pa.Table.from_pylist(ARTICLES, schema=ARTICLE_SCHEMA))
    assert from_table.evidence(W1, "john", "ikea") == from_dicts.evidence(W1, "john", "ikea")


def test_windows_count_articles_without_triples(loaded: Any) -> None:
    """Window counts include articles that yielded no triple; dates come from the window id."""
    got = loaded.windows()
    assert [(w.id, w.articles, w.triples) for w in got] == [(W1, 3, 7), (W2, 1, 1), (W3, 1, 0)]
    assert (got[0].start, got[0].end) == (MAR3, MAR5)
    assert loaded.window(W3).articles == 1
    assert loaded.window(W1) == got[0]
    with pytest.raises(NotFoundError):
        loaded.window(W1 - 100)


def test_articles_known_only_from_triples_count(store: Any) -> None:
    """Without an article table, each article referenced by a triple counts once in its window."""
    store.add_triples(TRIPLES)
    assert [(w.id, w.articles, w.triples) for w in store.windows()] == [(W1, 2, 7), (W2, 1, 1)]
    store.add_articles(ARTICLES)  # the full rows replace the stubs, and add a9 and a8
    assert [(w.id, w.articles) for w in store.windows()] == [(W1, 3), (W2, 1), (W3, 1)]


def test_argument_types_most_frequent_first(loaded: Any) -> None:
    """Types count subject and object mentions; ties go by type name."""
    assert loaded.argument_types("ikea") == [TypeCount("location", 4), TypeCount("organization", 3)]
    assert loaded.argument_types("john") == [TypeCount("person", 7)]
    assert loaded.argument_types("nobody") == []


def test_stats_totals(loaded: Any) -> None:
    """Stats give the triple, article and window totals and the window range."""
    s = loaded.stats()
    assert (s.triples, s.articles, s.windows, s.first_window, s.last_window) == (8, 5, 3, W1, W3)
    assert s.backend == loaded.backend


def test_empty_store_answers_empty(store: Any) -> None:
    """A store with nothing in it answers every read with an empty result, not an error."""
    assert store.evidence(W1, "john", "ikea") == []
    assert store.evidence_many([EvidenceQuery(W1, "john", "ikea")]) == [[]]
    assert store.windows() == []
    assert store.argument_types("john") == []
    s = store.stats()
    assert (s.triples, s.articles, s.windows, s.first_window) == (0, 0, 0, None)


def test_evidence_many_matches_single_lookups_in_order(loaded: Any) -> None:
    """A batch gives, query by query, what single lookups give."""
    queries = [EvidenceQuery(W1, "john", "ikea"), EvidenceQuery(W2, "ikea", "john"),
               EvidenceQuery(W1, "nobody", "ikea"), EvidenceQuery(W1, "john", "ikea", ("a1:s1",), 1),
               EvidenceQuery(W1, "john", "john"), EvidenceQuery(W1, "john", "ikea", limit=0)]
    got = loaded.evidence_many(queries)
    assert got == [loaded.evidence(q.window, q.arg_a, q.arg_b, q.exclude_sentence_ids, q.limit) for q in queries]
    assert [ids(r) for r in got] == [["t0002", "t0001", "t0003"], ["t0007"], [], ["t0002"], ["t0004"], []]


def test_evidence_summary_groups_exactly_the_rows_of_evidence_many(loaded: Any) -> None:
    """The grouped lookup counts the very rows the full lookup returns: exclusions, limit and order included."""
    queries = [EvidenceQuery(W1, "john", "ikea"), EvidenceQuery(W2, "ikea", "john"),
               EvidenceQuery(W1, "nobody", "ikea"), EvidenceQuery(W1, "john", "ikea", ("a1:s1",), 1),
               EvidenceQuery(W1, "john", "ikea", ("a1:s1", "a2:s1")), EvidenceQuery(W1, "john", "john"),
               EvidenceQuery(W1, "john", "ikea", limit=0), EvidenceQuery(W1, "john", "ikea", limit=2)]
    got = loaded.evidence_summary(queries)
    assert got == [summarise((e.predicate, e.aligned) for e in r) for r in loaded.evidence_many(queries)]
    # Hand-checked: t0002 (hire, ikea first) then t0001 (visit, aligned) then t0003 (shop, aligned) by date.
    assert got[0] == [PredicateCount("(hire.1,hire.2)", False, 1), PredicateCount("(shop.1,shop.in.2)", True, 1),
                      PredicateCount(TRIPLES[0]["predicate"], True, 1)]
    assert got[3] == [PredicateCount("(hire.1,hire.2)", False, 1)]
    assert got[4] == [PredicateCount("(hire.1,hire.2)", False, 1)]
    assert got[7] == [PredicateCount("(hire.1,hire.2)", False, 1), PredicateCount(TRIPLES[0]["predicate"], True, 1)]
    assert got[2] == got[6] == []


def test_many_evidence_rows_for_one_pair_all_returned(store_factory: Any, backend: str) -> None:
    """A pair with more rows than one result page comes back complete and in order."""
    store = store_factory(page_size=100) if backend == "elasticsearch" else store_factory()
    rows = [triple(1000 + i, MAR4 if i % 2 else MAR3, "bank", "rate", article=f"b{i // 50}")
            for i in range(250)]
    assert store.add_triples(rows) == 250
    got = store.evidence(W1, "rate", "bank")
    expected = sorted(rows, key=lambda r: (r["date"], r["triple_id"]))
    assert ids(got) == [r["triple_id"] for r in expected]
    assert not any(e.aligned for e in got)
    assert ids(store.evidence(W1, "bank", "rate", limit=130)) == [r["triple_id"] for r in expected[:130]]
    many = store.evidence_many([EvidenceQuery(W1, "bank", "rate"), EvidenceQuery(W1, "bank", "rate", limit=5)])
    assert [len(r) for r in many] == [250, 5]
    summary = store.evidence_summary([EvidenceQuery(W1, "bank", "rate"), EvidenceQuery(W1, "rate", "bank", limit=130)])
    assert [[(g.aligned, g.count) for g in r] for r in summary] == [[(True, 250)], [(False, 130)]]


def test_names_for_finds_aliases_then_whole_word_prefixes_and_suffixes(store: Any) -> None:
    rows = [triple(1, MAR4, "barack obama", "hawaii"), triple(2, MAR4, "barack obama", "chicago"),
            triple(3, MAR4, "michelle obama", "paris"),
            triple(4, MAR4, "new jersey bell telephone", "newark", subj_type="organization"),
            triple(5, MAR4, "jersey bell", "newark", subj_type="organization"),  # not a whole-word prefix match
            triple(6, MAR4, "obamacare", "paris", subj_type="law"),  # no: "obama" is not a whole word of it
            triple(7, MAR4, "organization of petroleum exporting countries", "vienna", subj_type="organization"),
            triple(8, MAR4, "100% obama_fan", "paris")]  # LIKE's wildcards in a stored name match only themselves
    assert store.add_triples(rows) == len(rows)
    assert store.add_aliases([Alias("opec", "organization", "organization of petroleum exporting countries", 12),
                              Alias("obama", "person", "barack obama", 40),
                              Alias("gone", "person", "a name the store does not hold", 3)]) == 3
    assert store.names_for("obama") == [NameMatch("barack obama", "person", 2, "alias"),
                                        NameMatch("barack obama", "person", 2, "suffix"),
                                        NameMatch("michelle obama", "person", 1, "suffix")]
    assert store.names_for("new jersey bell") == [NameMatch("new jersey bell telephone", "organization", 1, "prefix")]
    assert store.names_for("opec") == [NameMatch("organization of petroleum exporting countries", "organization",
                                                 1, "alias")]
    assert store.names_for("gone") == [] and store.names_for("hawaii") == []
    # A surname the recogniser typed a company, merged into the person (canonical-entities.v2): the alias keeps its
    # own type and finds the canonical name the store holds as a person.
    store.add_aliases([Alias("draghi", "organization", "barack obama", 5)])
    assert store.names_for("draghi") == [NameMatch("barack obama", "organization", 2, "alias")]
    assert store.names_for("obama_fan") == [NameMatch("100% obama_fan", "person", 1, "suffix")]
    assert store.names_for("%") == [] and store.names_for("obama fan") == []
    # `rules` asks for some kinds only, each answered as in the whole answer.
    for name in ("obama", "new jersey bell", "opec"):
        for rules in (("alias",), ("prefix", "suffix"), ("suffix",), ()):
            assert store.names_for(name, rules=rules) == [m for m in store.names_for(name) if m.how in rules]
    # Re-adding an alias replaces it; dropping the store forgets them.
    store.add_aliases([Alias("obama", "person", "michelle obama", 1)])
    assert store.names_for("obama")[0] == NameMatch("michelle obama", "person", 1, "alias")
    store.drop()
    assert store.names_for("obama") == []


def test_lookup_by_days_reads_every_window_holding_them(loaded: Any) -> None:
    """With `days`, a lookup gives the pair's triples dated in those days, whichever windows hold them: Mar 4 .. 6
    reaches from W1 into W2 and leaves out W1's Mar 3; summaries count exactly those rows."""
    across = EvidenceQuery(W1, "john", "ikea", days=(MAR4, MAR6))
    inside = EvidenceQuery(W1, "ikea", "john", days=(MAR3, MAR3))
    limited = EvidenceQuery(W2, "john", "ikea", ("a1:s1",), 1, days=(MAR4, MAR6))
    nothing = EvidenceQuery(W3, "john", "ikea", days=(MAR9, dt.date(1987, 3, 11)))
    got = loaded.evidence_many([across, inside, limited, nothing])
    assert [ids(r) for r in got] == [["t0001", "t0003", "t0007"], ["t0002"], ["t0003"], []]
    assert [e.aligned for e in got[0]] == [True, True, True] and got[1][0].aligned is True
    summaries = loaded.evidence_summary([across, inside, limited, nothing])
    assert summaries == [summarise((e.predicate, e.aligned) for e in r) for r in got]
    assert summaries[0] == [PredicateCount("(shop.1,shop.in.2)", True, 1), PredicateCount(TRIPLES[0]["predicate"], True, 2)]


def test_lookup_by_days_across_a_new_year(store: Any) -> None:
    """Days from Dec 31 to Jan 1 read two windows and, on Elasticsearch, two yearly indices."""
    dec31, jan1, jan2 = dt.date(1989, 12, 31), dt.date(1990, 1, 1), dt.date(1990, 1, 2)
    assert window_of(dec31) != window_of(jan1)
    store.add_triples([triple(20, dec31, "john", "ikea"), triple(21, jan1, "ikea", "john"),
                       triple(22, jan2, "john", "ikea")])
    [got] = store.evidence_many([EvidenceQuery(window_of(jan1), "john", "ikea", days=(dec31, jan1))])
    assert ids(got) == ["t0020", "t0021"]
    assert store.evidence_summary([EvidenceQuery(window_of(jan1), "john", "ikea", days=(dec31, jan1))]) == [
        [PredicateCount(TRIPLES[0]["predicate"], True, 1), PredicateCount(TRIPLES[0]["predicate"], False, 1)]]


def test_window_names_count_each_named_argument_of_the_window_or_days(store: Any) -> None:
    """The names of a window's triples (subjects and objects, common nouns left out), most named first with ties by
    name then type; with `days`, those of the triples dated in them, whichever windows hold them; at most `limit`."""
    rows = [triple(1, MAR4, "john", "ikea", obj_type="organization"), triple(2, MAR3, "ikea", "paris",
                                                                             subj_type="organization"),
            triple(3, MAR4, "john", "tanker", obj_type="thing"), triple(4, MAR4, "ikea", "ikea", subj_type="person"),
            triple(5, MAR6, "mary", "john", obj_type="person"), triple(6, MAR9, "zoe", "rome")]
    assert store.add_triples(rows) == len(rows)
    assert store.window_names(W1) == [NameMatch("ikea", "organization", 2, "window"),
                                      NameMatch("john", "person", 2, "window"),
                                      NameMatch("ikea", "location", 1, "window"),
                                      NameMatch("ikea", "person", 1, "window"),
                                      NameMatch("paris", "location", 1, "window")]
    assert store.window_names(W1, days=(MAR4, MAR6)) == [
        NameMatch("john", "person", 3, "window"), NameMatch("ikea", "location", 1, "window"),
        NameMatch("ikea", "organization", 1, "window"), NameMatch("ikea", "person", 1, "window"),
        NameMatch("mary", "person", 1, "window")]
    assert store.window_names(W1, limit=1) == [NameMatch("ikea", "organization", 2, "window")]
    assert store.window_names(W1, limit=0) == [] and store.window_names(99999) == []
    assert store.window_names(W3) == [NameMatch("rome", "location", 1, "window"),
                                      NameMatch("zoe", "person", 1, "window")]


def test_the_common_noun_type_is_the_extractors() -> None:
    """`window_names` leaves out the extractor's common-noun type by the protocol's own name for it."""
    from graph_builder.extraction.arguments import UNKNOWN_TYPE
    from retrieval.protocol import COMMON_NOUN_TYPE
    assert COMMON_NOUN_TYPE == UNKNOWN_TYPE
