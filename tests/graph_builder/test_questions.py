"""A question the small parser misreads is read again: its parse repaired, or its names stood in for by names it reads
well."""

from __future__ import annotations

import spacy

from graph_builder.extraction import extract_text
from graph_builder.extraction.questions import (countries_by_demonym, detached_final_stop, extract_question,
                                                read_question)


def _read(text: str) -> list[tuple[object, ...]]:
    return [(t["subject"], t["subject_type"], t["predicate"], t["object"], t["object_type"], t["subject_text"])
            for t in extract_question(text)]


def test_a_misread_name_is_stood_in_for_and_put_back() -> None:
    # The parser takes "UBS" for an adverb and "Standard & Poor's" for a possessive: nothing comes out as written.
    assert extract_text("UBS fined the regulators.", require_entity=False) == []
    assert _read("UBS fined the regulators.") == [
        ("ubs", "organization", "(fine.1,fine.2)", "regulator", "thing", "UBS")]
    assert _read("Standard & Poor's downgraded France.") == [
        ("standard & poor's", "organization", "(downgrade.1,downgrade.2)", "france", "location", "Standard & Poor's")]


def test_a_question_read_as_written_is_left_alone() -> None:
    text = "Google bought Motorola."
    assert extract_question(text) == extract_text(text)
    assert extract_question("Nothing to see here.") == []


def test_a_verb_the_tagger_took_for_a_noun_is_read_as_the_verb() -> None:
    # "bid" tagged a noun, the unknown company at the head of the question an adjective: nothing as written.
    assert extract_text("Dish bid for Sprint.", require_entity=False) == []
    assert [(s, p, o, t) for s, _, p, o, _, t in _read("Dish bid for Sprint.")] == [
        ("dish", "(bid.1,bid.for.2)", "sprint", "Dish")]
    # Only a verbless question whose root has a subject: a noun phrase stays unread.
    assert _read("The bid for Sprint.") == []


def test_a_common_noun_a_name_owns_is_also_read_as_the_name() -> None:
    """"Fitch cut Portugal's rating" is also read as Fitch / Portugal, the owner typed by the recogniser; a reading
    whose other side is the owner already, a name's own possessive, and a question without one give nothing more."""
    found = [(t["subject"], t["predicate"], t["object"], t["object_type"], t["object_text"])
             for t in read_question("Fitch cut Portugal's rating.")]
    assert found == [("fitch", "(cut.1,cut.2)", "rating", "thing", "rating"),
                     ("fitch", "(cut.1,cut.2)", "portugal", "location", "Portugal")]
    assert read_question("Google bought Motorola.") == extract_question("Google bought Motorola.")
    assert read_question("Portugal cut Portugal's spending.") == extract_question("Portugal cut Portugal's spending.")


def test_a_common_noun_a_name_comes_before_is_also_read_as_the_name() -> None:
    """"Tepco shareholders backed an injection" is also read as Tepco / injection (news often says "Tepco
    backed"); a name inside a longer name ("Morgan" of Morgan Stanley) owns nothing, the whole name does."""
    assert _triples("Tepco shareholders backed a capital injection.") == [
        ("tepco shareholder", "(back.1,back.2)", "capital injection"), ("tepco", "(back.1,back.2)", "capital injection")]
    assert ("morgan stanley", "(sue.1,sue.2)", "bank") in _triples("Morgan Stanley traders sued the bank.")


def test_a_common_noun_after_a_demonym_is_also_read_as_its_country() -> None:
    """"Chinese authorities opened a probe into Sanofi" is also read as China / Sanofi ("China investigates Sanofi",
    as the news often says it); a demonym several countries share names the most populous."""
    assert ("china", "(open.1,open.into.2)", "sanofi") in _triples("Chinese authorities opened a probe into Sanofi.")
    assert ("ireland", "(back.1,back.2)", "pact") in _triples("Irish voters backed the pact.")
    assert (countries_by_demonym()["chinese"], countries_by_demonym()["american"]) == ("China", "United States")


def _triples(text: str) -> list[tuple[object, ...]]:
    return [(t["subject"], t["predicate"], t["object"]) for t in read_question(text)]


