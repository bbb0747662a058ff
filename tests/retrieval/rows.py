"""Readable builders of TRIPLE_SCHEMA / ARTICLE_SCHEMA rows for the store tests."""

from __future__ import annotations

import datetime as dt

from graph_builder.windows import window_of


def triple(n: int, date: dt.date, subj: str, obj: str, *, predicate: str = "(visit.1,visit.2)",
           subj_type: str = "person", obj_type: str = "location", article: str | None = None,
           sentence: str | None = None, negated: bool = False) -> dict[str, object]:
    """Return one TRIPLE_SCHEMA row with readable defaults."""
    article_id = article or f"a{n // 10}"
    sentence_id = sentence or f"{article_id}:s{n}"
    return {
        "triple_id": f"t{n:04d}", "article_id": article_id, "sentence_id": sentence_id, "date": date,
        "window": window_of(date), "split": "train", "subj": subj, "subj_text": subj.title(),
        "subj_type": subj_type, "obj": obj, "obj_text": obj.title(), "obj_type": obj_type,
        "predicate": predicate, "predicate_text": predicate.split(".")[0].strip("("), "negated": negated,
        "sentence": f"{subj.title()} {predicate} {obj.title()} (sentence {n}).",
    }


def article(article_id: str, date: dt.date, triples: int = 0) -> dict[str, object]:
    """Return one ARTICLE_SCHEMA row."""
    return {"article_id": article_id, "date": date, "window": window_of(date), "split": "train",
            "title": f"Title of {article_id}", "sentences": 3, "tokens": 40, "triples": triples}
