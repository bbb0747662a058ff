"""A hypothesis' own predicate with its arguments the other way around: "Obama defeated Romney" is no evidence
that Romney defeated Obama.

In a graph whose two slots have the same type, a predicate has a node for each slot order, and the measures score
the edge between them from the pairs stated both ways. Few pairs are, and for a predicate that is not reciprocal
those few are extraction errors or different events: `(defeat.1,defeat.2)` reversed -> itself scores 0.52 in the
full run's `person#person` graph from one pair (McCain and Obama) read both ways in 2008-2009. So every graph
scorer gives 0 to a premise that is the hypothesis' own predicate with the arguments swapped (match `reversed`),
unless the predicate is reciprocal: a verb of Levin's (1993, sections 2.5.4 and 2.5.6) reciprocal alternations
("X met Y" is "Y met X"), or a predicate whose second argument comes with "with" ("X merged with Y").
"""

from __future__ import annotations

from functools import lru_cache

RECIPROCAL_VERBS = frozenset({
    "agree", "argue", "bargain", "battle", "bicker", "clash", "coexist", "collaborate", "collide", "combine",
    "communicate", "compete", "concur", "confer", "consult", "converse", "cooperate", "correspond", "date", "debate",
    "differ", "disagree", "divorce", "duel", "embrace", "face", "feud", "fight", "haggle", "hug", "join", "kiss",
    "link", "marry", "mate", "meet", "merge", "negotiate", "pair", "partner", "play", "quarrel", "reconcile",
    "rival", "separate", "skirmish", "spar", "speak", "squabble", "talk", "team", "tie", "trade", "unite", "vie",
    "war", "wrangle", "ally", "match", "neighbor", "neighbour", "border", "resemble", "equal", "touch", "twin",
})


@lru_cache(maxsize=100_000)
def reciprocal(predicate: str) -> bool:
    """Whether swapping the predicate's arguments keeps its meaning: a reciprocal verb or a `with` second slot."""
    inside = predicate[predicate.find("(") + 1:predicate.rfind(")")] if "(" in predicate else predicate
    first, _, second = inside.partition(",")
    verb = first.split(".")[0]
    return verb in RECIPROCAL_VERBS or ".with." in f".{second}" or second.startswith("with.")


def role_reversal(premise: str, hypothesis: str, premise_reversed: bool) -> bool:
    """Whether the premise is the hypothesis' own predicate with the arguments swapped, and not reciprocal."""
    return premise_reversed and premise == hypothesis and not reciprocal(hypothesis)
