"""Questions name people and companies as people do; the engine finds the store's canonical names.

A fixture of our own sentences (no corpus text): extracted-looking rows, the canonical-entities pass, a
SQLite store, and the engine asked by text and by triple."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from benchmark.questions import ask_questions, read_questions, summary
from graph_builder.entities import canonicalise
from graph_builder.errors import InputError
from graph_builder.graphs.graphset import GraphSet
from graph_builder.triples import DATASET_MANIFEST, write_shard
from graph_builder.windows import window_of
from retrieval.factory import open_store
from retrieval.ingest import index_dataset
from service.app import create_app
from retrieval.protocol import NameMatch
from service.engine import HypothesisInput, Options, ScoringEngine
from service.names import NameResolver, window_matches
from service.settings import Settings
from tests.graph_builder.lm_fixtures import build_lm_graphs
from tests.service.live import live_server

DAY = dt.date(2012, 11, 7)
LATER = dt.date(2013, 1, 18)


def _row(k: int, article: str, subj: tuple[str, str, str], predicate: str, obj: tuple[str, str, str],
         sentence: str, day: dt.date = DAY) -> dict[str, object]:
    return {"triple_id": f"t{k:04d}", "article_id": article, "sentence_id": f"{article}:{k:04d}", "date": day,
            "window": window_of(day), "split": "TEST", "subj": subj[0], "subj_text": subj[1], "subj_type": subj[2],
            "obj": obj[0], "obj_text": obj[1], "obj_type": obj[2], "predicate": predicate,
            "predicate_text": predicate, "negated": False, "sentence": sentence}


OBAMA = ("barack obama", "Barack Obama", "person")
ROMNEY = ("mitt romney", "Mitt Romney", "person")
ROWS = [
    _row(1, "a1", OBAMA, "(defeat.1,defeat.2)", ROMNEY, "Barack Obama defeated Mitt Romney on Tuesday."),
    _row(2, "a1", ("obama", "Obama", "person"), "(win.1,win.2)", ("election", "election", "thing"),
         "Obama won the election."),
    _row(3, "a2", ("new jersey bell telephone co", "New Jersey Bell Telephone Co", "organization"),
         "(raise.1,raise.2)", ("rate", "rates", "thing"), "New Jersey Bell Telephone Co raised rates."),
    _row(4, "a2", ("bell atlantic corp", "Bell Atlantic Corp", "organization"), "(own.1,own.2)",
         ("new jersey bell", "New Jersey Bell", "organization"), "Bell Atlantic Corp owns New Jersey Bell."),
    _row(5, "a3", ("navy", "navy", "thing"), "(protect.1,protect.2)", ("kuaiti tanker", "Kuaiti tankers", "thing"),
         "The navy protected the 11 Kuaiti tankers."),
    _row(6, "a4", ("john smith", "John Smith", "person"), "(visit.1,visit.2)", ("paris", "Paris", "location"),
         "John Smith visited Paris."),
    _row(7, "a4", ("mary smith", "Mary Smith", "person"), "(visit.1,visit.2)", ("paris", "Paris", "location"),
         "Mary Smith visited Paris."),
    _row(8, "a5", ("bhp billiton ltd", "BHP Billiton Ltd", "organization"), "(buy.1,buy.from.2)",
         ("chesapeake energy corp", "Chesapeake Energy Corp", "organization"),
         "BHP Billiton Ltd bought assets from Chesapeake Energy Corp."),
    # Two famous Armstrongs: the one more mentioned overall, and the one in the news of a later window.
    *[_row(20 + k, f"a{20 + k}", ("tim armstrong", "Tim Armstrong", "person"), "(lead.1,lead.2)",
           ("aol", "AOL", "organization"), "Tim Armstrong leads AOL.") for k in range(3)],
    _row(30, "a30", ("lance armstrong", "Lance Armstrong", "person"), "(admit.1,admit.2)",
         ("doping", "doping", "thing"), "Lance Armstrong admitted doping.", LATER),
    # A company stored under its short name in other weeks, and a unit of it (a name of its own) in this one.
    *[_row(40 + k, f"a{40 + k}", ("motorola", "Motorola", "organization"), "(make.1,make.2)",
           ("phone", "phones", "thing"), "Motorola makes phones.", LATER) for k in range(3)],
    _row(46, "a46", ("nato", "NATO", "organization"), "(protect.1,protect.2)", ("tanker", "tankers", "thing"),
         "NATO protected the tankers."),
    *[_row(50 + k, f"a{50 + k}", ("disney", "Disney", "organization"), "(open.1,open.2)",
           ("park", "parks", "thing"), "Disney opened parks.", LATER) for k in range(2)],
    _row(52, "a52", ("walt disney", "Walt Disney", "organization"), "(buy.1,buy.2)",
         ("lucasfilm", "Lucasfilm", "organization"), "Walt Disney bought Lucasfilm."),
    # A company the recogniser took for a place, under its short name in other weeks and with its legal form in this.
    *[_row(60 + k, f"a{60 + k}", ("yammer", "Yammer", "location"), "(have.1,have.2)", ("user", "users", "thing"),
           "Yammer has users.", LATER) for k in range(3)],
    _row(63, "a63", ("microsoft", "Microsoft", "organization"), "agree__(buy.1,buy.2)",
         ("yammer inc", "Yammer Inc", "location"), "Microsoft agreed to buy Yammer Inc."),
    _row(64, "a64", ("barclays", "Barclays", "organization"), "agree__(pay.1,pay.2)", ("regulator", "regulators", "thing"),
         "On Wednesday Barclays agreed to pay regulators."),
    # A person of the noun's form in other weeks: "Barclays" at the start of a question reads as `barclay`.
    *[_row(65 + k, f"a{65 + k}", ("barclay", "Barclay", "person"), "(sing.1,sing.in.2)", ("paris", "Paris", "location"),
           "Barclay sang in Paris.", LATER) for k in range(2)],
    # Five companies whose names begin with "Continental", more mentioned in other weeks than the one in this week's news.
    *[_row(70 + k, f"a{70 + k}", (f"continental {name}", f"Continental {name.title()}", "organization"),
           "(fly.1,fly.to.2)", ("paris", "Paris", "location"), "Continental flies to Paris.", LATER)
      for k, name in enumerate(["airlines"] * 4 + ["grain"] * 3 + ["baking"] * 3 + ["advisors"] * 2)],
    _row(90, "a90", ("continental resources", "Continental Resources", "organization"), "(hire.1,hire.2)",
         ("kirk kinnear", "Kirk Kinnear", "person"), "Continental Resources hired Kirk Kinnear."),
    # A compound common noun stored in one article, its head in the news of this week.
    _row(91, "a91", ("central bank", "central bank", "thing"), "(raise.1,raise.2)",
         ("interest rate", "Interest Rates", "thing"), "Interest Rates: the bank raised them.", LATER),
    _row(92, "a92", ("european central bank", "European Central Bank", "organization"), "(keep.1,keep.2)",
         ("rate", "rates", "thing"), "The European Central Bank kept rates unchanged."),
    _row(93, "a93", ("s&p", "S&P", "organization"), "(downgrade.1,downgrade.2)", ("unicredit", "UniCredit",
         "organization"), "S&P downgraded UniCredit."),
    # Names a question shortens as the news of its own week does not: a surname stored alone in other weeks, a
    # contraction and an acronym.
    *[_row(100 + k, f"a{100 + k}", ("martin", "Martin", "person"), "(sing.1,sing.in.2)", ("paris", "Paris", "location"),
           "Martin sang in Paris.", LATER) for k in range(3)],
    _row(103, "a103", ("trent martin", "Trent Martin", "person"), "(plead.1,plead.guilty.to.2)",
         ("charge", "charges", "thing"), "Trent Martin pleaded guilty to charges."),
    _row(104, "a104", ("mbia", "MBIA", "organization"), "agree__(pay.1,pay.2)",
         ("societe generale", "Societe Generale", "organization"), "MBIA agreed to pay Societe Generale money."),
    _row(105, "a105", ("u.s. department of justice", "U.S. Department of Justice", "organization"), "(sue.1,sue.2)",
         ("acme", "Acme", "organization"), "The U.S. Department of Justice sued Acme."),
    _row(106, "a106", ("fitch", "Fitch", "organization"), "(downgrade.1,downgrade.2)",
         ("portugal", "Portugal", "location"), "Fitch downgraded Portugal."),
    _row(45, "a45", ("google", "Google", "organization"), "(complete.1,complete.purchase.of.2)",
         ("motorola mobility", "Motorola Mobility", "organization"),
         "Google completed its purchase of Motorola Mobility."),
]


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture's triples, canonicalised, indexed into a SQLite store, with small graphs."""
    root = tmp_path_factory.mktemp("names")
    triples = root / "triples"
    triples.mkdir()
    (triples / DATASET_MANIFEST).write_bytes(orjson.dumps({"format": "egqa.triples.v1"}))
    write_shard(ROWS, triples / "part-00000.parquet")
    canonicalise(triples)
    with open_store(f"sqlite:///{root / 'evidence.db'}") as store:
        index_dataset(triples, store)
    build_lm_graphs(root / "graphs")
    return root


