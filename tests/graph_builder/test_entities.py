"""Canonical entities: each rule on hand-written mentions, the corpus rules' evidence, and the pass over a
dataset (idempotent, re-run from the names as extracted, recorded in the manifest)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from graph_builder.entities import (ALIASES_FILE, ENTITIES_VERSION, MIN_CORPUS_ARTICLES, MIN_LEGAL_SHARE, Mention,
                                    base_name, canonical_map, canonicalise, company_name, legal_initial,
                                    resolve_article)
from graph_builder.triples import DATASET_MANIFEST, read_triples, write_shard


@pytest.mark.parametrize(("name", "expected"), [
    ("bell atlantic corp", "bell atlantic"), ("google inc", "google"), ("goldman sachs group inc", "goldman sachs"),
    ("hsbc holdings plc", "hsbc"), ("siemens ag", "siemens"), ("jpmorgan chase & co", "jpmorgan chase"),
    ("deutsche bank", "deutsche bank"), ("the co", "the co"), ("u.s.", "u.s."), ("group", "group"),
    ("virgin group", "virgin"),
    # Stacked legal forms go one after the other (v3): cleanco alone drops only the last.
    ("j.c. penney co inc", "j.c. penney"), ("samsung electronics co ltd", "samsung electronics"),
    ("toyota motor corp ltd", "toyota motor"), ("mitsubishi ufj financial group inc", "mitsubishi ufj financial"),
    ("merrill lynch & co inc", "merrill lynch"), ("u.s. inc", "u.s. inc"),
    ("his co", "his co"), ("its co ltd", "its co ltd")])
def test_company_name_drops_legal_forms_by_whole_words(name: str, expected: str) -> None:
    assert company_name(name) == expected


def test_base_name_keeps_a_common_nouns_head_and_leaves_people_alone() -> None:
    assert base_name("kuaiti tanker", "Kuaiti tankers", "thing") == "tanker"
    assert base_name("tanker", "tankers", "thing") == "tanker"
    assert base_name("google revenue", "Google revenue", "thing") == "revenue"
    assert base_name("bell atlantic corp", "Bell Atlantic Corp", "organization") == "bell atlantic"
    assert base_name("ford co", "Ford Co", "person") == "ford co"  # a person has no legal form
    assert base_name("euro", "euro", "thing") == "euro"


def m(sentence: int, name: str, type_: str, surface: str | None = None, article: str = "a") -> Mention:
    return Mention(article, f"{article}:{sentence:04d}", name, type_, surface or name.title())


def test_in_article_short_forms_refer_to_one_earlier_longer_name() -> None:
    resolved = resolve_article([
        m(1, "barack obama", "person"), m(3, "obama", "person"),
        m(2, "new jersey bell telephone", "organization"), m(4, "new jersey bell", "organization"),
        m(0, "organization of petroleum exporting countries", "organization"), m(5, "opec", "organization", "OPEC"),
        m(1, "gerald ford", "person"), m(6, "ford", "organization"),  # a company is not the president
        m(0, "bell", "organization"), m(7, "rashtchy", "thing"), m(2, "safa rashtchy", "person"),
        m(8, "bank", "organization"), m(1, "bank of england", "organization"),  # too generic to stand for one
        m(9, "qintex", "organization"), m(1, "qintex 900,000", "organization"),  # a fragment, not a name
        m(9, "expedia", "organization"), m(1, "expedia to liberty media", "organization"),  # a phrase, not a name
        m(9, "smith", "person"), m(1, "john smith", "person"), m(2, "mary smith", "person")])  # two: ambiguous
    assert resolved == {
        ("obama", "person"): ("barack obama", "person", "surname"),
        ("new jersey bell", "organization"): ("new jersey bell telephone", "organization", "leading words"),
        ("opec", "organization"): ("organization of petroleum exporting countries", "organization", "acronym"),
        ("rashtchy", "thing"): ("safa rashtchy", "person", "surname")}


def test_an_acronym_may_spell_the_legal_form_written_after_the_name() -> None:
    # v3 drops stacked legal forms ("Co Ltd"), so the name no longer carries the C of TSMC; its mention does.
    full = Mention("a", "a:0000", "taiwan semiconductor manufacturing", "organization",
                   "Taiwan Semiconductor Manufacturing Co Ltd", legal=True)
    assert legal_initial(full.name, full.surface) == "c"
    assert legal_initial("merrill lynch", "Merrill Lynch & Co") == ""  # "&" is no initial
    assert legal_initial("bell atlantic", "Bell Atlantic") == ""
    assert resolve_article([full, m(2, "tsmc", "organization", "TSMC")]) == {
        ("tsmc", "organization"): ("taiwan semiconductor manufacturing", "organization", "acronym")}
    # Without the legal form written, the letters must be the name's own initials.
    bare = Mention("a", "a:0000", "taiwan semiconductor manufacturing", "organization",
                   "Taiwan Semiconductor Manufacturing")
    assert resolve_article([bare, m(2, "tsmc", "organization", "TSMC")]) == {}
    assert resolve_article([full, m(2, "tsmx", "organization", "TSMX")]) == {}


def test_a_short_form_mentioned_before_the_long_name_is_an_entity_of_its_own() -> None:
    # "Bell Atlantic said ... its unit Bell Atlantic Mobile ...": the parent is not the unit.
    assert resolve_article([m(0, "bell atlantic", "organization"), m(3, "bell atlantic mobile", "organization")]) == {}


def _articles(n: int, short: str, full: str, type_: str, spelled: bool, start: int = 0) -> list[Mention]:
    out = []
    for k in range(start, start + n):
        if spelled:
            out.append(m(0, full, type_, article=f"x{k}"))
        out.append(m(1, short, type_, short.upper() if len(short) <= 4 else None, article=f"x{k}"))
    return out


def test_corpus_aliases_need_enough_agreeing_articles() -> None:
    # 'obama' resolved in 3 articles, alone in 2: merged everywhere (3 >= 25% of 5).
    mapping = canonical_map(_articles(3, "obama", "barack obama", "person", True)
                            + _articles(2, "obama", "barack obama", "person", False, start=3))
    assert mapping.lookup("x4", "obama", "person") == ("barack obama", "person", "corpus")
    # Too few articles resolved it: no corpus alias.
    few = canonical_map(_articles(MIN_CORPUS_ARTICLES - 1, "romney", "mitt romney", "person", True)
                        + _articles(3, "romney", "mitt romney", "person", False, start=10))
    assert few.lookup("x11", "romney", "person") is None
    # Mostly standing on its own: resolved in 3 of 20 articles, so the parent keeps its own name.
    alone = canonical_map(_articles(3, "bell atlantic", "bell atlantic mobile", "organization", True)
                          + _articles(17, "bell atlantic", "bell atlantic mobile", "organization", False, start=3))
    assert alone.lookup("x10", "bell atlantic", "organization") is None
    # An acronym spelled out in a few articles is evidence enough, however often it stands alone.
    acronym = canonical_map(_articles(3, "fda", "food and drug administration", "organization", True)
                            + _articles(30, "fda", "food and drug administration", "organization", False, start=3))
    assert acronym.lookup("x20", "fda", "organization") == ("food and drug administration", "organization", "corpus")
    # Articles that disagree (two different Smiths): no alias.
    split = canonical_map(_articles(3, "smith", "john smith", "person", True)
                          + _articles(3, "smith", "mary smith", "person", True, start=3))
    assert split.lookup("x9", "smith", "person") is None


def _row(k: int, article: str, subj: str, subj_text: str, subj_type: str, obj: str, obj_text: str,
         obj_type: str = "thing") -> dict[str, object]:
    return {"triple_id": f"t{k:04d}", "article_id": article, "sentence_id": f"{article}:{k:04d}",
            "date": dt.date(2012, 11, 7), "window": 5217, "split": "TEST", "subj": subj, "subj_text": subj_text,
            "subj_type": subj_type, "obj": obj, "obj_text": obj_text, "obj_type": obj_type,
            "predicate": "(defeat.1,defeat.2)", "predicate_text": "defeated", "negated": False,
            "sentence": f"{subj_text} defeated {obj_text}."}


def test_the_pass_rewrites_every_shard_and_reruns_from_the_names_as_extracted(tmp_path: Path) -> None:
    folder = tmp_path / "triples"
    folder.mkdir()
    (folder / DATASET_MANIFEST).write_bytes(orjson.dumps({"format": "egqa.triples.v1"}))
    write_shard([_row(1, "a", "barack obama", "Barack Obama", "person", "mitt romney", "Mitt Romney", "person"),
                 _row(2, "a", "obama", "Obama", "person", "romney", "Romney", "person"),
                 _row(3, "a", "bell atlantic corp", "Bell Atlantic Corp", "organization", "kuaiti tanker",
                      "Kuaiti tankers")], folder / "part-00000.parquet")
    write_shard([_row(4, "b", "obama", "Obama", "person", "tanker", "tankers")], folder / "part-00001.parquet")
    report = canonicalise(folder)
    rows = read_triples(folder).to_pylist()
    assert [(r["subj"], r["obj"]) for r in rows] == [
        ("barack obama", "mitt romney"), ("barack obama", "mitt romney"), ("bell atlantic", "tanker"),
        ("obama", "tanker")]  # article b has no full name, and one article is too little evidence
    assert report.by_rule == {"surname": 2, "legal form": 1, "common-noun head": 1}
    assert (report.changed, report.mentions, report.names_before, report.names_after) == (4, 8, 7, 5)
    # Every text, id and sentence is kept; the names as extracted are kept beside each shard.
    assert [r["subj_text"] for r in rows] == ["Barack Obama", "Obama", "Bell Atlantic Corp", "Obama"]
    assert pq.read_table(folder / "names-00000.parquet")["subj"].to_pylist() == [
        "barack obama", "obama", "bell atlantic corp"]
    aliases = {(r["alias"], r["type"]): (r["canonical"], r["rule"])
               for r in pq.read_table(folder / ALIASES_FILE).to_pylist()}
    assert aliases == {("obama", "person"): ("barack obama", "surname"),
                       ("romney", "person"): ("mitt romney", "surname"),
                       ("bell atlantic corp", "organization"): ("bell atlantic", "legal form")}
    manifest = orjson.loads((folder / DATASET_MANIFEST).read_bytes())
    assert manifest["entities"]["version"] == ENTITIES_VERSION and manifest["entities"]["report"]["changed"] == 4
    # A second run starts from the names as extracted and changes nothing further.
    assert canonicalise(folder).to_dict() == report.to_dict()
    assert read_triples(folder).to_pylist() == rows


def test_a_name_written_with_a_legal_form_is_a_company_of_its_own() -> None:
    # "MBIA Inc" in one article makes "MBIA" a company, not a short form of "MBIA Insurance" in another.
    mentions = [Mention("x", "x:0000", "mbia", "organization", "MBIA Inc", legal=True),
                Mention("y", "y:0000", "mbia insurance", "organization", "MBIA Insurance"),
                Mention("y", "y:0001", "mbia", "organization", "MBIA")]
    assert canonical_map(mentions).lookup("y", "mbia", "organization") is None
    # Without it, the article's own reading stands.
    assert canonical_map(mentions[1:]).lookup("y", "mbia", "organization") == (
        "mbia insurance", "organization", "leading words")

def test_a_legal_form_in_few_of_a_names_articles_keeps_it_apart_only_there() -> None:
    # v4: one "Goldman co" among many articles naming "Goldman" no longer keeps every "Goldman" apart from the
    # "Goldman Sachs" of its own article (MIN_LEGAL_SHARE); the article that wrote the legal form keeps it apart.
    mentions = [Mention("x", "x:0000", "goldman", "organization", "Goldman co", legal=True),
                Mention("x", "x:0001", "goldman sachs", "organization", "Goldman Sachs")]
    for k in range(20):
        mentions += [Mention(f"y{k}", f"y{k}:0000", "goldman sachs", "organization", "Goldman Sachs"),
                     Mention(f"y{k}", f"y{k}:0001", "goldman", "organization", "Goldman")]
    assert 1 / 21 < MIN_LEGAL_SHARE
    mapping = canonical_map(mentions)
    assert mapping.lookup("y3", "goldman", "organization") == ("goldman sachs", "organization", "leading words")
    assert resolve_article(mentions[:2]) == {}
    # Written so in enough of its articles, the name is a company of its own everywhere.
    legal = [Mention(f"z{k}", f"z{k}:0000", "goldman", "organization", "Goldman co", legal=True) for k in range(3)]
    assert canonical_map(mentions + legal).lookup("y3", "goldman", "organization") is None


def test_a_surname_typed_otherwise_is_the_person_only_where_the_corpus_says_it_mostly_is() -> None:
    mentions = []
    for k in range(4):   # "Draghi", typed an organisation, follows "Mario Draghi" in every article
        mentions += [m(0, "mario draghi", "person", article=f"d{k}"), m(1, "draghi", "organization", article=f"d{k}")]
    mentions += [m(1, "draghi", "organization", article="d9")]   # ... and stands alone in one
    for k in range(6):   # "Ford" the company; a Ford person comes first in 2 of its 6 articles
        if k < 2:
            mentions.append(m(0, "gerald ford", "person", article=f"f{k}"))
        mentions.append(m(1, "ford", "organization", article=f"f{k}"))
    mapping = canonical_map(mentions)
    assert mapping.lookup("d0", "draghi", "organization") == ("mario draghi", "person", "surname, retyped")
    assert mapping.lookup("d9", "draghi", "organization") == ("mario draghi", "person", "corpus")
    assert mapping.lookup("f0", "ford", "organization") is None and mapping.lookup("f5", "ford", "organization") is None
    # Without the corpus, one article never retypes: the live path's resolution leaves "Ford" alone.
    assert resolve_article([m(0, "gerald ford", "person"), m(1, "ford", "organization")]) == {}


def test_the_recorded_read_of_v3s_renames_gives_the_documented_figures() -> None:
    # docs/entities.md: 57 of 60 renames that v3 makes (and v2 did not) name the same entity.
    path = Path(__file__).resolve().parents[2] / "bench" / "data" / "entity_merges_v3_verdicts.tsv"
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()[4:] if line.strip()]
    verdicts = [row[-1] for row in rows]
    assert len(verdicts) == 60 and verdicts.count("y") == 57 and verdicts.count("n") == 3
    assert {(row[1], row[3]) for row in rows if row[-1] == "n"} == {
        ("uac", "united aircraft"), ("charles schwab & co", "charles schwab"), ("his co", "his")}


def test_the_recorded_read_of_v4s_renames_gives_the_documented_figures() -> None:
    # docs/entities.md: 100 of 100 mentions v4 renames anew (and v3 did not) name the entity their sentence means.
    path = Path(__file__).resolve().parents[2] / "bench" / "data" / "entity_merges_v4_verdicts.tsv"
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    assert len(rows) == 100 and len({(r[0], r[1]) for r in rows}) == 100
    assert [r[2] for r in rows].count("ok") == 100
