"""A question the small parser misreads is read again with its names stood in for by names it reads well."""

from __future__ import annotations

from graph_builder.extraction import extract_text
from graph_builder.extraction.questions import extract_question


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
    from graph_builder.extraction.questions import possessor_readings
    text = "Fitch cut Portugal's rating."
    found = extract_question(text)
    assert [(t["subject"], t["predicate"], t["object"]) for t in found] == [("fitch", "(cut.1,cut.2)", "rating")]
    assert [(t["subject"], t["predicate"], t["object"], t["object_type"], t["object_text"])
            for t in possessor_readings(text, found)] == [("fitch", "(cut.1,cut.2)", "portugal", "location", "Portugal")]
    assert possessor_readings("Google bought Motorola.", extract_question("Google bought Motorola.")) == []
    text = "Portugal cut Portugal's spending."
    assert possessor_readings(text, extract_question(text)) == []