@pytest.fixture(scope="module")
def engine(build: Path) -> Iterator[ScoringEngine]:
    store = open_store(f"sqlite:///{build / 'evidence.db'}", create=False)
    yield ScoringEngine(GraphSet.load(build / "graphs" / "graphs"), store)
    store.close()


def ask(engine: ScoringEngine, **item: object) -> tuple[bool, str, str, tuple[str, ...], int]:
    answer = engine.judge([HypothesisInput(date=DAY, **item)], Options(top_k=1))[0]  # type: ignore[arg-type]
    h = answer.hypothesis
    return answer.answer, h.subj, h.obj, h.names, answer.evidence_count


def test_a_surname_finds_the_full_name(engine: ScoringEngine) -> None:
    assert ask(engine, subject="Obama", predicate="(defeat.1,defeat.2)", object="Romney") == (
        True, "barack obama", "mitt romney", ("obama -> barack obama (alias)", "romney -> mitt romney (surname)"), 1)
    # The article's own short form was merged into the full name at indexing: its triple is found too.
    assert ask(engine, text="Barack Obama won the election.")[:2] == (True, "barack obama")


def test_a_legal_form_or_a_short_company_name_finds_the_company(engine: ScoringEngine) -> None:
    answer, subj, obj, names, _ = ask(engine, text="New Jersey Bell is owned by Bell Atlantic.")
    assert (answer, subj, obj) == (True, "bell atlantic", "new jersey bell telephone")
    assert names == ("bell atlantic (exact)", "new jersey bell -> new jersey bell telephone (alias)")
    assert ask(engine, subject="Bell Atlantic Corp.", predicate="(own.1,own.2)", object="New Jersey Bell")[0]


