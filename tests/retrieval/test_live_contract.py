"""Live writes under the store contract, on SQLite and on a real Elasticsearch alike: articles extracted one by
one are searchable as soon as the write returns, in windows the store did not hold, and writing an article
twice stores it once."""

from __future__ import annotations

import datetime as dt
from typing import Any

from graph_builder.corpus import Article
from graph_builder.live import extract_articles, prepare
from graph_builder.windows import window_of
from retrieval.ingest import add_extracted, ingest_articles

TEXT = ("Angela Merkel met Emmanuel Macron in Berlin on Wednesday. Acme Corp said it bought Globex Inc for "
        "$5 million. Merkel praised Macron.")


def _article(article_id: str, date: dt.date, text: str = TEXT) -> Article:
    prepared = prepare(article_id, date, "A title", text)
    assert prepared.article is not None
    return prepared.article


def test_a_live_write_is_searchable_at_once_in_a_new_window_and_a_second_write_adds_nothing(store: Any) -> None:
    day = dt.date(2024, 3, 6)
    extracted = extract_articles([_article("live-a", day)])
    expected = len(extracted[0].triples)
    assert expected >= 3
    assert add_extracted(store, extracted) == expected
    window = store.window(window_of(day))  # no refresh, no wait: the write returned, so it is searchable
    assert (window.articles, window.triples) == (1, expected)
    evidence = store.evidence(window_of(day), "angela merkel", "emmanuel macron")
    assert {e.article_id for e in evidence} == {"live-a"} and len(evidence) >= 2
    assert add_extracted(store, extract_articles([_article("live-a", day)])) == 0
    assert store.stats().triples == expected and store.stats().articles == 1
    assert [t.type for t in store.argument_types("angela merkel")] == ["person"]
    assert store.argument_types("angela merkel")[0].count == sum(
        (r["subj"] == "angela merkel") + (r["obj"] == "angela merkel") for r in extracted[0].triples)


def test_ingest_articles_in_worker_processes_equals_in_process_and_reruns_add_nothing(store_factory: Any) -> None:
    articles = [_article(f"many-{n}", dt.date(2024, 3, 1) + dt.timedelta(days=n),
                         TEXT.replace("Wednesday", f"day {n}")) for n in range(6)]
    one, two = store_factory(), store_factory()
    first = ingest_articles(articles, one, workers=1, batch_size=2)
    pooled = ingest_articles(articles, two, workers=2, batch_size=2)
    assert (first.articles, first.triples_read, first.triples_added) == (6, pooled.triples_read, pooled.triples_added)
    assert first.triples_added == first.triples_read > 0
    assert [(w.id, w.articles, w.triples) for w in one.windows()] == [(w.id, w.articles, w.triples) for w in two.windows()]
    again = ingest_articles(articles, one, workers=1, batch_size=4)
    assert (again.triples_read, again.triples_added) == (first.triples_read, 0)
    assert one.stats().triples == first.triples_read
