"""A question given by date reads the days around it (EGQA_DATE_DAYS=centred, the default), wherever the disjoint
windows fall; one given by window reads that window, as a benchmark entry does; `window` keeps the old reading."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from graph_builder.triples import read_triples
from graph_builder.windows import DATE_DAYS, days_around, window_span
from service.app import create_app
from service.settings import Settings
from tests.conftest import Build

DAY = dt.timedelta(days=1)


def test_days_around_a_date() -> None:
    """Centred on the date, the window's length of days; one-day windows are the day itself."""
    march12 = dt.date(2013, 3, 12)
    assert days_around(march12, 3) == (dt.date(2013, 3, 11), dt.date(2013, 3, 13))
    assert days_around(march12, 4) == (dt.date(2013, 3, 11), dt.date(2013, 3, 14))
    assert days_around(march12, 1) is None
    assert days_around(dt.date.min, 3) is None and days_around(dt.date.max, 3) is None
    assert DATE_DAYS["window"](march12, 3) is None


@pytest.fixture(scope="module")
def last_day_row(fixture_build: Build) -> dict[str, Any]:
    """A triple dated on the last day of its window, its pair never stated in the next window."""
    rows = read_triples(fixture_build.triples).to_pylist()
    pairs_by_window = {(r["window"], r["subj"], r["obj"]) for r in rows}
    return next(r for r in rows if r["date"] == window_span(r["window"]).end
                and (r["window"] + 1, r["subj"], r["obj"]) not in pairs_by_window
                and (r["window"] + 1, r["obj"], r["subj"]) not in pairs_by_window
                and any(o["window"] == r["window"] + 1 for o in rows))


@pytest.fixture(scope="module")
def window_client(fixture_build: Build) -> Iterator[TestClient]:
    """The service on the made-up news with the old reading of a date: the window holding it."""
    settings = Settings(graphs_dir=fixture_build.graphs, store_url=fixture_build.sqlite_url, lm=False,
                        date_days="window")
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _proposition(row: dict[str, Any], **where: Any) -> dict[str, Any]:
    return {"subject": row["subj"], "predicate": row["predicate"], "object": row["obj"],
            "subject_type": row["subj_type"], "object_type": row["obj_type"], **where}


def _ask(row: dict[str, Any], **where: Any) -> dict[str, Any]:
    return {**_proposition(row, **where), "top_k": 50}


def test_a_date_reads_the_day_before_in_the_previous_window(fixture_client: TestClient,
                                                            last_day_row: dict[str, Any]) -> None:
    """Asked the day after a triple's date, which opens the next window, the triple is still evidence."""
    row, next_day = last_day_row, last_day_row["date"] + DAY
    body = fixture_client.post("/v1/query", json=_ask(row, date=next_day.isoformat())).json()
    assert body["answer"] is True and body["score"] == 1.0
    assert row["sentence_id"] in {e["sentence_id"] for e in body["evidence"]}
    assert body["window"]["id"] == row["window"] + 1
    assert body["days"] == {"start": row["date"].isoformat(), "end": (next_day + DAY).isoformat()}
    # the same proposition in the next window itself (a benchmark entry) has no evidence
    by_window = fixture_client.post("/v1/query", json=_ask(row, window=row["window"] + 1)).json()
    assert by_window["evidence_count"] == 0 and by_window["answer"] is False
    span = window_span(row["window"] + 1)
    assert by_window["days"] == {"start": span.start.isoformat(), "end": span.end.isoformat()}
    # a batch answers alike
    [batched] = fixture_client.post("/v1/query/batch", json={"queries": [_proposition(row, date=next_day.isoformat())],
                                                                 "top_k": 50}
                                    ).json()["results"]
    assert batched == body


def test_the_window_rule_reads_only_the_dates_window(window_client: TestClient, last_day_row: dict[str, Any]) -> None:
    """EGQA_DATE_DAYS=window: a date reads the window holding it, so the day before the window is not read."""
    row, next_day = last_day_row, last_day_row["date"] + DAY
    body = window_client.post("/v1/query", json=_ask(row, date=next_day.isoformat())).json()
    assert body["evidence_count"] == 0 and body["answer"] is False
    span = window_span(row["window"] + 1)
    assert body["days"] == {"start": span.start.isoformat(), "end": span.end.isoformat()}
    same_day = window_client.post("/v1/query", json=_ask(row, date=row["date"].isoformat())).json()
    assert same_day["answer"] is True


def test_an_unknown_rule_is_refused() -> None:
    """A misspelt EGQA_DATE_DAYS stops the service at start-up with the rules it knows."""
    with pytest.raises(ValueError, match="date_days must be one of centred, window"):
        Settings(date_days="around")