def test_a_plural_common_noun_meets_its_head(engine: ScoringEngine) -> None:
    answer, subj, obj, names, _ = ask(engine, subject="the navy", predicate="(protect.1,protect.2)",
                                      object="the Kuaiti tankers")
    assert (answer, subj, obj, names[1]) == (True, "navy", "tanker", "kuaiti tankers -> tanker (head)")
    assert ask(engine, text="The navy protected the tankers.")[:3] == (True, "navy", "tanker")


def test_two_people_of_one_surname_are_ambiguous_unless_the_window_tells(engine: ScoringEngine) -> None:
    assert engine.names.resolve("smith", "person").describe() == "smith: ambiguous (john smith, mary smith)"
    # Both Smiths visited Paris that week: the first candidate with news in the window answers, and says so.
    answer, subj, _, names, count = ask(engine, subject="Smith", predicate="(visit.1,visit.2)", object="Paris")
    assert (answer, subj, count, names[0]) == (True, "john smith", 1, "smith -> john smith (in window)")
    # The more mentioned Armstrong is not the one in the news of January 2013.
    assert engine.names.resolve("armstrong", "person").options() == ("armstrong", "tim armstrong", "lance armstrong")
    later = engine.judge([HypothesisInput(text="Armstrong admitted doping.", date=LATER)], Options(top_k=1))[0]
    assert later.answer and later.hypothesis.subj == "lance armstrong"
    assert later.hypothesis.names[0] == "armstrong -> lance armstrong (in window)"
    # The request's type is a constraint on the names a name may stand for: no organisation is called Smith. (A name
    # the store merged under another type is still found: see the test on typed names below.)
    assert ask(engine, subject="Smith", subject_type="organization", predicate="(visit.1,visit.2)",
               object="Paris")[3][0] == "smith (unknown)"


