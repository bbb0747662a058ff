"""The sentence cutter of bench/extraction_sample.py's Reuters-21578 draw, on a body written for the test."""

from __future__ import annotations

from tests.bench.scripts import load_script

es = load_script("extraction_sample")


def test_reuters_sentences_cut_paragraphs_and_stops_but_not_abbreviations() -> None:
    body = ("Acme Corp said it bought Widget Co. Its price was\nnot disclosed. Mr. Smith left.\n"
            "    Acme said the U.S. unit of &lt;Widget> will grow. &lt;Gizmo Inc> agreed.\n Reuter\n&#3;")
    spans = [body[s:e] for s, e in es.reuters_sentences(body)]
    assert spans == ["Acme Corp said it bought Widget Co. Its price was\nnot disclosed.", "Mr. Smith left.",
                     "Acme said the U.S. unit of &lt;Widget> will grow.", "&lt;Gizmo Inc> agreed."]
