"""The scorer registry: every way egqa scores a premise predicate against a hypothesis predicate.

The service's queries, batch evaluation and the LevyHolt evaluation all take their scorers from
`build_scorers`, so a scorer's name, what it needs and the error that says why it is unavailable are written
once, here. Adding a scorer touches this file only: a base kind (a class with `name`, `reads_text`,
`reads_graphs` and `score`) listed by `build_scorers`, or a wrapper listed in `WRAPPERS`.

Kinds:
- `GraphScorer`: one measure of a graph set (typed edge in the hypothesis' orientation, then fuzzy, then
  cross-graph backoff); named by the measure (`binc`), or by the set's name for an extra set (`berant`). A
  premise that says the opposite of the hypothesis (WordNet verb antonyms, same roles) scores 0.
- `ExactScorer` (`exact`): 1 where the premise is the hypothesis' own predicate with its arguments in the same
  order, else 0: the baseline that knows no entailment.
- `LmCosine` (`lm_cosine`): the cosine of the premise's and the hypothesis' texts, embedded by the sentence
  model (Reimers and Gurevych 2019, all-MiniLM-L6-v2).
- wrapper `Smoothed` (`<graph scorer>+smooth`): LM premise smoothing (McKenna et al. 2023): a premise missing
  from its typed graph is scored through its nearest nodes there.
- wrapper `UntypedBackoff` (`<graph scorer>+untyped`, and over `+smooth`): a pair the typed graphs score 0 (typed
  edge, fuzzy readings, cross-graph backoff and smoothing alike) is scored in the untyped set built beside them
  (`egqa graph build --untyped`: one graph, every argument of one type), under the same measure.
- wrapper `ActBackoff` (`<graph scorer>+act`): a premise whose act is only possible, intended or predicted
  (`plan__(buy.1,buy.2)`, `graph_builder.graphs.acts`) is also scored as its act, times ACT_DISCOUNT, so that it
  ranks above no evidence and stays below the answer threshold.
- wrapper `LmBackoff` (`<graph scorer>+lm`): the graph scorer's score; where no pair of a group (the evidence
  of one hypothesis) scores above 0, the LM cosine scaled by LM_BACKOFF_SCALE, so that it orders what the
  graphs leave at 0 and ranks below every answer the graphs score.
- wrapper `Directed` (`<scorer>+dir`): direction from generality (the distributional generality hypothesis,
  Weeds et al. 2004): an entailed predicate is usually the more general one, seen with more argument pairs. A
  premise more general than its hypothesis has its score lowered by at most DIRECTION_PENALTY; the rest keep it.
- `Combined` (`combined`): a logistic regression over other scorers' answers (`graph_builder.graphs.combined`),
  fitted on a benchmark split for the loaded graphs; offered only where `<graphs>/combined.json` exists.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

import numpy as np
import numpy.typing as npt

from graph_builder.embeddings import INSTALL_HINT, LM_BACKOFF_SCALE, SentenceEncoder, VectorCache
from graph_builder.errors import InputError
from graph_builder.graphs.acts import backs_off
from graph_builder.graphs.antonyms import contradicts, may_be_contradicted
from graph_builder.graphs.roles import role_reversal
from graph_builder.graphs.combined import COMBINED_FILE, Combination
from graph_builder.graphs.counts import UNTYPED
from graph_builder.graphs.graphset import GraphSet, Prepared, Query, Smoothing, check_smoothing

EXACT = "exact"
LM_COSINE = "lm_cosine"
COMBINED = "combined"
LM_BACKOFF_MATCH = "lm_backoff"  # the match kind of a pair an LM backoff scored
NO_MATCH = "none"
ANTONYM = "antonym"  # the match kind of a pair whose premise says the opposite of its hypothesis: scored 0
REVERSED = "reversed"  # the match kind of the hypothesis' own predicate with its arguments swapped: scored 0
ACT = "act"  # the match kind of a controlled premise scored as its act (`+act`)
UNTYPED_MATCH = "untyped"  # the match kind of a pair scored in the untyped set (`+untyped`)
DELIBERATE = frozenset({EXACT, ANTONYM, REVERSED})  # match kinds whose score is set on purpose, never backed off
# The scorer a request gets when it names none: the best method measured that the installation can run.
# Where the graph set has a fitted combination (`egqa graph combine`), `combined`: on the 2006-2013 Reuters benchmark
# (2026-11-29, components chosen on dev with `+many` among them) test AP_norm 49.2 held out against 44.9 for
# binc_clean+smooth+act+lm+dir, and 97 of our 143 questions right against 90; it ranks LevyHolt dev worse (34.7
# against 40.3; dev_dir 2.9 against 3.4), pairs of bare predicates that `/v1/query` never asks (docs/results.md).
# Otherwise: on the benchmark at extractor v7, binc_clean+smooth+lm+dir 45.9 and binc_clean+smooth+lm 46.0 (paired
# 0.0 [-0.1, 0.0]; dev 47.8 both), binc 38.5; of these only `+dir` ranks the LevyHolt directional pairs better than
# chance. Without the `lm` extra or predicate embeddings the next one available is taken, down to the graphs' own
# default measure. At extractor v11, which keeps planned and possible acts under their controller, `+act` reads them
# back as weak evidence of the act: binc_clean+smooth+act+lm+dir 44.9 against 44.6 on test (paired +0.3 [+0.0,
# +0.6]), 48.1 against 47.5 on dev (+0.5 [+0.2, +0.9]); binc+act 38.8 against binc 35.8 (dev 42.0 against 38.7),
# which is the default where the model is not installed (the container image), `binc` itself staying available.
PREFERRED_DEFAULTS = (COMBINED, "binc_clean+smooth+act+lm+dir", "binc+act+lm+dir", "binc_clean+smooth+act", "binc+act")
# `+dir`: the largest share of a score taken from a premise far more general than its hypothesis. Chosen on
# LevyHolt dev, the set without a directional question: there it costs the default scorer 0.5 AP_norm points.
DIRECTION_PENALTY = 0.05
# `+act`: what a premise's act scores, times the score of its act. Below the default answer threshold (0.05), so that
# "Microsoft made an offer to buy Yahoo" ranks "Microsoft bought Yahoo" above no evidence without answering it true.
ACT_DISCOUNT = 0.04


@dataclass
class PairBatch:
    """Premise -> hypothesis pairs to score, and what the scorers that read text need.

    `groups` names the hypothesis each pair belongs to (LM backoff works per hypothesis); None makes each pair
    its own. `premise_texts` and `hypothesis_texts` are needed by scorers that read text (evidence sentences
    and the hypothesis as a sentence). `identity_is_one`: a graph scorer gives 1 to the hypothesis' own
    predicate in the same order (the service); False keeps the graph's own score (LevyHolt, as always
    measured). Scores are kept per scorer name, so a wrapper and its inner scorer are computed once a batch."""

    queries: Sequence[Query]
    groups: npt.NDArray[np.int64] | None = None
    premise_texts: Sequence[str] | None = None
    hypothesis_texts: Sequence[str] | None = None
    identity_is_one: bool = True
    _memo: dict[str, Scored] = field(default_factory=dict, repr=False)
    _identity: npt.NDArray[np.bool_] | None = field(default=None, repr=False)
    _contradictions: npt.NDArray[np.bool_] | None = field(default=None, repr=False)
    _reversals: npt.NDArray[np.bool_] | None = field(default=None, repr=False)
    _resolved: dict[GraphSet, Resolution] = field(default_factory=dict, repr=False)
    _directions: dict[tuple[GraphSet, float], npt.NDArray[np.float64]] = field(default_factory=dict, repr=False)
    _acts: tuple[npt.NDArray[np.int64], PairBatch] | None = field(default=None, repr=False)
    _premise_counts: npt.NDArray[np.float64] | None = field(default=None, repr=False)

    def scored(self, scorer: Scorer) -> Scored:
        """Score this batch with `scorer` (once per scorer name)."""
        if scorer.name not in self._memo:
            if scorer.reads_text and (self.premise_texts is None or self.hypothesis_texts is None):
                raise ValueError(f"scorer {scorer.name!r} reads text: the batch must carry the pairs' texts")
            self._memo[scorer.name] = scorer.score(self) if self.queries else Scored.empty()
        return self._memo[scorer.name]

    def contradictions(self) -> npt.NDArray[np.bool_]:
        """Whether each premise says the opposite of its hypothesis (`graph_builder.graphs.antonyms`)."""
        if self._contradictions is None:
            out = np.zeros(len(self.queries), dtype=bool)
            # Checked pair by pair only for the hypotheses some premise could contradict (few of them).
            open_ = {h for h in {q.hypothesis for q in self.queries} if may_be_contradicted(h)}
            if open_:
                for k, q in enumerate(self.queries):
                    if q.hypothesis in open_ and contradicts(q.premise, q.hypothesis, q.premise_reversed):
                        out[k] = True
            self._contradictions = out
        return self._contradictions

    def reversals(self) -> npt.NDArray[np.bool_]:
        """Whether each premise is its hypothesis with the arguments swapped, the predicate not reciprocal
        (`graph_builder.graphs.roles`)."""
        if self._reversals is None:
            self._reversals = np.array([role_reversal(q.premise, q.hypothesis, q.premise_reversed)
                                        for q in self.queries], dtype=bool)
        return self._reversals

    def identity(self) -> npt.NDArray[np.bool_]:
        """Whether each premise is the hypothesis' own predicate with its arguments in the same order."""
        if self._identity is None:
            self._identity = np.array([q.premise == q.hypothesis and not q.premise_reversed for q in self.queries],
                                      dtype=bool)
        return self._identity

    def direction_factors(self, graphs: GraphSet, penalty: float) -> npt.NDArray[np.float64]:
        """`direction_factors` of this batch, once per graph set and penalty: every `+dir` scorer of a batch (the
        service scores one batch with several) multiplies by the same factors."""
        key = (graphs, penalty)
        found = self._directions.get(key)
        if found is None:
            found = self._directions[key] = direction_factors(graphs, self.queries, penalty)
        return found

    def premise_counts(self) -> npt.NDArray[np.float64]:
        """Per pair, how many distinct premises (predicate and argument order) its hypothesis' group holds: 1 for
        every pair of a batch without groups."""
        if self._premise_counts is None:
            if self.groups is None:
                self._premise_counts = np.ones(len(self.queries))
            else:
                groups = np.asarray(self.groups)
                distinct = {(int(g), q.premise, q.premise_reversed) for g, q in zip(groups, self.queries, strict=True)}
                per_group = Counter(g for g, _, _ in distinct)
                self._premise_counts = np.array([per_group[int(g)] for g in groups], dtype=np.float64)
        return self._premise_counts

    def acts(self) -> tuple[npt.NDArray[np.int64], PairBatch]:
        """The pairs whose premise backs off to its act (`graph_builder.graphs.acts`), and a batch of those pairs
        with the act as their premise, once per batch: every `+act` scorer reads the same acts."""
        if self._acts is None:
            found = [(k, q._replace(premise=act)) for k, q in enumerate(self.queries)
                     if (act := backs_off(q.premise, q.hypothesis)) is not None]
            rows = np.array([k for k, _ in found], dtype=np.int64)
            self._acts = rows, PairBatch([q for _, q in found], identity_is_one=self.identity_is_one)
        return self._acts

    def resolved(self, graphs: GraphSet) -> Resolution:
        """This batch resolved in `graphs` (typed, fuzzy, backoff; no smoothing), once per graph set: every
        measure of the set reads the same rows, so a second measure only looks its values up."""
        found = self._resolved.get(graphs)
        if found is None:
            found = self._resolved[graphs] = self.resolution(graphs.prepare(self.queries))
        return found

    def resolution(self, prepared: Prepared) -> Resolution:
        """A prepared batch with each pair's match kind (`exact` for the hypothesis itself where it scores 1,
        `antonym` for a premise that says the opposite of its hypothesis, which scores 0)."""
        matches = list(prepared.stages)
        if self.identity_is_one:
            matches = ["exact" if same else stage for same, stage in zip(self.identity(), matches, strict=True)]
        opposite, swapped = self.contradictions(), self.reversals()
        if opposite.any():
            matches = [ANTONYM if no else m for no, m in zip(opposite, matches, strict=True)]
        if swapped.any():
            matches = [REVERSED if no else m for no, m in zip(swapped, matches, strict=True)]
        return Resolution(prepared, matches, np.array([m != NO_MATCH for m in matches], dtype=bool))