def test_a_stored_name_gives_way_to_the_name_the_window_has_news_about(engine: ScoringEngine) -> None:
    assert engine.names.resolve("motorola", "organization").describe() == "motorola (exact)"
    answer, subj, obj, names, count = ask(engine, subject="Google", predicate="(complete.1,complete.purchase.of.2)",
                                          object="Motorola")
    assert (answer, subj, obj, count) == (True, "google", "motorola mobility", 1)
    assert names[1] == "motorola -> motorola mobility (in window)"
    # An organisation whose name ends with the asked one is an alternative too, taken only for the window's news.
    assert engine.names.resolve("disney", "organization").describe() == "disney (exact)"
    assert ask(engine, text="Disney bought Lucasfilm.")[1:4] == (
        "walt disney", "lucasfilm", ("disney -> walt disney (in window)", "lucasfilm (exact)"))
    # The name with a legal form is an alternative whatever type the store gives it.
    assert ask(engine, text="Microsoft agreed to buy Yammer.")[:4] == (
        True, "microsoft", "yammer inc", ("microsoft (exact)", "yammer -> yammer inc (in window)"))
    # Where the window has no news about either, the name stays as asked.
    later = engine.judge([HypothesisInput(subject="Google", predicate="(complete.1,complete.purchase.of.2)",
                                          object="Motorola", date=LATER)], Options(top_k=1))[0]
    assert (later.answer, later.hypothesis.obj, later.hypothesis.names[1]) == (False, "motorola", "motorola (exact)")


def test_the_window_finds_a_name_beyond_the_most_mentioned_alternatives(engine: ScoringEngine) -> None:
    # `continental resources` is the fifth of the names "Continental" may stand for; none of the first four has news
    # in this window, so the wider look finds it.
    assert "continental resources" not in engine.names.resolve("continental", "organization").options()
    answer, subj, obj, names, count = ask(engine, subject="Continental", predicate="(hire.1,hire.2)",
                                          object="Kinnear")
    assert (answer, subj, obj, count) == (True, "continental resources", "kirk kinnear", 1)
    assert names == ("continental -> continental resources (in window)", "kinnear -> kirk kinnear (surname)")


def test_a_spelled_out_name_finds_its_acronym(engine: ScoringEngine) -> None:
    answer, subj, _, names, _ = ask(engine, text="The North Atlantic Treaty Organization protected the tankers.")
    assert (answer, subj, names[0]) == (True, "nato", "north atlantic treaty organization -> nato (acronym)")
    # Not across types: no person is called NATO; nor for a name of unknown type, which may be a common noun.
    assert engine.names.resolve("north atlantic treaty organization", "person").how == "unknown"
    assert engine.names.resolve("north atlantic treaty organization", "thing").how != "acronym"
    assert engine.names.resolve("nato", "organization").describe() == "nato (exact)"