def test_a_participle_the_parser_hung_on_a_noun_is_read_as_the_verb() -> None:
    # Both parsed as noun phrases: "loosened" and "briefed" as adjectives of the noun after them.
    for text in ("The Interior Department loosened safety rules.", "France's finance minister briefed bond investors."):
        assert extract_text(text, require_entity=False) == []
    assert _triples("The Interior Department loosened safety rules.") == [
        ("interior department", "(loosen.1,loosen.2)", "safety rule")]
    assert ("finance minister", "(brief.1,brief.2)", "bond investor") in _triples(
        "France's finance minister briefed bond investors.")


def test_a_small_clause_is_an_object_and_a_post() -> None:
    # "Jones its interim chief executive" parsed as a clause of its own.
    assert extract_text("Acme made Jones its interim chief executive.", require_entity=False) == []
    assert _triples("Acme made Jones its interim chief executive.") == [("acme", "(make.1,make.2)", "jones")]


def test_the_main_clause_is_read_without_a_time_clause_that_tangled_it() -> None:
    # The parser hangs "Acme" on "days": the main clause read alone.
    for text in ("Smith left Acme days after the Globex deal closed.",
                 "Smith quit Acme weeks after the Globex merger closed."):
        assert extract_text(text, require_entity=False) == []
    assert _triples("Smith left Acme days after the Globex deal closed.") == [("smith", "(leave.1,leave.2)", "acme")]
    assert _triples("Smith quit Acme weeks after the Globex merger closed.") == [("smith", "(quit.1,quit.2)", "acme")]
    # A question read as written is not cut: both clauses keep their relations.
    assert _triples("Globex bought Acme after Initech bought Hooli.") == [
        ("globex", "(buy.1,buy.2)", "acme"), ("initech", "(buy.1,buy.2)", "hooli")]


def test_a_verb_hung_on_the_subject_as_its_clause_is_the_verb() -> None:
    # "Globex" parsed as the root, "named Baker ..." as its clause: the side reading alone came out.
    text = "Globex named Baker to replace Carter as chairman."
    assert [(t["subject"], t["object"]) for t in extract_text(text)] == [("carter", "chairman")]
    readings = _triples(text)
    assert readings[:2] == [("globex", "(name.1,name.2)", "baker"), ("baker", "name__(replace.1,replace.2)", "carter")]


def test_a_question_ending_with_a_name_does_not_keep_its_full_stop_on_it() -> None:
    nlp = spacy.blank("en")
    assert detached_final_stop(nlp, "UniCredit was downgraded by S&P.") == "UniCredit was downgraded by S&P ."
    assert detached_final_stop(nlp, "Obama met officials in the U.S.") == "Obama met officials in the U.S."
    assert detached_final_stop(nlp, "Apple bought Beats.") == "Apple bought Beats."  # the tokenizer splits it
    assert detached_final_stop(nlp, "Is it true?") == "Is it true?" and detached_final_stop(nlp, "") == ""
    readings = extract_question("Rakoff sided with the Justice Department over using FIRREA against BofA.")
    assert "bofa" in {r["object"] for r in readings} and "bofa." not in {r["object"] for r in readings}
    assert {r["subject"] for r in extract_question("UniCredit and Intesa were downgraded by S&P.")} == {"s&p"}


def test_a_question_reads_an_adverb_of_direction_as_the_stored_news_does() -> None:
    # extractor v23: "walked away from" and "pulling out of" are read in questions by the rules of the corpus
    assert ("state street", "(walk.away.1,walk.away.from.2)", "auction") in _triples(
        "State Street walked away from the auction.")
    assert ("american airlines", "(go.back.1,go.back.to.2)", "bargaining table") in _triples(
        "American Airlines and its pilots went back to the bargaining table.")
    assert ("avon", "(pull.out.1,pull.out.of.2)", "ireland") in _triples("Avon is pulling out of Ireland.")


def test_a_name_the_recogniser_missed_keeps_its_reading_beside_a_recognised_ones() -> None:
    # "Avon" is no entity to the recogniser, "Ireland" is: the news extraction keeps Avon / Ireland only, and a
    # question reads Avon / jobs as well; a reading of common nouns alone is not added ("union" / "plan").
    readings = _triples("Avon is pulling out of Ireland and cutting more than 400 jobs.")
    assert readings[0] == ("avon", "(pull.out.1,pull.out.of.2)", "ireland")
    assert ("avon", "(cut.1,cut.2)", "job") in readings
    assert _triples("Ford cut 400 jobs and the union rejected the plan.") == [("ford", "(cut.1,cut.2)", "job")]