@dataclass(frozen=True)
class Resolution:
    """A batch resolved in one graph set: the rows to look up, and per pair its match kind and whether it was
    grounded (both the same under every measure)."""

    prepared: Prepared
    matches: list[str]
    grounded: npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Scored:
    """A batch's scores in [0, 1], how each pair matched, and whether the scorer could read it at all."""

    scores: npt.NDArray[np.float64]
    matches: list[str]
    grounded: npt.NDArray[np.bool_]

    @classmethod
    def empty(cls) -> Scored:
        """The scores of an empty batch."""
        return cls(np.zeros(0), [], np.zeros(0, dtype=bool))


class Scorer(Protocol):
    """Scores premise -> hypothesis pairs. `reads_text`: needs the pairs' texts (so whole evidence rows);
    `reads_graphs`: reads entailment graphs (so it can score two bare predicates); `runs_model`: runs the
    sentence-embedding model, whose computation releases the interpreter lock (the service lets such batches
    run side by side)."""

    name: str
    reads_text: bool
    reads_graphs: bool
    runs_model: bool

    def score(self, batch: PairBatch) -> Scored:
        """Score every pair of the batch."""
        ...


@dataclass(frozen=True)
class GraphScorer:
    """One measure of a graph set."""

    name: str
    graphs: GraphSet
    measure: str
    reads_text: ClassVar[bool] = False
    reads_graphs: ClassVar[bool] = True
    runs_model: ClassVar[bool] = False

    def score(self, batch: PairBatch) -> Scored:
        """Score the pairs in the graphs (typed, fuzzy, backoff)."""
        return self.score_with(batch, None)

    def score_with(self, batch: PairBatch, smoothing: Smoothing | None) -> Scored:
        """Score the pairs in the graphs, premises missing from their typed graph smoothed when asked."""
        found = batch.resolved(self.graphs) if smoothing is None else \
            batch.resolution(self.graphs.prepare(batch.queries, smoothing=smoothing))
        scores = np.clip(self.graphs.score_prepared(found.prepared, self.measure).scores, 0.0, 1.0)
        if batch.identity_is_one:
            scores = np.where(batch.identity(), 1.0, scores)
        blocked = batch.contradictions() | batch.reversals()
        if blocked.any():
            scores = np.where(blocked, 0.0, scores)
        return Scored(scores, found.matches, found.grounded)