def test_a_question_file_is_asked_over_http_and_scored(build: Path, tmp_path: Path) -> None:
    lines = [{"id": "t1", "text": "Obama defeated Romney.", "date": "2012-11-07", "expected": True, "kind": "surnames"},
             {"id": "t2", "text": "Romney defeated Obama.", "date": "2012-11-07", "expected": False},
             {"id": "t3", "text": "Smith visited Paris.", "date": "2012-11-07", "expected": True},
             {"id": "t4", "text": "Rain.", "date": "2012-11-07", "expected": False}]
    path = tmp_path / "questions.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(line) for line in lines))
    settings = Settings(graphs_dir=build / "graphs" / "graphs", store_url=f"sqlite:///{build / 'evidence.db'}",
                        lm=False)
    with live_server(create_app(settings)) as (host, port):
        results = ask_questions(read_questions(path), f"http://{host}:{port}")
    assert [(r.question.id, r.answer, r.right) for r in results] == [
        ("t1", True, True), ("t2", False, True), ("t3", True, True), ("t4", False, True)]
    assert results[0].names == ("obama -> barack obama (alias)", "romney -> mitt romney (surname)")
    assert results[3].error is not None and "found no proposition" in results[3].error
    assert summary(results) == {"questions": 4, "right": 4, "true_questions": 2, "true_right": 2,
                                "true_with_evidence": 2, "unread": 1, "always_false": 2}


def test_a_bad_question_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "a", "text": "x", "date": "2012-11-07", "expected": true}\n{"text": "y", "date": "x"}\n')
    with pytest.raises(InputError, match=r"q.jsonl:2: not a question"):
        read_questions(path)


def test_a_question_with_three_participants_is_judged_on_each_reading(engine: ScoringEngine) -> None:
    answer = engine.judge([HypothesisInput(text="BHP Billiton bought shale wells from Chesapeake Energy.", date=DAY)],
                          Options(top_k=1))[0]
    # The store knows nothing of the wells: the buyer / seller reading answers, and says so first.
    assert answer.answer and answer.evidence[0].evidence.sentence.startswith("BHP Billiton Ltd bought")
    assert answer.readings == ["bhp billiton | (buy.1,buy.from.2) | chesapeake energy",
                               "bhp billiton | (buy.1,buy.2) | well",
                               "well | (buy.2,buy.from.2) | chesapeake energy"]
    # Each reading's own judgement, in the same order: the answering one true, the others without evidence.
    assert [(j.reading, j.answer, j.evidence_count > 0) for j in answer.judged] == [
        (answer.readings[0], True, True), (answer.readings[1], False, False), (answer.readings[2], False, False)]
    assert answer.judged[0].score == answer.score


def test_a_name_read_as_a_common_noun_is_asked_as_written(engine: ScoringEngine) -> None:
    """At the start of a question the recogniser may miss a company: "Barclays" reads as the noun `barclay`. The
    store also holds a `barclay` (a person, in other weeks): the window's news chooses the name as written."""
    answer, subj, obj, names, count = ask(engine, text="Barclays agreed to pay regulators.")
    assert (answer, subj, obj, names[0], count) == (True, "barclays", "regulator", "barclay -> barclays (in window)", 1)
    assert engine.names.resolve("barclay").name == "barclay"


def test_a_compound_common_noun_also_offers_its_head_to_the_window(engine: ScoringEngine) -> None:
    assert engine.names.resolve("interest rate").options() == ("interest rate", "rate")
    answer, subj, obj, names, count = ask(engine, text="The European Central Bank kept its interest rate unchanged.")
    assert (answer, subj, obj, count) == (True, "european central bank", "rate", 1)
    assert names[1] == "interest rate -> rate (in window)"


def test_the_full_stop_that_ends_a_question_is_no_part_of_its_last_name(engine: ScoringEngine) -> None:
    assert engine.names.resolve("s&p.").describe() == "s&p (exact)"
    assert engine.names.resolve("zzz.").how == "unknown"
    answer, subj, obj, _, count = ask(engine, text="UniCredit was downgraded by S&P.")
    assert (answer, subj, obj, count) == (True, "s&p", "unicredit", 1)


