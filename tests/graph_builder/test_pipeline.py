"""The extraction pipeline end to end on one whole real Reuters window (57 articles, June 1987)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path

import orjson
import pyarrow.compute as pc
import pytest

from graph_builder.corpus import read_corpus
from graph_builder.errors import InputError
from graph_builder.pipeline import extract_corpus
from graph_builder.triples import TRIPLE_SCHEMA, read_articles, read_triples, shard_files
from graph_builder.windows import window_of

WINDOW = 2124  # 1987-06-13 .. 1987-06-15
# NEWID 18375 "CUBA SUGAR HARVEST ENDS AFTER LONG DELAYS": "... In the 1985/86 campaign Cuba produced ..."
KNOWN_TRIPLE = ("cuba", "(produce.1,produce.in.2)", "campaign")


@pytest.fixture(scope="module")
def window_corpus(reuters_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real articles of one window, written as JSON Lines (the generic corpus format)."""
    articles, _ = read_corpus([reuters_dir])
    chosen = [a for a in articles if window_of(a.date) == WINDOW]
    assert len(chosen) == 57
    path = tmp_path_factory.mktemp("corpus") / "window.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps({"id": a.id, "date": a.date.isoformat(), "title": a.title,
                                              "text": a.text, "split": a.split}) for a in chosen))
    return path


@pytest.fixture(scope="module")
def extracted(window_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("triples")
    extract_corpus([window_corpus], out, workers=2, shard_size=20)
    return out


def test_window_dataset_is_sane(extracted: Path) -> None:
    table = read_triples(extracted)
    assert table.schema.equals(TRIPLE_SCHEMA)
    assert table.num_rows > 100
    rows = table.to_pylist()
    assert {r["window"] for r in rows} == {WINDOW}
    assert all(dt.date(1987, 6, 13) <= r["date"] <= dt.date(1987, 6, 15) for r in rows)
    for column in ("subj", "obj", "predicate", "predicate_text", "sentence", "subj_text", "obj_text"):
        assert all(r[column].strip() for r in rows), column
    assert all(r["predicate"].endswith(")") and "(" in r["predicate"] for r in rows)
    assert all(r["negated"] == r["predicate"].startswith("NEG__") for r in rows)
    assert len({r["triple_id"] for r in rows}) == len(rows)
    assert all(r["sentence_id"].startswith(r["article_id"] + ":") for r in rows)
    types = Counter(t for r in rows for t in (r["subj_type"], r["obj_type"]))
    # Financial news: organizations and locations dominate the named entities; every triple has one.
    assert types["organization"] > types["person"] > 0 and types["location"] > 0
    entity_types = {"person", "organization", "location", "building", "group", "event", "product", "art", "law",
                    "language"}
    # Every triple has a named argument: a recognised entity, or a proper name the recogniser missed (capitalised).
    assert all(r["subj_type"] in entity_types or r["obj_type"] in entity_types
               or r["subj_text"][:1].isupper() or r["obj_text"][:1].isupper() for r in rows)


def test_window_articles_table_counts_every_article(extracted: Path) -> None:
    articles = read_articles(extracted)
    # 57 articles in the window, one of them an exact repeat of another's text: dropped and counted.
    assert articles.num_rows == 56
    assert pc.sum(articles["triples"]).as_py() == read_triples(extracted).num_rows
    report = orjson.loads((extracted / "report.json").read_bytes())
    assert report["articles"] == 56 and report["shards"] == 3
    assert report["read"]["skipped"] == {"duplicate_text": 1}


def test_known_article_yields_known_triple(extracted: Path) -> None:
    rows = read_triples(extracted).to_pylist()
    keys = {(r["subj"], r["predicate"], r["obj"]) for r in rows}
    assert KNOWN_TRIPLE in keys


def test_rerun_resumes_and_is_deterministic(window_corpus: Path, extracted: Path, tmp_path: Path) -> None:
    before = read_triples(extracted)
    again = tmp_path / "again"
    extract_corpus([window_corpus], again, workers=1, shard_size=20)
    assert read_triples(again).equals(before)  # same corpus, same rows, whatever the worker count
    victim = shard_files(again)[1]
    victim.unlink()
    summary = extract_corpus([window_corpus], again, workers=1, shard_size=20)
    assert summary.shards_resumed == 2
    assert read_triples(again).equals(before)


def test_extraction_keeps_the_names_written_before_a_ticker(extracted: Path) -> None:
    # Reuters-21578 writes its tickers after the legal form ("Acme Corp ACME"), which the typing pass reads already;
    # the file is there, and typing recorded how many names it made organisations by them.
    from graph_builder.entity_types import LISTED_FILE, read_listed

    assert (extracted / LISTED_FILE).is_file()
    assert isinstance(read_listed(extracted), dict)
    manifest = orjson.loads((extracted / "manifest.json").read_bytes())
    assert manifest["types"]["version"] == "egqa.majority-types.v5" and "listed" in manifest["types"]["report"]


def test_other_settings_refuse_to_mix(window_corpus: Path, extracted: Path) -> None:
    with pytest.raises(InputError, match="--overwrite"):
        extract_corpus([window_corpus], extracted, workers=1, shard_size=10)


def test_overwrite_with_other_settings_replaces_the_side_files_too(window_corpus: Path, extracted: Path,
                                                                   tmp_path: Path) -> None:
    out = tmp_path / "replaced"
    assert not extract_corpus([window_corpus], out, workers=1, shard_size=20).replaced
    assert list(out.glob("names-*.parquet")) and list(out.glob("recognised-*.parquet"))
    # The same settings with --overwrite resume: nothing is replaced.
    again = extract_corpus([window_corpus], out, workers=1, shard_size=20, overwrite=True)
    assert not again.replaced and again.shards_resumed == again.shards
    # Other shards under the same names: the side files kept for the old ones must go with them.
    assert extract_corpus([window_corpus], out, workers=1, shard_size=10, overwrite=True).replaced
    fresh = tmp_path / "fresh"
    extract_corpus([window_corpus], fresh, workers=1, shard_size=10)
    assert read_triples(out).equals(read_triples(fresh))


def test_dask_cluster_gives_the_same_rows(window_corpus: Path, extracted: Path, tmp_path: Path) -> None:
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        out = tmp_path / "dask"
        extract_corpus([window_corpus], out, scheduler=cluster.scheduler_address, shard_size=20)
    assert read_triples(out).equals(read_triples(extracted))