@dataclass(frozen=True)
class ExactScorer:
    """1 for the hypothesis' own predicate with its arguments in the same order, else 0."""

    name: str = EXACT
    reads_text: ClassVar[bool] = False
    reads_graphs: ClassVar[bool] = False
    runs_model: ClassVar[bool] = False

    def score(self, batch: PairBatch) -> Scored:
        """Score each pair 1 if it is the hypothesis itself."""
        identity = batch.identity()
        return Scored(identity.astype(float), ["exact" if x else NO_MATCH for x in identity],
                      np.ones(len(identity), dtype=bool))


@dataclass(frozen=True)
class LmCosine:
    """The cosine of the premise's and the hypothesis' texts, embedded by the sentence model, in [0, 1]."""

    encoder: SentenceEncoder
    name: str = LM_COSINE
    reads_text: ClassVar[bool] = True
    reads_graphs: ClassVar[bool] = False
    runs_model: ClassVar[bool] = True

    def score(self, batch: PairBatch) -> Scored:
        """Embed both sides of every pair (each distinct text once) and take their cosines."""
        assert batch.premise_texts is not None and batch.hypothesis_texts is not None
        cache = VectorCache(self.encoder)
        premises = cache.vectors(list(batch.premise_texts))
        hypotheses = cache.vectors(list(batch.hypothesis_texts))
        scores = np.clip(np.einsum("ij,ij->i", premises, hypotheses, dtype=np.float64), 0.0, 1.0)
        return Scored(scores, [LM_COSINE] * len(scores), np.ones(len(scores), dtype=bool))