def test_a_name_finds_the_name_of_its_own_week(engine: ScoringEngine) -> None:
    """A surname the store also holds alone (other weeks' `martin`), a contraction and an acronym of names only the
    question's own week holds: the window's news chooses them, and the explanation says so."""
    answer, subj, obj, names, count = ask(engine, text="Martin pleaded guilty to charges.")
    assert (answer, subj, obj, count) == (True, "trent martin", "charge", 1)
    assert names[0] == "martin -> trent martin (in window)"
    answer, subj, obj, names, _ = ask(engine, text="MBIA agreed to pay SocGen.")
    assert (answer, subj, obj) == (True, "mbia", "societe generale")
    assert "socgen -> societe generale (in window)" in names
    answer, subj, obj, names, _ = ask(engine, text="The DOJ sued Acme.")
    assert (answer, subj, obj) == (True, "u.s. department of justice", "acme")
    # Outside that week the names stay as asked, and a common noun never stands for a name of the week.
    assert ask(engine, text="Martin sang in Paris.")[1:3] == ("martin", "paris")
    assert ask(engine, text="The charges pleaded guilty to the department.")[1] != "trent martin"


def test_window_rules_read_surnames_leading_words_acronyms_and_contractions() -> None:
    """Each rule on its own, with the types it may reach; the asked name itself is never a match."""
    names = [NameMatch(n, t, 1, "window") for n, t in [
        ("richard leon", "person"), ("leon", "person"), ("leon group", "organization"),
        ("societe generale", "organization"), ("u.s. department of justice", "organization"),
        ("hewlett packard", "organization"), ("federal express", "organization"), ("generale", "organization"),
        ("principal financial group", "organization"), ("hp", "organization")]]
    assert window_matches("leon", "person", names) == ("richard leon",)
    assert window_matches("leon", None, names) == ("richard leon", "leon group")
    assert window_matches("socgen", "organization", names) == ("societe generale",)
    assert window_matches("fedex", None, names) == ("federal express",)
    assert window_matches("doj", "organization", names) == ("u.s. department of justice",)
    assert window_matches("hp", "organization", names) == ("hewlett packard",)
    assert window_matches("principal financial", "organization", names) == ("principal financial group",)
    # Pieces of fewer than two letters, a word that only begins a name, and a person asked as a company: none.
    assert window_matches("sgen", None, names) == ()
    assert window_matches("soci", None, names) == ()
    assert window_matches("leon", "organization", names) == ("leon group",)
    assert window_matches("", None, names) == ()
    # A hyphen parts words: "Freeport" begins `freeport-mcmoran copper & gold`.
    assert window_matches("freeport", None, [NameMatch("freeport-mcmoran copper & gold", "organization", 1,
                                                       "window")]) == ("freeport-mcmoran copper & gold",)
    # Two names the recogniser joined into one are no full name of either ("Boeing put Feldmann in charge").
    joined = [NameMatch("feldmann and leverkuhn", "organization", 3, "window"),
              NameMatch("scott feldmann", "person", 1, "window")]
    assert window_matches("feldmann", None, joined) == ("scott feldmann",)
    assert window_matches("leverkuhn", None, joined) == ()
    assert NameResolver._partial("feldmann", None, [NameMatch("feldmann and leverkuhn", "organization", 3, "prefix")]) \
        is None


def test_a_common_noun_a_name_owns_is_also_asked_as_the_name(engine: ScoringEngine) -> None:
    """"Fitch downgraded Portugal's rating": the news says Fitch downgraded Portugal; the answer names its reading."""
    answer = engine.judge([HypothesisInput(date=DAY, text="Fitch downgraded Portugal's rating.")], Options(top_k=1))[0]
    assert answer.answer and (answer.hypothesis.subj, answer.hypothesis.obj) == ("fitch", "portugal")
    assert answer.readings[0] == "fitch | (downgrade.1,downgrade.2) | portugal"
    assert "fitch | (downgrade.1,downgrade.2) | rating" in answer.readings


def test_a_typed_name_merged_under_another_type_finds_its_alias(engine: ScoringEngine) -> None:
    # A benchmark typed by an older typing may give a name a type the store's alias does not carry: the name held as
    # asked is found whatever its type, and so is the name it was merged into.
    assert ask(engine, subject="obama", subject_type="organization", predicate="(defeat.1,defeat.2)",
               object="mitt romney", object_type="person") == (
        True, "barack obama", "mitt romney", ("obama -> barack obama (alias)", "mitt romney (exact)"), 1)
