"""One type per name across the corpus: majority vote of recognised, capitalised mentions."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from graph_builder.entities import company_name
from graph_builder.entity_types import (TYPES_FILE, harmonise_types, listed_companies, majority_types, read_listed,
                                        write_listed)
from graph_builder.triples import read_triples, shard_path, write_shard


def _row(n: int, subj: str, subj_text: str, subj_type: str, obj: str = "paris", obj_text: str = "Paris",
         obj_type: str = "location") -> dict[str, object]:
    import datetime as dt
    return {"triple_id": f"a{n}:0000:000", "article_id": f"a{n}", "sentence_id": f"a{n}:0000",
            "date": dt.date(2012, 1, 2), "window": 5000, "split": "TEST", "subj": subj, "subj_text": subj_text,
            "subj_type": subj_type, "obj": obj, "obj_text": obj_text, "obj_type": obj_type,
            "predicate": "(visit.1,visit.2)", "predicate_text": "visited", "negated": False, "sentence": f"s{n}"}


def test_majority_type_wins_for_capitalised_mentions_only(tmp_path: Path) -> None:
    rows = [
        _row(1, "goodrich", "Goodrich", "organization"),
        _row(2, "goodrich", "Goodrich", "organization"),
        _row(3, "goodrich", "Goodrich", "person"),        # the recogniser's slip: 2 votes to 1 -> organization
        _row(4, "goodrich", "Goodrich", "thing"),         # a missed name takes the majority type too
        _row(5, "bank", "bank", "thing"),                 # a common noun keeps `thing` ...
        _row(6, "bank", "Bank", "organization"),          # ... even when a capitalised "Bank" is an organisation
    ]
    write_shard(rows[:3], shard_path(tmp_path, "one"))
    write_shard(rows[3:], shard_path(tmp_path, "two"))
    report = harmonise_types(tmp_path)
    table = read_triples(tmp_path).to_pylist()
    got = {(r["article_id"], r["subj_type"]) for r in table}
    assert got == {("a1", "organization"), ("a2", "organization"), ("a3", "organization"), ("a4", "organization"),
                   ("a5", "thing"), ("a6", "organization")}
    assert report.changed == 2 and report.changes == {"person->organization": 1, "thing->organization": 1}
    types = dict(zip(*pq.read_table(tmp_path / TYPES_FILE).to_pydict().values()))
    assert types["goodrich"] == "organization" and types["paris"] == "location"
    # idempotent: a second run changes nothing
    assert harmonise_types(tmp_path).changed == 0


def test_ties_break_by_type_name(tmp_path: Path) -> None:
    write_shard([_row(1, "jordan", "Jordan", "person"), _row(2, "jordan", "Jordan", "location")],
                shard_path(tmp_path, "one"))
    harmonise_types(tmp_path)
    assert {r["subj_type"] for r in read_triples(tmp_path).to_pylist()} == {"location"}


def test_a_company_written_with_its_legal_form_is_an_organization(tmp_path: Path) -> None:
    rows = [
        _row(1, "pfizer inc", "Pfizer Inc", "organization"),
        _row(2, "pfizer inc", "Pfizer Inc", "organization"),
        _row(3, "pfizer", "Pfizer", "person"),          # the recogniser reads the bare name by its look:
        _row(4, "pfizer", "Pfizer", "person"),          # three persons against two organisations, yet the
        _row(5, "pfizer", "Pfizer", "person"),          # writer calls it a company twice in five
        _row(6, "berkshire hathaway inc", "Berkshire Hathaway Inc", "building"),
        _row(7, "berkshire hathaway inc", "Berkshire Hathaway Inc", "building"),
        _row(8, "berkshire hathaway", "Berkshire Hathaway", "person"),
        _row(9, "acme corp", "Acme Corp", "thing"),     # never recognised, twice written as a company
        _row(10, "acme corp", "Acme Corp", "thing"),
    ]
    write_shard(rows, shard_path(tmp_path, "one"))
    harmonise_types(tmp_path)
    got = {r["subj"]: r["subj_type"] for r in read_triples(tmp_path).to_pylist()}
    assert got == {"pfizer inc": "organization", "pfizer": "organization", "berkshire hathaway inc": "organization",
                   "berkshire hathaway": "organization", "acme corp": "organization"}


def test_one_legal_form_among_many_mentions_is_not_enough(tmp_path: Path) -> None:
    # "Charles Schwab" the man, once as "Charles Schwab Corp" in 11 mentions: below MIN_LEGAL_SHARE. The mention
    # written with the legal form is the company all the same.
    rows = [_row(k, "charles schwab", "Charles Schwab", "person") for k in range(10)]
    rows += [_row(10, "charles schwab corp", "Charles Schwab Corp", "organization")]
    # A single legal form is below MIN_LEGAL_MENTIONS whatever its share.
    rows += [_row(11, "jordan", "Jordan", "location"), _row(12, "jordan co", "Jordan Co", "organization")]
    write_shard(rows, shard_path(tmp_path, "one"))
    harmonise_types(tmp_path)
    got = {(r["subj"], r["subj_type"]) for r in read_triples(tmp_path).to_pylist()}
    assert got == {("charles schwab", "person"), ("charles schwab corp", "organization"), ("jordan", "location"),
                   ("jordan co", "organization")}


def test_typing_votes_on_the_names_as_extracted_and_is_recorded(tmp_path: Path) -> None:
    import orjson

    from graph_builder.entities import canonicalise
    from graph_builder.entity_types import TYPES_VERSION
    from graph_builder.triples import DATASET_MANIFEST

    rows = [_row(1, "pfizer inc", "Pfizer Inc", "organization"), _row(2, "pfizer inc", "Pfizer Inc", "organization"),
            _row(3, "pfizer", "Pfizer", "person"), _row(4, "pfizer", "Pfizer", "person"),
            _row(5, "pfizer", "Pfizer", "person")]
    write_shard(rows, shard_path(tmp_path, "one"))
    first = harmonise_types(tmp_path)
    canonicalise(tmp_path)
    after = read_triples(tmp_path).to_pylist()
    assert {(r["subj"], r["subj_type"]) for r in after} == {("pfizer", "organization")}
    # Typed again after the canonical names are written, it votes on the same names and changes nothing.
    assert harmonise_types(tmp_path).changed == 0 and first.changed == 3
    manifest = orjson.loads((tmp_path / DATASET_MANIFEST).read_bytes())
    assert manifest["types"]["version"] == TYPES_VERSION == "egqa.majority-types.v5"
    assert manifest["types"]["report"]["changed"] == 0


def test_an_untyped_mention_of_a_name_takes_its_companys_type(tmp_path: Path) -> None:
    # "Pfizer" the recogniser typed a person once and left untyped once; the writer calls the company "Pfizer Inc":
    # both bare mentions are the company.
    rows = [_row(4, "pfizer inc", "Pfizer Inc", "organization"), _row(5, "pfizer inc", "Pfizer Inc", "organization"),
            _row(6, "pfizer", "Pfizer", "person"), _row(7, "pfizer", "Pfizer", "thing")]
    write_shard(rows, shard_path(tmp_path, "one"))
    harmonise_types(tmp_path)
    got = {r["article_id"]: r["subj_type"] for r in read_triples(tmp_path).to_pylist()}
    assert got == {"a4": "organization", "a5": "organization", "a6": "organization", "a7": "organization"}


def test_an_untyped_common_noun_or_unrecognised_word_takes_its_own_names_type(tmp_path: Path) -> None:
    # "News Corp" is a company; a capitalised "News" never recognised is not made one by it. "Oil Corp" is a company
    # too; "Oil", typed a person once, is mostly a lower-case argument ("oil", three times against two capitalised),
    # so an untyped "Oil" keeps its own name's majority.
    rows = [_row(1, "news corp", "News Corp", "organization"), _row(2, "news corp", "News Corp", "organization"),
            _row(3, "news", "NEWS", "thing"),
            _row(10, "oil corp", "Oil Corp", "organization"), _row(11, "oil corp", "Oil Corp", "organization"),
            _row(12, "oil", "Oil", "person"), _row(13, "oil", "Oil", "thing"),
            *(_row(14 + k, "oil", "oil", "thing") for k in range(3))]
    write_shard(rows, shard_path(tmp_path, "one"))
    harmonise_types(tmp_path)
    got = {r["article_id"]: r["subj_type"] for r in read_triples(tmp_path).to_pylist()}
    assert got == {"a1": "organization", "a2": "organization", "a3": "thing", "a10": "organization",
                   "a11": "organization", "a12": "organization", "a13": "person", "a14": "thing", "a15": "thing",
                   "a16": "thing"}


def test_typing_again_gives_the_same_types_also_after_the_entities_pass(tmp_path: Path) -> None:
    from graph_builder.entities import canonicalise
    from graph_builder.entity_types import recognised_path

    # "Acme", mostly a lower-case word here, left untyped once takes its own name's majority (person); typed, it
    # takes its company's (organization, from "Acme Corp"). v2 re-voted on the types it had written, and the untyped
    # mention, now a person, became an organization on the second run.
    rows = [_row(1, "acme corp", "Acme Corp", "organization"), _row(2, "acme corp", "Acme Corp", "organization"),
            _row(3, "acme", "Acme", "person"), _row(4, "acme", "Acme", "person"), _row(5, "acme", "Acme", "thing"),
            _row(6, "mario draghi", "Mario Draghi", "person"), _row(7, "pfizer", "Pfizer", "person"),
            *(_row(8 + k, "acme", "acme", "thing") for k in range(4))]
    write_shard(rows, shard_path(tmp_path, "one"))
    harmonise_types(tmp_path)
    assert recognised_path(shard_path(tmp_path, "one")).is_file()
    typed = {r["triple_id"]: r["subj_type"] for r in read_triples(tmp_path).to_pylist()}
    assert typed["a5:0000:000"] == "person" and typed["a3:0000:000"] == "organization"
    assert harmonise_types(tmp_path).changed == 0
    canonicalise(tmp_path)
    once = read_triples(tmp_path).to_pylist()
    harmonise_types(tmp_path)
    canonicalise(tmp_path)
    assert read_triples(tmp_path).to_pylist() == once


def test_a_name_written_before_a_ticker_is_an_organization(tmp_path: Path) -> None:
    # The recogniser reads "Glencore" as a person and "Xstrata" as a place; the copy writes both before a ticker.
    rows = [_row(k, "glencore", "Glencore", "person") for k in range(3)]
    rows += [_row(10 + k, "xstrata", "Xstrata", "location") for k in range(3)]
    rows += [_row(20, "america", "America", "location"), _row(21, "bank of america", "Bank of America", "organization")]
    rows += [_row(30 + k, "zeta", "Zeta", "person") for k in range(2)]
    rows += [_row(40 + k, "frankfurt", "Frankfurt", "location") for k in range(3)]
    rows += [_row(100 + k, "new york", "New York", "location") for k in range(300)]
    write_shard(rows, shard_path(tmp_path, "one"))
    # A run counts for the name it is, or leads to after words that only describe it: "swiss-based xstrata plc" for
    # xstrata; "bank of america corp" for bank of america, never for america, nor "air america" (another name);
    # one mention before a ticker is not enough (zeta).
    # A place before many symbols is no company (frankfurt); nor a name before a ticker in under 1% of its mentions
    # (new york: 2 of 300).
    write_listed(tmp_path, {("glencore", "GLEN"): 5, ("swiss-based xstrata plc", "XTA"): 1, ("xstrata", "XTA"): 1,
                            ("bank of america corp", "BAC"): 9, ("air america", "AIR"): 3, ("zeta", "Z"): 1,
                            ("unknown words", "UW"): 4, ("frankfurt", "AAPL"): 1, ("frankfurt", "SYMC"): 1,
                            ("frankfurt", "GEC"): 1, ("new york", "NYX"): 2})
    report = harmonise_types(tmp_path)
    got = {(r["subj"], r["subj_type"]) for r in read_triples(tmp_path).to_pylist()}
    assert got == {("glencore", "organization"), ("xstrata", "organization"), ("america", "location"),
                   ("bank of america", "organization"), ("zeta", "person"), ("frankfurt", "location"),
                   ("new york", "location")}
    assert report.listed == 2  # glencore and xstrata: bank of america was an organisation already
    # Counted in the one pass as the names typing by tickers makes organisations that typing without them does not
    # (a name written with a legal form is one by its form either way).
    table = pa.Table.from_pylist(rows)
    listed = read_listed(tmp_path)
    with_tickers, without = majority_types(table, listed), majority_types(table)
    assert with_tickers.by_ticker == {name for name, kind in with_tickers.company.items() if company_name(name) == name
                                      and kind == "organization" and without.company.get(name) != kind}
    places = frozenset({"spain", "china"})
    assert listed_companies({("swiss-based xstrata plc", "XTA"): 2, ("bank of america corp", "BAC"): 3,
                             ("spain's bankia", "BKIA"): 2, ("boeing's dreamliner", "BA"): 5, ("air china", "AC"): 3,
                             ("uni-president china holdings ltd", "UP"): 3},
                            ["xstrata", "bank of america", "america", "bankia", "dreamliner", "china", "spain"],
                            places) == {"xstrata": 2, "bank of america": 3, "bankia": 2}


def test_typing_without_listed_names_is_as_before(tmp_path: Path) -> None:
    write_shard([_row(k, "glencore", "Glencore", "person") for k in range(3)], shard_path(tmp_path, "one"))
    assert read_listed(tmp_path) == {}
    assert harmonise_types(tmp_path).listed == 0
    assert {r["subj_type"] for r in read_triples(tmp_path).to_pylist()} == {"person"}


def test_the_types_command_counts_the_tickers_of_a_corpus_and_types_by_them(tmp_path: Path) -> None:
    """`egqa types DATASET --corpus FILE`: for a dataset extracted before extraction kept its listed names."""
    import subprocess
    import sys

    import orjson

    from graph_builder.entity_types import LISTED_FILE
    from graph_builder.pipeline import collect_listed

    corpus = tmp_path / "corpus.jsonl"
    bodies = ["LONDON (Reuters) - Glencore ( GLEN.L ) rose.", "Miner Glencore GLEN.L fell.",
              "The miner Glencore GLEN.L said so."]
    corpus.write_bytes(b"\n".join(orjson.dumps({"id": f"a{k}", "date": "2012-01-02", "title": "t", "text": body})
                                  for k, body in enumerate(bodies)))
    # A sentence's first word is capitalised too: the run keeps it, and typing does not count it for `glencore`.
    seen: list[int] = []
    totals: list[int] = []
    assert collect_listed([corpus], workers=1, progress=seen.append, total=totals.append) == \
        {("glencore", "GLEN"): 2, ("miner glencore", "GLEN"): 1}
    assert totals == [3] and sum(seen) == 3  # the records counted first, then each one read
    assert collect_listed([corpus], workers=2) == collect_listed([corpus], workers=1)
    dataset = tmp_path / "triples"
    dataset.mkdir()
    write_shard([_row(k, "glencore", "Glencore", "person") for k in range(3)], shard_path(dataset, "one"))
    run = subprocess.run([sys.executable, "-m", "service", "types", str(dataset), "--corpus", str(corpus),
                          "--workers", "1"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "names written before a ticker: 2 (3 mentions)" in run.stdout and "1 organisations by their tickers" in run.stdout
    assert read_listed(dataset) == {("glencore", "GLEN"): 2, ("miner glencore", "GLEN"): 1} and (dataset / LISTED_FILE).is_file()
    assert {r["subj_type"] for r in read_triples(dataset).to_pylist()} == {"organization"}
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = subprocess.run([sys.executable, "-m", "service", "types", str(empty), "--corpus", str(corpus)],
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "holds no part-*.parquet shards" in refused.stderr