@dataclass(frozen=True)
class Smoothed:
    """A graph scorer with LM premise smoothing (McKenna et al. 2023)."""

    inner: GraphScorer
    encoder: SentenceEncoder
    k: int = 4
    min_cosine: float = 0.5
    reads_text: ClassVar[bool] = False
    reads_graphs: ClassVar[bool] = True
    runs_model: ClassVar[bool] = True
    SUFFIX: ClassVar[str] = "+smooth"
    needs_model: ClassVar[bool] = True

    @property
    def name(self) -> str:
        """`<graph scorer>+smooth`."""
        return self.inner.name + self.SUFFIX

    def score(self, batch: PairBatch) -> Scored:
        """Score in the graphs, a premise missing from its typed graph through its nearest nodes there."""
        # A fresh cache per batch: a batch repeats predicates, a long-lived cache would only grow.
        return self.inner.score_with(batch, Smoothing(VectorCache(self.encoder).vectors, self.k, self.min_cosine))

    @classmethod
    def wrap(cls, inner: Scorer, context: ScorerContext) -> Scorer | str | None:
        """The smoothed scorer, the reason it is unavailable, or None where smoothing does not apply."""
        if not isinstance(inner, GraphScorer):
            return None
        if context.encoder is None:
            return f"the sentence-embedding model is not loaded ({INSTALL_HINT})"
        if inner.graphs.embeddings is None:
            return (f"{context.label(inner.graphs)} has no predicate embeddings "
                    "(build them with `egqa graph embed GRAPHS_DIR`)")
        return cls(inner, context.encoder, context.smooth_k, context.smooth_min_cosine)


class _LikeItsInner:
    """A wrapper named `<inner><SUFFIX>` that reads text and runs the model exactly when its inner scorer does."""

    inner: Scorer
    SUFFIX: ClassVar[str]

    @property
    def name(self) -> str:
        """`<inner scorer><SUFFIX>`."""
        return self.inner.name + self.SUFFIX

    @property
    def reads_text(self) -> bool:
        """As its inner scorer."""
        return self.inner.reads_text

    @property
    def runs_model(self) -> bool:
        """As its inner scorer."""
        return self.inner.runs_model


