"""Rule sentence splitting: where a full stop after an abbreviation, an initialism or a company suffix ends a sentence."""

from __future__ import annotations

import pytest

from graph_builder.extraction.sentences import article_sentences, split_sentences


@pytest.mark.parametrize(("paragraph", "sentences"), [
    # a company suffix before a word that starts a clause ends the sentence ...
    ("Acme Corp agreed to acquire Widget Motors Corp. The Bank of Gizmo intervened in the market.",
     ["Acme Corp agreed to acquire Widget Motors Corp.", "The Bank of Gizmo intervened in the market."]),
    ("Acme Inc. In a statement, the company said it would sell the unit.",
     ["Acme Inc.", "In a statement, the company said it would sell the unit."]),
    # ... but not before a verb, a second suffix, a title or a ticker, which continue the name's sentence
    ("Widget Motors Corp. said it would sell the unit.", ["Widget Motors Corp. said it would sell the unit."]),
    ("Shares of Gizmo Motor Co. Ltd. rose 3 percent.", ["Shares of Gizmo Motor Co. Ltd. rose 3 percent."]),
    ("Bank of Widget Co. Inc. and Acme Financial Corp. agreed to merge.",
     ["Bank of Widget Co. Inc. and Acme Financial Corp. agreed to merge."]),
    ("The suit named former Acme Corp. Vice Chairman John Smith.",
     ["The suit named former Acme Corp. Vice Chairman John Smith."]),
    ("Acme bid for Widget Ltd. W.TO and Gizmo Ltd. last year.", ["Acme bid for Widget Ltd. W.TO and Gizmo Ltd. last year."]),
    # an initialism or abbreviation before a word that only starts sentences ends the sentence ...
    ("Acme has 15,000 employees outside the U.S. It has pension assets of 10 billion dollars.",
     ["Acme has 15,000 employees outside the U.S.", "It has pension assets of 10 billion dollars."]),
    ("Acme makes chips, boards, cables etc. The company was founded in 1950.",
     ["Acme makes chips, boards, cables etc.", "The company was founded in 1950."]),
    # ... and before a name word it does not
    ("The U.S. Treasury said it would act.", ["The U.S. Treasury said it would act."]),
    ("John F. Kennedy spoke. The U.S. Steel deal closed.", ["John F. Kennedy spoke.", "The U.S. Steel deal closed."]),
    ("Gov. Smith met Acme officials.", ["Gov. Smith met Acme officials."]),
])
def test_split_sentences(paragraph: str, sentences: list[str]) -> None:
    assert split_sentences(paragraph) == sentences


def test_article_sentences_never_join_paragraphs() -> None:
    assert article_sentences("Acme sold the unit to Widget Corp.\nThe deal closed") == [
        "Acme sold the unit to Widget Corp.", "The deal closed"]
