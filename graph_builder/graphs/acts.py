"""The act under a controller: `plan__(buy.1,buy.2)` read as the act it plans, `(buy.1,buy.2)`.

The extractor keeps an act that is only possible, intended, predicted or agreed under its controller, written as
a prefix: a modal (`could__`), a verb of prediction (`expect__`), of intent or agreement (`plan__`, `agree__`), a
noun of intent named as its verb ("made an offer to buy" -> `offer__`). Such a premise states no act, so it is
no report that the act happened; but in a three-day window "X plans to buy Y" or "X could buy Y" makes "X bought
Y" likelier than no word about X and Y at all. The `+act` scorers read such a premise also as its act, discounted
(`graph_builder.graphs.scorers.ActBackoff`).

A premise never backs off where its act is denied: under negation (`NEG__`) or a controller that says the act was
not done or not wanted ("failed to buy", "declined to comment", "refused to pay"). Nor does it where the hypothesis
has a controller of its own: "X planned to buy Y" is then scored as it stands.
"""

from __future__ import annotations

from functools import lru_cache

from graph_builder.predicates import NEGATION, parse

# Controllers that deny their act, or say it was not done: "failed to", "declined to", "stopped", "struggled to".
DENYING_CONTROLLERS = frozenset({
    NEGATION, "fail", "decline", "refuse", "refusal", "stop", "cease", "avoid", "reject", "deny", "quit", "halt",
    "abandon", "resist", "oppose", "forbid", "ban", "prohibit", "prevent", "block", "veto", "neglect", "forget",
    "hesitate", "struggle", "delay", "postpone", "scrap", "drop", "cancel", "suspend", "doubt", "dispute",
})


@lru_cache(maxsize=100_000)
def act_of(premise: str) -> str | None:
    """The act a controlled premise names, its controllers dropped (`plan__(buy.1,buy.2)` -> `(buy.1,buy.2)`); None
    for a premise without a controller, one under negation or a denying controller, or a plain-text predicate."""
    parsed = parse(premise)
    if parsed is None or not parsed.prefix:
        return None
    if any(c in DENYING_CONTROLLERS for c in parsed.prefixes):
        return None
    return premise[len(parsed.prefix):]


def backs_off(premise: str, hypothesis: str) -> str | None:
    """The act to score in the premise's place, or None: only for a hypothesis without a controller of its own."""
    if "__" in hypothesis:
        return None
    return act_of(premise)