@dataclass(frozen=True)
class UntypedBackoff(_LikeItsInner):
    """A graph scorer of the main set that backs off to its untyped set (`GraphSet.untyped`).

    Typed graphs split a predicate's argument pairs by their types, and a predicate seen a few times under each of
    several type pairs reaches no typed graph's cutoffs; with every argument of one type (`counts.UNTYPED`) its pairs
    count together. The untyped graph is read only where the typed graphs score a pair 0 (they ground it nowhere, or
    know both predicates without an edge between them), so every pair they score keeps its typed score."""

    inner: Scorer  # a GraphScorer of the main set, or its `+smooth`
    untyped: GraphScorer  # the same measure in the untyped set
    SUFFIX: ClassVar[str] = "+untyped"
    reads_graphs: ClassVar[bool] = True
    needs_model: ClassVar[bool] = False  # <scorer>+smooth+untyped does, through its inner scorer

    def score(self, batch: PairBatch) -> Scored:
        """The inner scores; each pair they score 0 (not one the scorers set to 0 on purpose: an antonym, the
        hypothesis reversed) scored in the untyped graph, its match `untyped` where that scores it above 0."""
        base = batch.scored(self.inner)
        rows = np.flatnonzero((base.scores <= 0) & np.array([m not in DELIBERATE for m in base.matches], dtype=bool))
        if not len(rows):
            return base
        queries = [batch.queries[int(k)]._replace(types=(UNTYPED, UNTYPED), typed=True) for k in rows]
        found = PairBatch(queries, identity_is_one=batch.identity_is_one).scored(self.untyped)
        scored = found.scores > 0
        grounded = base.grounded.copy()
        grounded[rows] |= found.grounded
        if not scored.any():
            return Scored(base.scores, base.matches, grounded)
        hit = rows[scored]
        scores, matches = base.scores.copy(), list(base.matches)
        scores[hit] = found.scores[scored]
        for k in hit.tolist():
            matches[k] = UNTYPED_MATCH
        return Scored(scores, matches, grounded)

    @classmethod
    def wrap(cls, inner: Scorer, context: ScorerContext) -> Scorer | str | None:
        """The backed-off scorer, the reason it is unavailable, or None for any scorer but a measure of the main
        set (or its `+smooth`)."""
        graph_scorer = inner.inner if isinstance(inner, Smoothed) else inner
        if not isinstance(graph_scorer, GraphScorer) or graph_scorer.graphs is not context.graphs:
            return None
        untyped = context.graphs.untyped
        if untyped is None:
            return (f"{context.label(context.graphs)} has no untyped set (build it with "
                    "`egqa graph build --untyped`)")
        if graph_scorer.measure not in untyped.measures:
            return f"the untyped set has no {graph_scorer.measure!r} measure (it has {', '.join(untyped.measures)})"
        return cls(inner, GraphScorer(graph_scorer.name, untyped, graph_scorer.measure))


@dataclass(frozen=True)
class ActBackoff(_LikeItsInner):
    """A graph scorer that also reads a controlled premise as its act (`graph_builder.graphs.acts`): such a pair
    scores the larger of its own score and `discount` times its act's."""

    inner: Scorer
    discount: float = ACT_DISCOUNT
    SUFFIX: ClassVar[str] = "+act"
    reads_graphs: ClassVar[bool] = True
    needs_model: ClassVar[bool] = False  # <scorer>+smooth+act does, through its inner scorer

    def score(self, batch: PairBatch) -> Scored:
        """The inner scores, raised where a premise's discounted act scores more; its match is then `act`."""
        base = batch.scored(self.inner)
        rows, acts = batch.acts()
        if not len(rows):
            return base
        backed = self.discount * acts.scored(self.inner).scores
        better = backed > base.scores[rows]
        if not better.any():
            return base
        scores = base.scores.copy()
        scores[rows[better]] = backed[better]
        matches = list(base.matches)
        for k in rows[better]:
            matches[k] = ACT
        grounded = base.grounded.copy()
        grounded[rows[better]] = True
        return Scored(scores, matches, grounded)

    @classmethod
    def wrap(cls, inner: Scorer, context: ScorerContext) -> Scorer | str | None:
        """The scorer with act backoff; None for a scorer that reads text (its pairs' texts are the premise's, not
        the act's) or no graphs."""
        if inner.reads_text or not inner.reads_graphs:
            return None
        return cls(inner)


@dataclass(frozen=True)
class LmBackoff:
    """A graph scorer; where it scores none of a hypothesis' pairs above 0, the LM cosine x LM_BACKOFF_SCALE."""

    inner: Scorer
    lm: LmCosine
    reads_text: ClassVar[bool] = True
    reads_graphs: ClassVar[bool] = False
    runs_model: ClassVar[bool] = True
    SUFFIX: ClassVar[str] = "+lm"
    needs_model: ClassVar[bool] = True

    @property
    def name(self) -> str:
        """`<graph scorer>+lm`."""
        return self.inner.name + self.SUFFIX

    def score(self, batch: PairBatch) -> Scored:
        """The inner scores, and the scaled LM cosine for every pair of a group the inner scorer left at 0."""
        base = batch.scored(self.inner)
        groups = np.arange(len(batch.queries)) if batch.groups is None else np.asarray(batch.groups)
        if len(groups) == 0:
            return base
        # A group is unscored when its best pair scores 0: the max of each group, spread back to its pairs.
        _, inverse = np.unique(groups, return_inverse=True)
        best = np.zeros(inverse.max() + 1)
        np.maximum.at(best, inverse, base.scores)
        unscored = best[inverse] <= 0
        if not unscored.any():
            return base
        lm = batch.scored(self.lm)
        scores = np.where(unscored, LM_BACKOFF_SCALE * lm.scores, base.scores)
        matches = [LM_BACKOFF_MATCH if u else m for u, m in zip(unscored, base.matches, strict=True)]
        return Scored(scores, matches, base.grounded | lm.grounded)

    @classmethod
    def wrap(cls, inner: Scorer, context: ScorerContext) -> Scorer | str | None:
        """The backed-off scorer, the reason it is unavailable, or None where backoff does not apply."""
        if not inner.reads_graphs:
            return None
        if context.encoder is None:
            return f"the sentence-embedding model is not loaded ({INSTALL_HINT})"
        return cls(inner, LmCosine(context.encoder))


