"""The gold-set scorer of bench/extraction_eval.py on hand-made predicted/gold pairs (values checked by hand)."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest
from tests.bench.scripts import load_script

ev = load_script("extraction_eval")
T = ev.Triple


def test_content_lemmas_drop_roles_prepositions_negation_and_controllers() -> None:
    assert ev.content_lemmas("NEG__agree__(sell.1,sell.to.2)") == {"sell"}
    assert ev.content_lemmas("(sell.2,sell.to.2)") == {"sell"}
    assert ev.content_lemmas("(have.1,have.influence.in.2)") == {"have", "influence"}
    assert ev.content_lemmas("(chairman.of.1,chairman.of.2)") == {"chairman"}


@pytest.mark.parametrize(("predicted", "gold", "expected"), [
    ("exxon", "exxon mobil corp", True),          # contained
    ("mobil corp", "exxon mobil corp", True),     # contained, and same last word
    ("oil field", "field", True),                 # same head word
    ("us", "business", False),                    # a substring is not a word
    ("fox-pitt", "fox-pitt, kelton nv", True),    # a comma inside a full name is no part of a word
    ("orrick , herrington", "orrick, herrington", True),
    ("exxon", "texaco", False),
    ("", "texaco", False),
])
def test_arguments_match_by_head_word_overlap(predicted: str, gold: str, expected: bool) -> None:
    assert ev.arguments_match(predicted, gold) is expected


def test_lenient_match_ignores_argument_order_roles_and_negation_but_not_the_lemma() -> None:
    gold = T("texaco", "(sell.1,sell.to.2)", "exxon mobil")
    assert ev.lenient_orientation(T("texaco", "NEG__(sell.1,sell.to.2)", "exxon"), gold) is True
    assert ev.lenient_orientation(T("exxon", "(sell.2,sell.to.2)", "texaco"), gold) is False  # swapped
    assert ev.lenient_orientation(T("texaco", "(buy.1,buy.2)", "exxon mobil"), gold) is None
    assert ev.lenient_orientation(T("texaco", "(sell.1,sell.2)", "bp"), gold) is None


def test_one_sentence_scored_by_hand() -> None:
    gold = [
        T("exxon mobil", "(offer.1,offer.to.2)", "alaska", "organization", "location"),
        T("exxon mobil", "(offer.1,offer.2)", "plan", "organization", "thing"),
        T("brazil", "NEG__(accept.1,accept.2)", "monitoring", "location", "thing", True),
    ]
    predicted = [
        # strict match, types right
        T("exxon mobil", "(offer.1,offer.to.2)", "alaska", "organization", "location"),
        # lenient only (object head differs in norm but same last word; subject shortened), wrong type
        T("exxon", "(offer.1,offer.2)", "new plan", "person", "thing"),
        # lenient only: negation missed, so the predicate string differs
        T("brazil", "(accept.1,accept.2)", "monitoring", "location", "thing"),
        # false positive
        T("imf", "(monitor.1,monitor.2)", "brazil", "organization", "location"),
    ]
    s = ev.score_sentence(predicted, gold)
    assert (s.predicted, s.gold, s.lenient, s.strict) == (4, 3, 3, 1)
    assert s.types_right == 2 and s.negation_right == 2
    assert [t.subject for t in s.false_positives] == ["imf"]
    assert s.misses == []


def test_matching_is_one_to_one() -> None:
    gold = [T("bp", "(buy.1,buy.2)", "sohio")]
    predicted = [T("bp", "(buy.1,buy.2)", "sohio"), T("bp plc", "(buy.1,buy.2)", "sohio")]
    s = ev.score_sentence(predicted, gold)
    assert (s.lenient, s.strict, len(s.false_positives)) == (1, 1, 1)
    assert s.false_positives[0].subject == "bp plc"  # the strict candidate is the one kept


def test_types_are_read_through_a_swapped_alignment() -> None:
    gold = [T("asher edelman", "(form.1,form.2)", "samjens", "person", "organization")]
    swapped = [T("samjens", "(form.2,form.1)", "asher edelman", "organization", "person")]
    s = ev.score_sentence(swapped, gold)
    assert (s.lenient, s.strict, s.types_right) == (1, 0, 1)


def test_metric_table_sums_over_sentences_with_an_interval_around_the_value() -> None:
    scores = [ev.SentenceScore("a", "c", predicted=2, gold=1, lenient=1, strict=0, types_right=1, negation_right=1),
              ev.SentenceScore("b", "c", predicted=0, gold=3, lenient=0, strict=0, types_right=0, negation_right=0),
              ev.SentenceScore("c", "c", predicted=2, gold=0, lenient=0, strict=0, types_right=0, negation_right=0)]
    table = ev.metric_table(scores, n_boot=200, seed=0)
    assert table["precision_lenient"]["value"] == pytest.approx(1 / 4)
    assert table["recall_lenient"]["value"] == pytest.approx(1 / 4)
    assert table["type_accuracy"]["value"] == pytest.approx(1.0)
    assert table["triples_per_sentence"]["value"] == pytest.approx(4 / 3)
    low, high = table["precision_lenient"]["low"], table["precision_lenient"]["high"]
    assert 0.0 <= low <= 0.25 <= high <= 1.0 and low < high
    assert table == ev.metric_table(scores, n_boot=200, seed=0)  # fixed seed: same interval


def test_evaluate_reads_spans_and_counts_sha1_and_article_mismatches(tmp_path: Path) -> None:
    body = "LONDON  (Reuters) - Exxon Mobil offered \na plan to Alaska.  Another one."
    with gzip.open(tmp_path / "corpus.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.write(json.dumps({"file": "x", "body": "unused"}) + "\n")
        handle.write(json.dumps({"file": "a-1", "body": body}) + "\n")
    start, end = body.index("Exxon"), body.index("Alaska.") + len("Alaska.")
    sha = hashlib.sha1(body[start:end].encode("utf-8")).hexdigest()
    rel = {"subject": "exxon mobil", "predicate": "(offer.1,offer.2)", "object": "plan",
           "subject_type": "organization", "object_type": "thing", "negated": False}
    rows = [{"corpus": "reuters_ding2014", "file": "corpus.jsonl.gz", "article_id": "a-1", "line": 2,
             "start": start, "end": end, "sha1": sha, "relations": [rel]},
            {"corpus": "reuters_ding2014", "file": "corpus.jsonl.gz", "article_id": "a-1", "line": 2,
             "start": start, "end": end, "sha1": "0" * 40, "relations": []},
            {"corpus": "reuters_ding2014", "file": "corpus.jsonl.gz", "article_id": "a-1", "line": 1,
             "start": start, "end": end, "sha1": sha, "relations": []}]
    gold_dir = tmp_path / "gold"
    gold_dir.mkdir()
    (gold_dir / "g.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    seen: list[str] = []

    def fake_extract(text: str) -> list[dict[str, object]]:
        seen.append(text)
        return [rel]

    run = ev.evaluate(ev.load_gold(gold_dir), tmp_path, fake_extract)
    assert seen == ["Exxon Mobil offered a plan to Alaska."]  # wrap joined, exact span
    assert [(s.lenient, s.strict) for s in run.scores] == [(1, 1)]
    assert run.errors == {"sha1_mismatch": ["g.jsonl:2 reuters_ding2014:2[20:58]"],
                          "article_id_mismatch": ["g.jsonl:3 reuters_ding2014:1[20:58]"]}


def test_prepare_sentence_is_the_readers_news_clean_up() -> None:
    # the gold spans go through the same clean-up as the corpus: entities, angle brackets, wraps, tickers
    assert ev.prepare_sentence("&lt;Epitope Inc&gt; said\nit would", "reuters21578") == "Epitope Inc said it would"
    assert ev.prepare_sentence("LONDON  (Reuters) - Exxon Mobil ( XOM.N ) \noffered", "reuters_ding2014") == \
        "Exxon Mobil offered"


def test_lenient_predicates_agree_on_head_word_with_nested_content() -> None:
    # same head word "cut", {cut} inside {cut, job}: the same relation, normalised two ways
    assert ev.predicates_agree("(cut.1,cut.job.in.2)", "(cut.1,cut.in.2)")
    assert ev.predicates_agree("(cut.1,cut.in.2)", "(cut.1,cut.job.in.2)")
    # different head words never agree, even when one content set holds the other
    assert not ev.predicates_agree("(job.in.1,job.in.2)", "(cut.1,cut.job.in.2)")
    # same head word, disjoint extra words: {take, stake} vs {take, control} -> no
    assert not ev.predicates_agree("(take.1,take.stake.in.2)", "(take.1,take.control.of.2)")


def test_false_positives_are_listed_with_the_sentences_gold() -> None:
    gold = [T("exxon", "(buy.1,buy.2)", "texaco")]
    predicted = [T("exxon", "(buy.1,buy.2)", "texaco"), T("exxon", "(buy.1,buy.in.2)", "march")]
    s = ev.score_sentence(predicted, gold, key="k", text="Exxon bought Texaco in March.")
    shown = ev.format_errors([s], 5, ["fp"])
    assert "== false positives (1 of 1) ==" in shown and "(buy.1,buy.in.2) march" in shown
    assert "gold: exxon [thing] (buy.1,buy.2) texaco [thing]" in shown
    assert "misses" not in shown


def test_paired_difference_resamples_both_runs_jointly() -> None:
    def run(lenient: list[int]) -> list:
        return [ev.SentenceScore(k, "c", predicted=2, gold=2, lenient=n, strict=0, types_right=n, negation_right=n)
                for k, n in zip("abcd", lenient, strict=True)]
    better, worse = run([2, 2, 1, 2]), run([1, 2, 1, 1])
    cell = ev.paired_difference(better, worse, "precision_lenient", n_boot=500, seed=0)
    assert cell["value"] == pytest.approx(7 / 8 - 5 / 8)
    # jointly drawn, no draw can make the better run worse: the interval stays at or above zero
    assert 0.0 <= cell["low"] <= 0.25 <= cell["high"] <= 0.5
    assert ev.paired_difference(better, better, "recall_lenient", n_boot=200)["value"] == 0.0
    with pytest.raises(ValueError, match="same sentences"):
        ev.paired_difference(better, worse[::-1], "precision_lenient")
