"""The benchmark builder on small synthetic triples whose positives and negatives are known by hand."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import orjson
import pyarrow as pa
import pytest

from benchmark.build import (
    build_benchmark,
    build_benchmark_files,
    BuildConfig,
    Bundle,
    candidate_negatives,
    CAP_KEYS,
    _choose_negatives,
    commonest_forward_text,
    hyponym_candidates,
    NegativeCandidate,
    parse_predicate,
    predicate_key,
    read_jsonl,
    reads_forward,
    recipe_config,
    RECIPES,
    _sample_bundles,
)
from benchmark.wordnet import DEBIAN_WORDNET_DIR, INSTALL_HINT
from graph_builder.errors import InputError
from graph_builder.triples import TRIPLE_SCHEMA, shard_path, write_shard
from graph_builder.windows import window_of


class FakeLexicon:
    """A WordNet stand-in whose hyponyms and synonyms are spelled out here."""

    HYPONYMS = {
        ("visit", "v"): (("drop_by.v.01", ("drop by", "drop in")), ("sightsee.v.01", ("sightsee",))),
        ("go", "v"): (("drive.v.02", ("drive",)),),
        ("buy", "v"): (("repurchase.v.01", ("repurchase",)),),
        ("game", "n"): (("practice_game.n.01", ("practice game",)),),
    }
    SYNONYMS = {("drive", "v"): ["motor"], ("sightsee", "v"): [], ("repurchase", "v"): []}
    KNOWN = {("visit", "v"), ("go", "v"), ("buy", "v"), ("play", "v"), ("game", "n"), ("motor", "v"),
             ("drive", "v"), ("sightsee", "v"), ("repurchase", "v")}

    def has(self, phrase: str, pos: str) -> bool:
        return (phrase, pos) in self.KNOWN

    def hyponym_sets(self, phrase: str, pos: str, depth: int = 1,
                     max_senses: int | None = None) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return self.HYPONYMS.get((phrase, pos), ())

    def synonyms(self, phrase: str, pos: str) -> list[str]:
        return self.SYNONYMS.get((phrase, pos), [])


TRAIN_DAY = dt.date(1987, 3, 2)
DEV_DAY = dt.date(1987, 4, 20)
TEST_DAY = dt.date(1987, 5, 20)
FELICITOUS = ["(visit.1,visit.2)", "(sightsee.1,sightsee.2)", "(drop_by.1,drop_by.2)", "(go.1,go.to.2)",
              "(drive.1,drive.to.2)", "(motor.1,motor.to.2)", "(buy.1,buy.2)", "(repurchase.1,repurchase.2)"]


def _row(n: int, article: str, day: dt.date, split: str, subj: str, predicate: str, obj: str,
         negated: bool = False) -> dict[str, object]:
    return {"triple_id": f"t{n:04d}", "article_id": article, "sentence_id": f"{article}-s{n}", "date": day,
            "window": window_of(day), "split": split, "subj": subj, "subj_text": subj.title(),
            "subj_type": "person" if subj in ("john", "ibm") else "organization", "obj": obj,
            "obj_text": obj.title(), "obj_type": "location" if obj == "paris" else "organization",
            "predicate": predicate, "predicate_text": predicate.split(".")[0].strip("(") + "ed",
            "negated": negated, "sentence": f"{subj} {predicate} {obj}"}


def synthetic_rows() -> list[dict[str, object]]:
    rows: list[tuple[str, dt.date, str, str, str, str, bool]] = []
    # Graph-induction period: makes every predicate felicitous (2 distinct argument pairs each).
    for k, p in enumerate(FELICITOUS):
        rows += [(f"tr{k}", TRAIN_DAY, "TRAIN", "x1", p, "y1", False), (f"tr{k}", TRAIN_DAY, "TRAIN", "x2", p, "y2", False)]
    # Dev window: john/paris is starring (2 articles, 3 predicates). visit -> sightsee and drop_by are absent;
    # go -> drive is blocked because its WordNet synonym motor is in the window for this pair; motor has
    # no hyponym. mary/rome is in a single article: not starring.
    rows += [("d1", DEV_DAY, "TEST", "john", "(visit.1,visit.2)", "paris", False),
             ("d1", DEV_DAY, "TEST", "john", "(go.1,go.to.2)", "paris", False),
             ("d2", DEV_DAY, "TEST", "paris", "(motor.1,motor.to.2)", "john", False),
             ("d3", DEV_DAY, "TEST", "mary", "(visit.1,visit.2)", "rome", False),
             ("d3", DEV_DAY, "TEST", "mary", "(go.1,go.to.2)", "rome", False),
             # acme/beta is starring, but buy's hyponym repurchase is said of them: no negative, no bundle.
             ("d4", DEV_DAY, "TEST", "acme", "(buy.1,buy.2)", "beta", False),
             ("d5", DEV_DAY, "TEST", "acme", "(repurchase.1,repurchase.2)", "beta", False)]
    # Test window: ibm/lotus starring; buy -> repurchase, visit -> drop_by (sightsee is said of them in a
    # NOT-USED article); a negated go is not a positive.
    rows += [("e1", TEST_DAY, "TEST", "ibm", "(buy.1,buy.2)", "lotus", False),
             ("e1", TEST_DAY, "TEST", "ibm", "(visit.1,visit.2)", "lotus", False),
             ("e2", TEST_DAY, "TEST", "ibm", "NEG__(go.1,go.to.2)", "lotus", True),
             ("e2", TEST_DAY, "TEST", "ibm", "(buy.1,buy.2)", "lotus", False),
             # An article outside both splits still blocks a negative: the evidence store holds it.
             ("e3", TEST_DAY, "NOT-USED", "lotus", "(sightsee.1,sightsee.2)", "ibm", False)]
    # A window with articles of both periods is dropped whatever it holds.
    rows += [("s1", dt.date(1987, 4, 7), "TRAIN", "ibm", "(visit.1,visit.2)", "lotus", False),
             ("s2", dt.date(1987, 4, 7), "TEST", "ibm", "(go.1,go.to.2)", "lotus", False),
             ("s2", dt.date(1987, 4, 7), "TEST", "ibm", "(buy.1,buy.2)", "lotus", False)]
    return [_row(n, *r) for n, r in enumerate(rows)]


# The hand-derived cases: every sense, no probably-true filter (both are tested on their own below).
CONFIG = BuildConfig(min_pair_articles=2, min_pair_predicates=2, min_predicate_pairs=2, bucket_bounds=(1000,),
                     senses="all", negative_filters=())


def _table() -> pa.Table:
    return pa.Table.from_pylist(synthetic_rows(), schema=TRIPLE_SCHEMA)


def _props(entries: list[dict[str, object]]) -> list[tuple[str, int, str, str, str]]:
    return [(e["bundle_id"], e["label"], e["subj"], e["predicate"], e["obj"]) for e in entries]


def test_positives_and_negatives_are_the_hand_derived_ones() -> None:
    result = build_benchmark(_table(), FakeLexicon(), CONFIG)
    assert _props(result.entries["dev"]) == [
        ("dev-00000", 1, "john", "(visit.1,visit.2)", "paris"),
        ("dev-00000", 0, "john", "(drop_by.1,drop_by.2)", "paris"),
        ("dev-00000", 0, "john", "(sightsee.1,sightsee.2)", "paris"),
    ]
    assert _props(result.entries["test"]) == [
        ("test-00000", 1, "ibm", "(buy.1,buy.2)", "lotus"),
        ("test-00000", 0, "ibm", "(repurchase.1,repurchase.2)", "lotus"),
        ("test-00001", 1, "ibm", "(visit.1,visit.2)", "lotus"),
        ("test-00001", 0, "ibm", "(drop_by.1,drop_by.2)", "lotus"),
    ]
    first = result.entries["test"][0]
    # 16 training rows + 7 dev rows come first, so ibm-buy-lotus in article e1 is row 23 (its first mention).
    assert first["exclude_sentence_ids"] == ["e1-s23"]
    assert all(e["exclude_sentence_ids"] == first["exclude_sentence_ids"] for e in result.entries["test"][:2])
    assert result.entries["test"][1]["predicate_text"] == "repurchaseed"  # commonest surface text of the predicate
    stats = result.stats
    assert (stats.windows, stats.positives, stats.negatives) == (2, 3, 4)
    assert stats.xi == pytest.approx(3 / 7)
    assert stats.splits["test"].xi == pytest.approx(2 / 4)
    assert stats.dropped_straddling_windows == [window_of(dt.date(1987, 4, 7))]
    assert stats.thresholds["min_pair_articles"] == 2
    assert stats.splits["dev"].dates[1] < stats.splits["test"].dates[0]  # type: ignore[index]


def test_stats_json_keeps_its_shape_and_the_table_its_numbers() -> None:
    stats = build_benchmark(_table(), FakeLexicon(), CONFIG).stats
    written = stats.to_dict()
    assert set(written) == {
        "builder", "senses", "negative_filters", "fragment_positives", "detached_positives", "bundles_before_senses",
        "windows",
        "positives", "negatives", "xi", "splits", "graph_period", "dropped_straddling_windows", "starring_pairs",
        "felicitous_predicates", "positives_available", "candidate_bundles", "thresholds"}
    assert (written["windows"], written["positives"], written["negatives"]) == (2, 3, 4)
    test = written["splits"]["test"]  # type: ignore[index]
    assert (test["windows"], test["positives"], test["negatives"], test["xi"]) == (1, 2, 2, 0.5)
    assert set(written["splits"]["dev"]) == {  # type: ignore[arg-type]
        "windows", "window_ids", "dates", "articles", "candidate_windows", "candidate_bundles", "bundles",
        "positives", "negatives", "xi", "buckets"}
    assert written["graph_period"]["split"] == "TRAIN"  # type: ignore[index]
    rows = {line.split()[0]: line.split() for line in stats.table().splitlines()[1:]}
    assert rows["test"][-5:] == ["1", "2", "2", "2", "0.500"]  # windows, bundles, positives, negatives, xi
    assert rows["all"][-4:] == ["3", "3", "4", "0.429"]


def test_the_source_sentence_is_the_positive_triples_own() -> None:
    result = build_benchmark(_table(), FakeLexicon(), CONFIG)
    by_id = {r["sentence_id"]: r for r in synthetic_rows()}
    for entry in result.entries["dev"] + result.entries["test"]:
        source = by_id[entry["exclude_sentence_ids"][0]]
        assert {source["subj"], source["obj"]} == {entry["subj"], entry["obj"]}
        assert source["window"] == entry["window"]
        if entry["label"] == 1:
            assert source["predicate"] == entry["predicate"]


def test_thresholds_change_the_result() -> None:
    # Four articles per pair needed: nothing is starring any more.
    with pytest.raises(InputError, match="no positive with a usable negative"):
        build_benchmark(_table(), FakeLexicon(), BuildConfig(min_pair_articles=4, min_pair_predicates=2,
                                                            min_predicate_pairs=2, senses="all"))
    # One negative per positive at most.
    result = build_benchmark(_table(), FakeLexicon(), BuildConfig(
        min_pair_articles=2, min_pair_predicates=2, min_predicate_pairs=2, bucket_bounds=(1000,), max_negatives=1,
        senses="all", negative_filters=()))
    assert [e["label"] for e in result.entries["test"]] == [1, 0, 1, 0]
    with pytest.raises(InputError, match="must differ"):
        BuildConfig(graph_split="TEST", eval_split="TEST")


def test_same_seed_same_files_and_cli_layout(tmp_path: Path) -> None:
    pytest.importorskip("nltk")
    if not (DEBIAN_WORDNET_DIR / "data.verb").is_file():
        pytest.skip(f"WordNet 3.0 is not installed: {INSTALL_HINT}")
    triples = tmp_path / "triples"
    triples.mkdir()
    write_shard(synthetic_rows(), shard_path(triples, "000"))
    stats_a = build_benchmark_files(triples, tmp_path / "a", CONFIG, tmp_path / "wn")
    stats_b = build_benchmark_files(triples, tmp_path / "b", CONFIG, tmp_path / "wn")
    assert (tmp_path / "a" / "test.jsonl").read_bytes() == (tmp_path / "b" / "test.jsonl").read_bytes()
    assert stats_a == replace(stats_b, triples=stats_a.triples)
    entries = read_jsonl(tmp_path / "a" / "test.jsonl")
    # Real WordNet: visit's hyponyms include sightsee and "drop by"; buy's include repurchase.
    assert ("test-00000", 0, "ibm", "(repurchase.1,repurchase.2)", "lotus") in _props(entries)
    assert ("test-00001", 0, "ibm", "(drop_by.1,drop_by.2)", "lotus") in _props(entries)
    assert ("test-00001", 0, "ibm", "(sightsee.1,sightsee.2)", "lotus") not in _props(entries)  # present
    assert orjson.loads((tmp_path / "a" / "stats.json").read_bytes())["positives"] == stats_a.positives


def test_spans_cover_heads_and_light_verb_nouns() -> None:
    lex = FakeLexicon()
    felicitous = {"(play.1,play.practice.game.with.2)", "(play.1,play.practice_game.with.2)", "(drive.1,drive.to.2)"}
    found = hyponym_candidates("(play.1,play.game.with.2)", lex, felicitous, CONFIG)
    assert [c.predicate for c in found] == ["(play.1,play.practice.game.with.2)", "(play.1,play.practice_game.with.2)"]
    (drive,) = hyponym_candidates("(go.1,go.to.2)", lex, felicitous, CONFIG)
    assert drive.predicate == "(drive.1,drive.to.2)"
    assert drive.blocking_keys == {"drive|drive.to", "motor|motor.to"}
    assert hyponym_candidates("NEG__(go.1,go.to.2)", lex, {"NEG__(drive.1,drive.to.2)"}, CONFIG) == []
    assert predicate_key("(use.2,use.in.2)") == predicate_key("(use.1,use.in.2)") == "use|use.in"
    assert parse_predicate("want__(visit.1,visit.2)").prefix == "want__"
    assert parse_predicate("not a predicate") is None


def test_negatives_fill_frequency_buckets_up_to_the_positives_share() -> None:
    from collections import Counter

    # Positives: two in bucket [0,10), one in [10,inf). Quota = 1 negative per positive per bucket.
    freq = Counter({"p_rare": 5, "p_common": 50, "n_rare1": 3, "n_rare2": 4, "n_rare3": 6, "n_common": 70})
    bundles = [Bundle(1, "a", "b", "t", "t", "p_rare", "", "1987-04-20", "s1",
                      [NegativeCandidate("n_rare1", frozenset()), NegativeCandidate("n_rare2", frozenset())]),
               Bundle(1, "c", "d", "t", "t", "p_rare", "", "1987-04-20", "s2",
                      [NegativeCandidate("n_rare3", frozenset())]),
               Bundle(1, "e", "f", "t", "t", "p_common", "", "1987-04-20", "s3",
                      [NegativeCandidate("n_rare1", frozenset()), NegativeCandidate("n_common", frozenset())])]
    import random

    config = BuildConfig(bucket_bounds=(10,), negatives_per_positive=1.0, max_negatives=2)
    buckets = _choose_negatives(bundles, freq, config, random.Random(0))
    assert buckets == {"[0,10)": {"positives": 2, "negatives": 2}, "[10,inf)": {"positives": 1, "negatives": 1}}
    assert "n_common" in bundles[2].negatives  # the only candidate of the frequent bucket


def test_bucket_matching_drops_bundles_of_buckets_short_of_negatives() -> None:
    import random
    from collections import Counter

    from benchmark.build import _match_buckets

    # Two rare positives with 2 negatives each, two frequent positives ("say") with one rare negative each.
    # Overall ratio 6/4 = 1.5. Bucket [10,inf) has 2 positives and 0 negatives: both its bundles go (and
    # take n5, n6 along). Bucket [0,10) then has 2 positives, 4 negatives: 4/1.5 >= 2, nothing more goes.
    freq = Counter({"rare_pos": 5, "say": 500, "n1": 2, "n2": 3, "n3": 4, "n4": 5, "n5": 6, "n6": 7})
    bundles = [Bundle(1, "a", "b", "t", "t", "rare_pos", "", "d", "s1", [], ["n1", "n2"]),
               Bundle(1, "c", "d", "t", "t", "rare_pos", "", "d", "s2", [], ["n3", "n4"]),
               Bundle(1, "e", "f", "t", "t", "say", "", "d", "s3", [], ["n5"]),
               Bundle(1, "g", "h", "t", "t", "say", "", "d", "s4", [], ["n6"])]
    kept, table = _match_buckets(bundles, freq, (10,), random.Random(0))
    assert [b.sentence_id for b in kept] == ["s1", "s2"]
    assert table == {"[0,10)": {"positives": 2, "negatives": 4}}


def test_at_most_one_proposition_per_predicate_and_label() -> None:
    import random
    from collections import Counter

    # Three bundles of `buy`, each offering the negative `repurchase`; one per predicate and label keeps one
    # bundle of buy and gives repurchase to one bundle only.
    def bundles() -> list[Bundle]:
        return [Bundle(1, f"a{k}", f"b{k}", "t", "t", "(buy.1,buy.2)", "", "d", f"s{k}",
                       [NegativeCandidate("(repurchase.1,repurchase.2)", frozenset())]) for k in range(3)]

    drawn = _sample_bundles({1: bundles()}, {1: 5}, 10, random.Random(0), per_predicate=1)
    assert [b.predicate for b in drawn] == ["(buy.1,buy.2)"]
    every = bundles()
    config = BuildConfig(bucket_bounds=(10,), max_per_predicate=1)
    _choose_negatives(every, Counter({"(buy.1,buy.2)": 5, "(repurchase.1,repurchase.2)": 5}), config, random.Random(0))
    assert sum(len(b.negatives) for b in every) == 1
    with pytest.raises(InputError, match="max_per_predicate"):
        BuildConfig(max_per_predicate=0)


def test_every_entry_shows_its_predicates_commonest_text_that_reads_forwards() -> None:
    # A passive text of an agent-first predicate reads backwards: "[organization] built by [thing]".
    assert not reads_forward("(build.1,build.2)", "built by")
    assert reads_forward("(build.1,build.2)", "built")
    assert reads_forward("(build.2,build.by.2)", "built by")   # the by-phrase is the predicate's own slot
    texts = Counter({"built by": 9, "built": 4, "has built": 4})
    assert commonest_forward_text("(build.1,build.2)", texts) == "built"   # ties broken alphabetically
    assert commonest_forward_text("(own.1,own.2)", Counter({"owned by": 3})) == "owned by"  # nothing better
    # Positives and negatives alike: the text of an entry tells nothing of its label.
    rows = synthetic_rows()
    for row in rows:
        if row["sentence_id"] == "e1-s23":   # the test positive's own sentence (see above)
            row["predicate_text"] = "has bought"
    result = build_benchmark(pa.Table.from_pylist(rows, schema=TRIPLE_SCHEMA), FakeLexicon(), CONFIG)
    positive = next(e for e in result.entries["test"] if e["predicate"] == "(buy.1,buy.2)")
    assert positive["predicate_text"] == "buyed"   # the corpus' commonest, not the positive sentence's own


def test_recipes_set_their_choices_and_options_override_them() -> None:
    read = recipe_config("read")
    assert (read.senses, read.contiguous_positives, read.match_buckets) == ("all", True, False)
    assert read.negative_filters[-2:] == ("hyponym_read", "stated_elsewhere") and read.recipe == "read"
    assert recipe_config("wordnet") == BuildConfig()
    assert recipe_config("read", match_buckets=True, senses=None).match_buckets is True   # None = the recipe's
    assert recipe_config("read", senses=None).senses == "all"
    assert set(RECIPES) == {"wordnet", "read", "checked"}
    checked = recipe_config("checked")
    assert checked.negative_filters == (*read.negative_filters, "negative_read")
    assert (checked.senses, checked.contiguous_positives, checked.match_buckets) == ("all", True, False)
    with pytest.raises(InputError, match="unknown recipe"):
        recipe_config("llm")
    with pytest.raises(InputError, match="unknown recipe"):
        BuildConfig(recipe="llm")


def test_the_read_recipe_says_which_replacements_were_never_read() -> None:
    # The synthetic hyponyms (`drop_by.v.01` for visit, ...) are in no read: no negative is left, and the error
    # says why and what lists them.
    config = recipe_config("read", min_pair_articles=2, min_pair_predicates=2, min_predicate_pairs=2,
                           bucket_bounds=(1000,), contiguous_positives=False, negative_filters=("hyponym_read",))
    with pytest.raises(InputError, match=r"replacements were never read by hand \(python bench/hyponym_reads.py"):
        build_benchmark(_table(), FakeLexicon(), config)


def test_the_checked_recipe_says_which_negatives_were_never_read() -> None:
    # No candidate of the synthetic corpus is in the shipped negative reads: none is left, and the error and
    # the stats' hint say why and what lists them.
    config = recipe_config("checked", min_pair_articles=2, min_pair_predicates=2, min_predicate_pairs=2,
                           bucket_bounds=(1000,), contiguous_positives=False, negative_filters=("negative_read",))
    with pytest.raises(InputError, match=r"candidate negatives were never read by hand \(python bench/negative_reads.py"):
        build_benchmark(_table(), FakeLexicon(), config)


def test_the_cap_counts_head_words_when_asked() -> None:
    assert CAP_KEYS["head"]("(buy.back.1,buy.back.2)") == CAP_KEYS["head"]("(buy_up.1,buy_up.2)") == "buy"
    assert CAP_KEYS["head"]("not a predicate") == "not a predicate"
    assert CAP_KEYS["predicate"]("(buy.1,buy.2)") == "(buy.1,buy.2)"
    # Two bundles whose positives share the head `buy`: one per predicate keeps both, one per head word one.
    bundles = {7: [Bundle(window=7, subj="ibm", obj="lotus", subj_type="organization", obj_type="organization",
                          predicate=p, predicate_text="bought", date="1987-05-20", sentence_id=f"s{k}", candidates=[])
                   for k, p in enumerate(("(buy.1,buy.2)", "(buy.1,buy.from.2)"))]}
    assert len(_sample_bundles(bundles, {7: 1}, 10, random.Random(0), 1)) == 2
    assert len(_sample_bundles(bundles, {7: 1}, 10, random.Random(0), 1, CAP_KEYS["head"])) == 1
    with pytest.raises(InputError, match="unknown cap_by"):
        BuildConfig(cap_by="lemma")


def test_a_negative_stated_of_the_pair_in_another_window_is_dropped() -> None:
    # ibm repurchase lotus is said in the dev window: in the test window it is probably still true, so the test
    # bundle of buy keeps no negative; the visit bundle keeps drop_by (stated of the pair nowhere else).
    rows = synthetic_rows() + [_row(90, "d6", DEV_DAY, "TEST", "lotus", "(repurchase.1,repurchase.2)", "ibm")]
    table = pa.Table.from_pylist(rows, schema=TRIPLE_SCHEMA)
    without = build_benchmark(table, FakeLexicon(), CONFIG)
    assert ("test-00000", 0, "ibm", "(repurchase.1,repurchase.2)", "lotus") in _props(without.entries["test"])
    result = build_benchmark(table, FakeLexicon(), replace(CONFIG, negative_filters=("stated_elsewhere",)))
    assert _props(result.entries["test"]) == [
        ("test-00000", 1, "ibm", "(visit.1,visit.2)", "lotus"),
        ("test-00000", 0, "ibm", "(drop_by.1,drop_by.2)", "lotus"),
    ]
    assert result.stats.filter_removed == {"stated_elsewhere": 1}
    # The window's own statements are the absence check's business, not this filter's: the same row in the
    # test window itself blocks the negative before any filter runs, and the filter removes nothing more.
    same = synthetic_rows() + [_row(90, "e6", TEST_DAY, "TEST", "lotus", "(repurchase.1,repurchase.2)", "ibm")]
    result = build_benchmark(pa.Table.from_pylist(same, schema=TRIPLE_SCHEMA), FakeLexicon(),
                             replace(CONFIG, negative_filters=("stated_elsewhere",)))
    assert result.stats.filter_removed == {"stated_elsewhere": 0}


def test_candidate_negatives_are_the_pool_the_splits_are_drawn_from() -> None:
    pool = candidate_negatives(_table(), FakeLexicon(), CONFIG)
    offered = {(b.subj, b.predicate, c.predicate) for bs in pool.bundles_by_window.values() for b in bs
               for c in b.candidates}
    assert offered == {("john", "(visit.1,visit.2)", "(drop_by.1,drop_by.2)"),
                       ("john", "(visit.1,visit.2)", "(sightsee.1,sightsee.2)"),
                       ("ibm", "(buy.1,buy.2)", "(repurchase.1,repurchase.2)"),
                       ("ibm", "(visit.1,visit.2)", "(drop_by.1,drop_by.2)")}
    built = build_benchmark(_table(), FakeLexicon(), CONFIG)
    drawn = {(e["subj"], e["predicate"]) for split in built.entries.values() for e in split if e["label"] == 0}
    assert drawn == {(subj, negative) for subj, _, negative in offered}
    assert pool.surface["(buy.1,buy.2)"] == "buyed" and pool.counts["starring_pairs"] >= 2