def direction_factors(graphs: GraphSet, queries: Sequence[Query],
                      penalty: float = DIRECTION_PENALTY) -> npt.NDArray[np.float64]:
    """Per pair, what `+dir` multiplies its score by: 1 where the hypothesis is at least as general as the
    premise, down to 1 - penalty as the premise grows far more general: 1 - penalty * max(0, -tanh(ln r)), with
    r = (n(hypothesis) + 1) / (n(premise) + 1) and n a predicate's count in the graphs (`GraphSet.generality`)."""
    if not queries:
        return np.ones(0)
    hypotheses = graphs.generality([q.hypothesis for q in queries])
    ratio = (hypotheses + 1) / (graphs.generality([q.premise for q in queries]) + 1)
    return 1.0 - penalty * np.maximum(0.0, -np.tanh(np.log(ratio)))


@dataclass(frozen=True)
class Directed(_LikeItsInner):
    """A scorer whose score is lowered where the premise is more general than the hypothesis (`direction_factors`)."""

    inner: Scorer
    graphs: GraphSet  # whose node counts say how general a predicate is: the main graph set
    penalty: float = DIRECTION_PENALTY
    SUFFIX: ClassVar[str] = "+dir"
    reads_graphs: ClassVar[bool] = True
    needs_model: ClassVar[bool] = False  # lm_cosine+dir and <scorer>+lm+dir do, through their inner scorer

    def score(self, batch: PairBatch) -> Scored:
        """The inner scores times each pair's direction factor."""
        base = batch.scored(self.inner)
        return Scored(base.scores * batch.direction_factors(self.graphs, self.penalty), base.matches, base.grounded)

    @classmethod
    def wrap(cls, inner: Scorer, context: ScorerContext) -> Scorer | str | None:
        """The directed scorer; None for `exact`, which knows no entailment to direct."""
        if isinstance(inner, ExactScorer):
            return None
        return cls(inner, context.graphs)


@dataclass(frozen=True)
class Many(_LikeItsInner):
    """A scorer whose scores are divided by how many distinct premises their hypothesis has, so a hypothesis' answer
    is its best premise's score over n.

    A hypothesis takes the best score of its n premises, and the best of many scores is high by chance more often
    than the best of few (the reason a Bonferroni correction multiplies a smallest p-value by n). Chosen on the
    benchmark's dev split among n to the powers 0.5-2 and counts capped at 3-8 (n itself was best), and held out on
    test (docs/metrics-and-scorers.md). A batch without groups (two bare predicates, LevyHolt) has n = 1."""

    inner: Scorer
    SUFFIX: ClassVar[str] = "+many"
    reads_graphs: ClassVar[bool] = True
    # Pairs without groups (LevyHolt's) score as under the inner scorer: evaluations of lone pairs skip it.
    needs_groups: ClassVar[bool] = True
    needs_model: ClassVar[bool] = False  # <scorer>+lm+many does, through its inner scorer

    def score(self, batch: PairBatch) -> Scored:
        """The inner scores, each divided by its hypothesis' number of distinct premises."""
        base = batch.scored(self.inner)
        return Scored(base.scores / batch.premise_counts(), base.matches, base.grounded)

    @classmethod
    def wrap(cls, inner: Scorer, context: ScorerContext) -> Scorer | str | None:
        """The scorer over n; None for `exact`, whose answer is a fact, not a best guess among premises."""
        if isinstance(inner, ExactScorer):
            return None
        return cls(inner)


