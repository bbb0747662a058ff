"""Corpus readers and windows, on the real Reuters-21578 files and on JSON Lines we write."""

from __future__ import annotations

import datetime as dt
import gzip
from pathlib import Path

import orjson
import pytest

from graph_builder import corpus
from graph_builder.corpus import ReadReport, clean_text, parse_reuters_date, read_corpus, read_jsonl_file
from graph_builder.errors import CorpusError, InputError
from graph_builder.pipeline import plan_shards
from graph_builder.windows import parse_date, window_of, window_span


@pytest.fixture(scope="module")
def reuters(reuters_dir: Path):
    return read_corpus([reuters_dir])


def test_reuters_counts_and_skips(reuters, reuters_dir: Path) -> None:
    articles, report = reuters
    # 21,578 records = 19,778 read + 1,798 title-only briefs + 1 malformed date + 1 empty body.
    assert len(articles) == 19_778
    assert report.read == 19_778
    assert dict(report.skipped) == {"brief_title_only": 1_798, "malformed_date": 1, "no_body": 1}
    assert report.read + sum(report.skipped.values()) == 21_578 == corpus.count_records([reuters_dir])
    assert report.examples["malformed_date"] == ["reut2-017.sgm:6653 NEWID=17192"]
    assert report.notes["latin1_decoded_file"] == 1  # reut2-017.sgm holds one Latin-1 byte


def test_reuters_ids_dates_and_splits(reuters) -> None:
    articles, _ = reuters
    ids = [int(a.id) for a in articles]
    assert len(set(ids)) == len(ids)
    assert min(ids) == 1 and max(ids) == 21_578
    dates = [a.date for a in articles]
    assert min(dates) == dt.date(1987, 2, 26) and max(dates) == dt.date(1987, 10, 20)
    assert {a.split for a in articles} == {"TRAIN", "TEST", "NOT-USED"}
    first = next(a for a in articles if a.id == "1")
    assert first.title == "BAHIA COCOA REVIEW"
    assert first.text.startswith("Showers continued throughout the week in the Bahia cocoa zone")
    assert "&lt;" not in "".join(a.text for a in articles[:500])


def test_reuters_date_quirks() -> None:
    assert parse_reuters_date("26-FEB-1987 15:01:01.79") == dt.date(1987, 2, 26)
    assert parse_reuters_date(" 3-MAR-1987  09:15:05.40") == dt.date(1987, 3, 3)
    assert parse_reuters_date("27-MAR-1987 00:02:59.13&#5;&#5;&#5;RM") == dt.date(1987, 3, 27)
    assert parse_reuters_date("31-APR-1987 00:00:00.00") is None
    assert parse_reuters_date("garbage") is None


def test_clean_text_entities_and_controls() -> None:
    assert clean_text("&lt;Texaco Inc&gt; said&#3;\x07 caf\u00e9") == "<Texaco Inc> said café"


def test_jsonl_bad_lines_are_counted_with_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "news.jsonl"
    path.write_text("\n".join([
        '{"id": "a1", "date": "2024-05-01", "title": "T", "text": "Exxon bought Texaco."}',
        '{"id": "a2", "date": "2024-13-45", "text": "Bad date."}',
        'not json at all',
        '{"id": "a3", "date": "2024-05-02"}',
        '["a", "list"]',
        '',
        '{"date": "2024-05-02", "text": "No id."}',
        '{"id": 7, "date": "2024-05-03T10:00:00Z", "text": "Ünïcödé \u2028 text about Zürich."}',
    ]), encoding="utf-8")
    report = ReadReport()
    articles = list(read_jsonl_file(path, report))
    assert [a.id for a in articles] == ["a1", "7"]
    assert articles[1].date == dt.date(2024, 5, 3)
    assert dict(report.skipped) == {"malformed_date": 1, "invalid_json": 1, "missing_text": 1,
                                    "not_an_object": 1, "missing_id": 1}
    assert report.examples["invalid_json"] == ["news.jsonl:3"]
    assert report.examples["missing_id"] == ["news.jsonl:7"]
    # A progress bar's total: every record read or skipped, the blank line not a record; gzip'd the same.
    assert corpus.count_records([path]) == 7 == report.read + sum(report.skipped.values())
    packed = tmp_path / "packed" / "news.jsonl.gz"
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress(path.read_bytes()))
    assert corpus.count_records([packed.parent]) == 7


def test_unknown_corpus_format_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "x.csv").write_text("a,b\n")
    with pytest.raises(CorpusError, match="unknown corpus format"):
        read_corpus([tmp_path / "x.csv"])
    with pytest.raises(CorpusError, match="no such file"):
        read_corpus([tmp_path / "missing.sgm"])


def test_windows_round_trip() -> None:
    date = dt.date(1987, 3, 13)
    w = window_of(date)
    span = window_span(w)
    assert span.start <= date <= span.end
    assert (span.end - span.start).days == 2
    assert window_of(span.start) == window_of(span.end) == w
    assert window_of(span.end + dt.timedelta(days=1)) == w + 1
    assert window_of(dt.date(1970, 1, 1)) == 0 and window_of(dt.date(1969, 12, 31)) == -1
    assert window_span(w, 7).end - window_span(w, 7).start == dt.timedelta(days=6)
    with pytest.raises(InputError):
        window_of(date, 0)
    with pytest.raises(InputError, match="not a date"):
        parse_date("13/03/1987")


def test_planning_cleans_in_worker_processes_with_the_same_shards(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # Small batches, so that batches end between bad lines, duplicates and headline-only records.
    monkeypatch.setattr(corpus, "CLEAN_BATCH", 7)
    lines = []
    for k in range(120):
        if k % 17 == 5:
            lines.append("not json")
        elif k % 13 == 3:
            lines.append(orjson.dumps({"id": f"h{k}", "date": "2024-05-01", "title": "Headline only", "text": ""}))
        else:
            body = f"LONDON (Reuters) - Firm {k % 40} bought unit {k % 40} (FRM{k % 40}.L).\n\n(Reporting by A B)"
            lines.append(orjson.dumps({"id": f"a{k}", "date": f"2024-05-{1 + k % 28:02d}", "text": body}))
    path = tmp_path / "news.jsonl"
    path.write_bytes(b"\n".join(x if isinstance(x, bytes) else x.encode() for x in lines))
    read: list[int] = []
    one = plan_shards([path], shard_size=9, eval_from=dt.date(2024, 5, 15))
    two = plan_shards([path], shard_size=9, eval_from=dt.date(2024, 5, 15), workers=2, progress=read.append)
    assert [(t.name, t.articles) for t in one[0]] == [(t.name, t.articles) for t in two[0]]
    assert one[1].to_dict() == two[1].to_dict() and one[2] == two[2]
    assert one[1].skipped["duplicate_text"] > 0 and one[1].skipped["headline_only"] > 0
    # Progress counts records, read or skipped (duplicates too), and ends at the number counted beforehand.
    assert sum(read) == corpus.count_records([path]) == 120 == one[1].read + sum(one[1].skipped.values())
    assert sum(len(t.articles) for t in two[0]) == one[1].read
    assert two[0][0].articles[0].text == "Firm 0 bought unit 0."  # dateline, ticker and sign-off cleaned away