def test_a_description_of_a_participant_is_presupposed_not_asked() -> None:
    # "Apple chief executive Tim Cook" describes Cook: the question asks whether he visited Paris, and a reading of
    # the post would answer it from news about the post alone.
    readings = {(t["subject"], t["predicate"], t["object"]) for t in read_question(
        "Apple chief executive Tim Cook visited Paris.")}
    assert readings == {("tim cook", "(visit.1,visit.2)", "paris")}
    readings = {(t["subject"], t["predicate"], t["object"]) for t in read_question(
        "Tim Cook, the chief executive of Apple, visited Paris.")}
    assert readings == {("tim cook", "(visit.1,visit.2)", "paris")}
    # a copula asks the post; a description alone is what there is to ask
    assert [(t["subject"], t["predicate"], t["object"]) for t in read_question("Tim Cook is the chief executive of Apple.")
            ] == [("tim cook", "(executive.of.1,executive.of.2)", "apple")]
    assert [(t["subject"], t["predicate"], t["object"]) for t in read_question("Apple's chief executive Tim Cook resigned.")
            ] == [("tim cook", "(executive.of.1,executive.of.2)", "apple")]


def _pairs(text: str) -> set[tuple[object, object, object]]:
    return {(t["subject"], t["predicate"], t["object"]) for t in read_question(text)}


def test_a_headline_is_read_as_the_prose_it_stands_for() -> None:
    # The small parser takes a headline's present tense for a plural noun ("fires", "fines") or an adjective ("fine"
    # after a plural subject), and its bare participle for an active verb: nothing comes out as written.
    assert extract_text("Yahoo fires Mayer", require_entity=False) == []
    assert ("yahoo", "(fire.1,fire.2)", "mayer") in _pairs("Yahoo fires Mayer")
    assert ("regulator", "(fine.1,fine.2)", "barclays") in _pairs("Regulators fine Barclays")
    assert ("kodak", "(file.1,file.for.2)", "bankruptcy") in _pairs("Kodak files for bankruptcy")
    assert ("s&p", "(downgrade.1,downgrade.2)", "unicredit") in _pairs("UniCredit and Intesa downgraded by S&P")
    # A question the parser reads as written is not rewritten.
    assert _pairs("Google buys Motorola") == {("google", "(buy.1,buy.2)", "motorola")}


def test_headline_as_prose_rewrites_one_verb_form() -> None:
    from graph_builder.extraction import DEFAULT_MODEL, _parsing
    from graph_builder.headlines import headline_as_prose

    with _parsing(DEFAULT_MODEL) as nlp:
        def prose(text: str) -> str | None:
            return headline_as_prose(nlp(text))

        assert prose("Yahoo fires Mayer") == "Yahoo fired Mayer."
        assert prose("Regulators fine Barclays") == "Regulators fined Barclays."
        assert prose("Tyco sued by Swartz") == "Tyco was sued by Swartz."
        assert prose("UniCredit and Intesa downgraded by S&P") == "UniCredit and Intesa were downgraded by S&P."
        # Not a verb after a determiner, a preposition or a verb; not a name; nothing to rewrite in prose.
        assert prose("Barclays paid the fines.") is None
        assert prose("The SEC fined Goldman.") is None


def test_a_noun_before_the_parsers_verb_is_not_made_the_verb() -> None:
    from graph_builder.extraction import DEFAULT_MODEL, _parsing
    from graph_builder.headlines import headline_as_prose

    with _parsing(DEFAULT_MODEL) as nlp:
        # "shares" is a present tense of "share", but the parser reads "drop" as the verb: not "RIM shared drop".
        assert headline_as_prose(nlp("RIM shares drop after board shuffle")) is None
        # The parser's own verb, in no headline form, ends the search: "involved" is not rewritten, nor "talks".
        assert headline_as_prose(nlp("Abu Dhabi royals involved in RBS talks")) is None
