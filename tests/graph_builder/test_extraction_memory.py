"""Parsing questions never seen before leaves the vocabulary as it was: a long-running service stays bounded."""

from __future__ import annotations

import random
import string
from concurrent.futures import ThreadPoolExecutor

from graph_builder.extraction import extract_text, load_pipeline, noun_lemma


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(10)).title()


def test_new_words_do_not_stay_in_the_vocabulary() -> None:
    nlp = load_pipeline()
    extract_text("Google bought Motorola.")  # loads whatever the first parse loads
    before = len(nlp.vocab.strings)
    rng = random.Random(7)
    questions = [f"{_word(rng)} {_word(rng)} bought {_word(rng)} Corp from {_word(rng)}." for _ in range(200)]
    with ThreadPoolExecutor(4) as pool:  # as the service's threads do
        results = list(pool.map(extract_text, questions))
    lemmas = [noun_lemma(_word(rng).lower() + "s") for _ in range(50)]
    assert len(nlp.vocab.strings) == before
    # The answers are plain strings that outlive the parse, the same as one parse at a time gives.
    assert results == [extract_text(q) for q in questions[:20]] + results[20:]
    assert sum(bool(r) and r[0]["predicate"] == "(buy.1,buy.2)" for r in results) >= 190
    assert results[0][0]["object"].endswith(" corp") and all(lemma.islower() for lemma in lemmas)


def test_the_lemmatizer_memo_stays_bounded(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import graph_builder.extraction as extraction

    monkeypatch.setattr(extraction, "LEMMA_CACHE_LIMIT", 50)
    cache = load_pipeline().get_pipe("lemmatizer").cache  # type: ignore[attr-defined]
    rng = random.Random(11)
    sizes = []
    for _ in range(40):
        extract_text(f"{_word(rng)} bought {_word(rng)} from {_word(rng)}.")
        noun_lemma(_word(rng).lower() + "s")
        sizes.append(len(cache))
    # Without a bound every new word adds entries; with one, the memo never passes the limit.
    assert max(sizes) < 50 + 20 and len(set(sizes)) > 1


def test_the_pipeline_is_loaded_afresh_once_it_has_seen_many_new_words(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import graph_builder.extraction as extraction

    known = extract_text("Google bought Motorola from Lenovo.")
    first = load_pipeline()
    monkeypatch.setattr(extraction, "VOCAB_RENEW_AFTER", len(first.vocab) - extraction._LOADED_LEXEMES[
        extraction.parser_model("sm")] + 30)
    rng = random.Random(13)
    for _ in range(20):  # three or four new words each: past the bound within these
        extract_text(f"{_word(rng)} bought {_word(rng)} from {_word(rng)}.")
        noun_lemma(_word(rng).lower())
    fresh = load_pipeline()
    assert fresh is not first
    assert len(fresh.vocab) - extraction._LOADED_LEXEMES[extraction.parser_model("sm")] < 200
    assert extract_text("Google bought Motorola from Lenovo.") == known