@dataclass(frozen=True)
class Combined:
    """Several scorers' answers weighed by a fitted logistic regression (`graph_builder.graphs.combined`).

    A hypothesis' answer is the combination of each component's best score over its evidence, exactly as fitted;
    each pair gets that answer scaled by how its own component scores combine against the hypothesis' best
    pair, so the best pair carries the answer and the rest of the evidence is ordered below it."""

    combination: Combination
    components: tuple[Scorer, ...]
    name: str = COMBINED
    reads_graphs: ClassVar[bool] = True

    @property
    def reads_text(self) -> bool:
        """Whether any component reads text."""
        return any(c.reads_text for c in self.components)

    @property
    def runs_model(self) -> bool:
        """Whether any component runs the sentence model."""
        return any(c.runs_model for c in self.components)

    @property
    def answer_threshold(self) -> float:
        """P(true) at or above which an answer is true: fitted with the weights."""
        return self.combination.threshold

    def score(self, batch: PairBatch) -> Scored:
        """Each hypothesis' combined answer, carried by its best pair; its other pairs below it."""
        parts = [batch.scored(c) for c in self.components]
        pairs = np.column_stack([p.scores for p in parts])
        groups = np.arange(len(pairs)) if batch.groups is None else np.asarray(batch.groups)
        _, inverse = np.unique(groups, return_inverse=True)
        best = np.zeros((inverse.max() + 1, pairs.shape[1]))
        np.maximum.at(best, inverse, pairs)
        answers = self.combination.probability(best)
        own = self.combination.probability(pairs)
        top = np.zeros(len(answers))
        np.maximum.at(top, inverse, own)
        scores = answers[inverse] * own / top[inverse]
        grounded = np.logical_or.reduce([p.grounded for p in parts])
        return Scored(scores, self.matches(parts), grounded)

    @staticmethod
    def matches(parts: Sequence[Scored]) -> list[str]:
        """Each pair's match: the first component's, unless it only backed off to the LM or met nothing and a
        later component scored the pair, whose match then says how the graphs met it."""
        out = list(parts[0].matches)
        for k, match in enumerate(out):
            if match in (LM_BACKOFF_MATCH, NO_MATCH):
                out[k] = next((p.matches[k] for p in parts[1:] if p.scores[k] > 0), match)
        return out

    @classmethod
    def offer(cls, combination: Combination | None, offered: Mapping[str, Scorer],
              unavailable: Mapping[str, str]) -> Combined | str:
        """The combined scorer, or why it is not offered: no combination fitted, or a component missing."""
        if combination is None:
            return (f"no combination is fitted for the loaded graphs (`egqa graph combine EVAL_DIR --graphs "
                    f"GRAPHS_DIR` writes {COMBINED_FILE})")
        missing = [c for c in combination.components if c not in offered]
        if missing:
            why = "; ".join(f"{c}: {unavailable.get(c, 'not a scorer of this installation')}" for c in missing)
            return f"its components are not all offered ({why})"
        return cls(combination, tuple(offered[c] for c in combination.components))


@dataclass(frozen=True)
class ScorerContext:
    """What the wrappers need to decide whether they apply: the model, smoothing settings, graph set names."""

    encoder: SentenceEncoder | None
    smooth_k: int
    smooth_min_cosine: float
    names: Mapping[int, str]  # id(GraphSet) -> how errors name it
    graphs: GraphSet  # the main graph set

    def label(self, graphs: GraphSet) -> str:
        """How an error names a graph set (never by its path: error bodies disclose no server paths)."""
        name = self.names.get(id(graphs))
        return "the loaded graph set" if name is None else f"the graph set {name!r}"


@dataclass(frozen=True)
class Unavailable:
    """A scorer this installation cannot offer, and why: what a later wrapper sees in its place."""

    name: str
    reason: str
    reads_graphs: bool
    reads_text: ClassVar[bool] = False
    runs_model: ClassVar[bool] = False

    def score(self, batch: PairBatch) -> Scored:
        """Never called: an unavailable scorer is not offered."""
        raise InputError(f"scorer {self.name!r} is unavailable: {self.reason}")


class Wrapper(Protocol):
    """A scorer kind built on another scorer, named `<inner><SUFFIX>`."""

    SUFFIX: ClassVar[str]
    reads_graphs: ClassVar[bool]
    needs_model: ClassVar[bool]  # whether `wrap` itself needs the sentence-embedding model

    @classmethod
    def wrap(cls, inner: Scorer, context: ScorerContext) -> Scorer | str | None:
        """The wrapped scorer, the reason it is unavailable, or None where it does not apply to `inner`."""
        ...


# Applied in this order, each to every scorer there is by then: so `binc+smooth+act+lm` exists, `binc+lm+smooth` not.
WRAPPERS: tuple[type[Wrapper], ...] = (Smoothed, UntypedBackoff, ActBackoff, LmBackoff, Directed, Many)


def base_scorer(name: str) -> str:
    """The scorer a name's wrappers are built on (`binc_clean+smooth+lm` -> `binc_clean`; `exact` -> `exact`)."""
    for wrapper in reversed(WRAPPERS):
        if name.endswith(wrapper.SUFFIX):
            name = name[:-len(wrapper.SUFFIX)]
    return name


def graph_names(names: Iterable[str]) -> list[str]:
    """The graph measures (or extra graph set names) that scorers read, each once in first-seen order: every
    name's base scorer except `exact` and `lm_cosine`, which read no graph."""
    bases = (base_scorer(n.strip()) for n in names if n.strip())
    return list(dict.fromkeys(b for b in bases if b not in (EXACT, LM_COSINE)))


