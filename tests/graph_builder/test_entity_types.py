"""One type per name across the corpus: majority vote of recognised, capitalised mentions."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from graph_builder.entity_types import TYPES_FILE, harmonise_types
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
