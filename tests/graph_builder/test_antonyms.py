"""Antonym predicates with the same roles contradict each other; converses and negations are left alone."""

from __future__ import annotations

import numpy as np
import pytest

from graph_builder.graphs.antonyms import antonyms, contradicts, directions
from graph_builder.graphs.graphset import Query
from graph_builder.graphs.scorers import ANTONYM, PairBatch


def test_the_shipped_pairs_are_wordnets_verb_antonyms() -> None:
    table = antonyms()
    assert {"upgrade"} <= table["downgrade"] and "sell" in table["buy"] and "buy" in table["sell"]
    assert "fall" in table["rise"] and "lose" in table["win"] and "acquire" not in table.get("buy", set())


def test_every_verb_of_an_increase_opposes_every_verb_of_a_decrease() -> None:
    ways, table = directions(), antonyms()
    assert not ways["up"] & ways["down"]
    assert {"raise", "boost", "upgrade"} <= ways["up"] and {"cut", "slash"} <= ways["down"]
    for up in ways["up"]:
        assert ways["down"] <= table[up] and not ways["up"] & table[up]  # never opposed to its own direction
    for down in ways["down"]:
        assert ways["up"] <= table[down] and not ways["down"] & table[down]
    assert "sell" in table["buy"]  # WordNet's pairs are kept beside them


@pytest.mark.parametrize(("premise", "hypothesis", "reversed_", "expected"), [
    ("(raise.1,raise.2)", "(cut.1,cut.2)", False, True),  # Caterpillar raised its outlook / cut its outlook
    ("(slash.1,slash.rating.on.2)", "(upgrade.1,upgrade.2)", False, True),  # Moody's slashed Spain / upgraded Spain
    ("(post.1,post.gain.in.2)", "(post.1,post.drop.in.2)", False, True),  # a gain / a drop in profit
    ("(cut.1,cut.2)", "(reduce.1,reduce.2)", False, False),  # the same direction
    ("(raise.1,raise.2)", "(cut.1,cut.2)", True, False),  # other roles: not this rule's to judge
    ("(downgrade.1,downgrade.rating.of.2)", "(upgrade.1,upgrade.2)", False, True),  # S&P downgraded / upgraded France
    ("agree__(buy.1,buy.2)", "(sell.1,sell.2)", False, True),
    ("(buy.1,buy.from.2)", "(sell.1,sell.to.2)", False, True),  # X bought from Y / X sold to Y
    ("(sell.1,sell.to.2)", "(buy.1,buy.from.2)", True, False),  # Y sold to X: X bought from Y, a converse
    ("(sell.2,sell.by.2)", "(buy.2,buy.from.2)", False, False),  # X was sold by Y: X was bought from Y
    ("NEG__(raise.1,raise.2)", "(lower.1,lower.2)", False, False),  # a negation is no contradiction to judge here
    ("(buy.1,buy.2)", "(acquire.1,acquire.2)", False, False),
    ("(rise.1,rise.2)", "(rise.1,rise.above.2)", False, False),  # a word on both sides is no opposition
])
def test_contradicts(premise: str, hypothesis: str, reversed_: bool, expected: bool) -> None:
    assert contradicts(premise, hypothesis, reversed_) is expected


def test_a_batch_marks_contradictions_like_a_naive_loop() -> None:
    queries = [Query("(downgrade.1,downgrade.2)", "(upgrade.1,upgrade.2)", ("organization", "location")),
               Query("(sell.1,sell.to.2)", "(buy.1,buy.from.2)", ("organization", "organization"), True),
               Query("(buy.1,buy.2)", "(buy.1,buy.2)", ("organization", "thing"))]
    marked = PairBatch(queries).contradictions()
    assert marked.tolist() == [contradicts(q.premise, q.hypothesis, q.premise_reversed) for q in queries]
    assert marked.tolist() == [True, False, False] and isinstance(marked, np.ndarray) and ANTONYM == "antonym"