def answer_threshold(scorer: Scorer, default: float) -> float:
    """The score at or above which `scorer`'s answer is true: its own where it was fitted with one (`combined`
    gives probabilities), else the installation's."""
    own = getattr(scorer, "answer_threshold", None)
    return default if own is None else float(own)


def model_scorers() -> str:
    """How a message names the scorers that need the sentence-embedding model (`lm_cosine, <scorer>+smooth, ...`)."""
    # The wrappers that read the model return the install hint from `wrap` when the encoder is missing.
    return ", ".join([LM_COSINE, *(f"<scorer>{w.SUFFIX}" for w in WRAPPERS if w.needs_model)])


class Scorers(Mapping[str, Scorer]):
    """The scorers an installation offers, by name, and why each unavailable one is not offered."""

    def __init__(self, scorers: Sequence[Scorer], unavailable: Mapping[str, str], default: str) -> None:
        self._scorers = {s.name: s for s in scorers}
        self.unavailable = dict(unavailable)
        self.default = default

    def __getitem__(self, name: str) -> Scorer:
        return self._scorers[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._scorers)

    def __len__(self) -> int:
        return len(self._scorers)

    def check(self, name: str | None) -> Scorer:
        """Return the scorer named (the default for None), or raise InputError saying why it is not offered."""
        name = name or self.default
        if name in self._scorers:
            return self._scorers[name]
        valid = f"valid scorers: {', '.join(self._scorers)}"
        if name in self.unavailable:
            raise InputError(f"scorer {name!r} is unavailable: {self.unavailable[name]}; {valid}")
        raise InputError(f"unknown scorer {name!r}; {valid}")


def build_scorers(graphs: GraphSet, *, measures: Sequence[str] | None = None,
                  extra_graphs: Mapping[str, GraphSet] | None = None, encoder: SentenceEncoder | None = None,
                  smooth_k: int = 4, smooth_min_cosine: float = 0.5, default: str | None = None) -> Scorers:
    """Every scorer the loaded graphs and model allow, in a fixed order: each measure of `graphs` (or only
    `measures`), each extra graph set by its name, `exact`, `lm_cosine` when the model is loaded, then each
    wrapper of `WRAPPERS` over every scorer it applies to, then `combined` where the graphs have a combination.
    `default` (else the graphs' default measure) must be one of them."""
    check_smoothing(smooth_k, smooth_min_cosine)
    extra = dict(sorted((extra_graphs or {}).items()))
    chosen = [graphs.check_measure(m) for m in measures] if measures else list(graphs.measures)
    base: list[Scorer] = [GraphScorer(m, graphs, m) for m in chosen]
    reserved = {*chosen, EXACT, LM_COSINE, COMBINED}
    for name, extra_set in extra.items():
        if name in reserved or any(w.SUFFIX in name for w in WRAPPERS):
            raise InputError(f"extra graph set name {name!r} clashes with a scorer name; taken: "
                             f"{', '.join(sorted(reserved))}, and any name holding "
                             f"{' or '.join(w.SUFFIX for w in WRAPPERS)}")
        base.append(GraphScorer(name, extra_set, extra_set.default_measure))
    base.append(ExactScorer())
    unavailable: dict[str, str] = {}
    if encoder is not None:
        base.append(LmCosine(encoder))
    else:
        unavailable[LM_COSINE] = f"the sentence-embedding model is not loaded ({INSTALL_HINT})"
    context = ScorerContext(encoder, smooth_k, smooth_min_cosine, {id(s): n for n, s in extra.items()}, graphs)
    scorers = list(base)
    # What a wrapper would have built but cannot: later wrappers over it are unavailable for the same reason.
    missing: list[Unavailable] = [Unavailable(LM_COSINE, unavailable[LM_COSINE], LmCosine.reads_graphs)] \
        if LM_COSINE in unavailable else []
    for wrapper in WRAPPERS:
        for inner in [*scorers, *missing]:
            wrapped = wrapper.wrap(inner, context)
            if wrapped is None:
                continue
            name = inner.name + wrapper.SUFFIX
            if isinstance(inner, Unavailable) or isinstance(wrapped, str):
                reason = inner.reason if isinstance(inner, Unavailable) else str(wrapped)
                unavailable[name] = reason
                missing.append(Unavailable(name, reason, wrapper.reads_graphs))
            else:
                scorers.append(wrapped)
    combined = Combined.offer(graphs.combination, {s.name: s for s in scorers}, unavailable)
    if isinstance(combined, str):
        unavailable[COMBINED] = combined
    else:
        scorers.append(combined)
    names = {s.name for s in scorers}
    default = default or next((n for n in PREFERRED_DEFAULTS if n in names), None) or \
        (graphs.default_measure if graphs.default_measure in chosen else chosen[0])
    registry = Scorers(scorers, unavailable, default)
    registry.check(registry.default)
    return registry
