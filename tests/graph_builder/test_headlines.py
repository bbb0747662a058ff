"""An article's title read as a sentence: headline furniture removed, headline grammar read, non-events dropped.

The headlines here are written for the tests, not taken from a corpus.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from graph_builder.headlines import clean_headline, headline_sentence


@pytest.mark.parametrize(("title", "sentence"), [
    ("Acme to buy Widget for $2 billion", "Acme will buy Widget for $2 billion."),
    ("Bank of Examples to cut 3,000 jobs", "Bank of Examples will cut 3,000 jobs."),
    ("UPDATE 2-Acme shares jump after Widget deal", "Acme shares jump after Widget deal."),
    ("RPT-Acme names Jane Doe chief executive", "Acme names Jane Doe chief executive."),
    ("EMERGING MARKETS-Latam stocks climb on Acme news", "Latam stocks climb on Acme news."),
    ("Insight: Acme faces a long fight over its plant", "Acme faces a long fight over its plant."),
    ("Acme weighs bid for Widget unit: sources", "Acme weighs bid for Widget unit."),
    ("Fewer homes sold in August: Acme Research", "Fewer homes sold in August."),
    ("Acme plant will be sold in Europe - paper", "Acme plant will be sold in Europe."),
    # "to" after a verb is not headline grammar, and the subject must be written in names
    ("Acme needs to raise cash", "Acme needs to raise cash."),
    ("the regulator to review Acme deal", "the regulator to review Acme deal."),
    ("Did Acme win?", "Did Acme win?"),
])
def test_a_headline_reads_as_a_sentence(title: str, sentence: str) -> None:
    assert clean_headline(title) == (sentence, None)
    assert headline_sentence(title) == sentence


@pytest.mark.parametrize(("title", "kind"), [
    ("ACME SEES HIGHER PROFITS", "capitals"),          # headlines set in capitals (Reuters-21578)
    ("ACME And WIDGET TO MERGE UNITS", "capitals"),     # fewer than a third of the letters in lower case
    ("TABLE-Acme quarterly results", "table"),
    ("FACTBOX-Five things about Acme", "fact box"),
    ("Factbox: Five things about Acme", "fact box"),
    ("DIARY - Events in Examplia", "diary"),
    ("Acme: no deal", "too short"),
    ("", "capitals"),
])
def test_a_headline_that_states_no_event_gives_no_sentence(title: str, kind: str) -> None:
    assert clean_headline(title) == (None, kind)
    assert headline_sentence(title) == ""


def test_an_articles_title_gives_triples_read_after_its_body(tmp_path: Path) -> None:
    from graph_builder.live import extract_articles, prepare
    from graph_builder.pipeline import extract_corpus
    from graph_builder.triples import read_triples

    record = {"id": "a1", "date": "2011-05-10", "title": "Microsoft to buy Skype for $8.5 billion",
              "text": "Microsoft Corp said on Tuesday it agreed to pay $8.5 billion in cash for Skype.\n"
                      "The deal is the largest in the history of the software company."}
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(orjson.dumps(record) + b"\n")
    extract_corpus([corpus], tmp_path / "triples", workers=1)
    rows = read_triples(tmp_path / "triples").to_pylist()
    title = [(r["sentence_id"], r["subj"], r["predicate"], r["obj"], r["sentence"]) for r in rows
             if r["sentence_id"].startswith("a1:t")]
    # The headline's "Microsoft" is the body's "Microsoft Corp", and "X to buy Y" is read as "X will buy Y".
    assert title == [("a1:t000", "microsoft", "(buy.1,buy.2)", "skype", "Microsoft will buy Skype for $8.5 billion.")]
    assert any(r["sentence_id"] == "a1:0000" for r in rows)
    # The live path reads the title the same way.
    import datetime as dt
    prepared = prepare("a1", dt.date(2011, 5, 10), record["title"], record["text"])
    assert prepared.article is not None
    live = extract_articles([prepared.article])[0].triples
    assert {(r["sentence_id"], r["subj"], r["predicate"], r["obj"]) for r in live if ":t" in r["sentence_id"]} == {
        ("a1:t000", "microsoft", "(buy.1,buy.2)", "skype")}


def test_a_title_that_gives_nothing_is_read_as_the_prose_it_stands_for() -> None:
    from graph_builder.extraction import DEFAULT_MODEL, SentenceParser, load_pipeline
    from graph_builder.pipeline import titles_as_prose

    parser = SentenceParser(load_pipeline(DEFAULT_MODEL))
    titles = ["Yahoo fires Mayer.", "Google buys Motorola.", "", "Apple shares drop after results."]
    parsed = parser.parse(titles)
    assert not any(s.relations for s in parsed[0])  # "fires" read as a plural noun
    read = titles_as_prose(parser, titles, parsed)
    # Read as "Yahoo fired Mayer.", kept under the title's own words; a title read as written is left alone, and
    # "shares" before the parser's verb is no headline verb.
    assert [(s.text, [(r.subj.norm, r.predicate, r.obj.norm) for r in s.relations]) for s in read[0]] == [
        ("Yahoo fires Mayer.", [("yahoo", "(fire.1,fire.2)", "mayer")])]
    assert read[1] == parsed[1] and read[2] == parsed[2] and read[3] == parsed[3]
