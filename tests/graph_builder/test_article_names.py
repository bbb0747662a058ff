"""A company or person the recogniser finds in one sentence of an article is marked where it misses it in another.

Our own sentences: the small recogniser reads "Barclays" as a company in "Jenkins said Barclays would cut jobs."
and finds no entity at all in "Barclays has launched a consultation with employees.", which alone gives no triple."""

from __future__ import annotations

from graph_builder.extraction import SentenceParser, _article_names, _marks_of, load_pipeline

CUT = "Jenkins said Barclays would cut jobs."
CONSULT = "Barclays has launched a consultation with employees."


def _triples(parser: SentenceParser, text: str) -> list[list[tuple[str, str, str, str]]]:
    return [[(r.subj.norm, r.subj.type, r.predicate, r.obj.norm) for r in s.relations] for s in parser.parse([text])[0]]


def test_a_name_the_article_holds_is_marked_where_the_recogniser_missed_it() -> None:
    parser = SentenceParser(load_pipeline())
    assert _triples(parser, CONSULT) == [[]]  # alone: no entity, never parsed
    got = _triples(parser, f"{CUT}\n{CONSULT}")
    assert ("barclays", "organization", "(launch.1,launch.2)", "consultation") in got[1]
    assert parser.stats.article_names == 1
    # The same sentence in an article without the name is read as before, from the same memo, in any order.
    again = SentenceParser(load_pipeline())
    assert _triples(again, f"{CUT}\n{CONSULT}") == got and _triples(again, CONSULT) == [[]]
    assert _triples(again, f"{CUT}\n{CONSULT}") == got


def test_article_names_are_companies_and_people_of_three_letters_or_more_marked_outside_entities() -> None:
    marks = [((0, 1, "ORG", ("Man",)), (3, 5, "PERSON", ("Bob", "Diamond"))), ((0, 1, "GPE", ("Spain",)),),
             ((2, 3, "ORG", ("GM",)), (4, 5, "ORG", ("rival",)), (0, 1, "PERSON", ("Man",)))]
    names = _article_names(marks)
    assert names == {("Man",): "ORG", ("Bob", "Diamond"): "PERSON"}
    words = ["Man", "told", "Bob", "Diamond", "that", "Man", "-", "made", "fibres", "sell", "."]
    # Outside the entities found (Bob Diamond is one), whole tokens, not joined by a hyphen.
    assert _marks_of(words, names, ((2, 4, "PERSON", ("Bob", "Diamond")),)) == ((0, 1, "ORG", ("Man",)),)
    assert _marks_of(["Bob", "Diamond", "spoke"], names, ()) == ((0, 2, "PERSON", ("Bob", "Diamond")),)
    # Not a part of a longer name the recogniser missed too.
    assert _marks_of(["Shares", "of", "Man", "Group", "rose"], names, ()) == ()
    assert _marks_of(["At", "Big", "Man", "today"], names, ()) == ()


def test_a_memo_of_no_size_still_answers_sentences_read_before() -> None:
    """With `cache_size=0` (the gold set's evaluation) a sentence read in an earlier batch is answered again."""
    parser = SentenceParser(load_pipeline(), cache_size=0)
    first = _triples(parser, f"{CUT}\n{CONSULT}")
    assert _triples(parser, f"{CUT}\n{CONSULT}") == first and _triples(parser, CUT) == first[:1]
