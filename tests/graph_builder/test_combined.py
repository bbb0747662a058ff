"""The combined scorer: its features and threshold against hand values and brute force, its artefact refused for
other graphs, and its scores against a naive reference group by group."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import orjson
import pytest

from graph_builder.errors import ArtefactError, InputError
from graph_builder.graphs.combined import (COMBINED_FILE, Combination, balanced_threshold, features, fit_combination,
                                           graphs_digest, load_combination, write_combination)
from graph_builder.graphs.graphset import GraphSet, Query
from graph_builder.graphs.scorers import (COMBINED, Combined, PairBatch, Scored, answer_threshold, build_scorers)
from tests.graph_builder.lm_fixtures import build_lm_graphs


@pytest.fixture(scope="module")
def graphs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_lm_graphs(tmp_path_factory.mktemp("combined"))


def _combination(graphs_dir: Path, components: tuple[str, ...] = ("binc", "binc+dir")) -> Combination:
    weights = np.array([[2.0, 0.1, -0.5], [1.0, 0.0, 0.3]][: len(components)])
    return Combination(components, weights, -1.0, 0.4, graphs_digest(graphs_dir), {"entries": 10})


def test_features_are_the_score_its_log_and_whether_it_scored() -> None:
    got = features([[0.5, 0.0]])
    np.testing.assert_allclose(got, [[0.5, np.log(0.5 + 1e-12), 1.0, 0.0, np.log(1e-12), 0.0]])
    with pytest.raises(InputError, match="array"):
        features([0.5, 0.0])


def test_probability_is_the_logistic_of_the_weighted_features(graphs_dir: Path) -> None:
    combo = _combination(graphs_dir)
    s = np.array([[0.3, 0.0], [0.0, 0.9]])
    by_hand = []
    for a, b in s:
        z = -1.0 + 2.0 * a + 0.1 * np.log(a + 1e-12) - 0.5 * (a > 0) + 1.0 * b + 0.3 * (b > 0)
        by_hand.append(1 / (1 + np.exp(-z)))
    np.testing.assert_allclose(combo.probability(s), by_hand)


def test_the_balanced_threshold_matches_brute_force() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    p = np.clip(0.3 * y + rng.random(200) * 0.7, 0, 1)
    best, cut = -1.0, None
    for t in sorted(set(p.tolist())):  # the first cut reaching the best balanced accuracy, from the lowest
        pred = p >= t
        score = ((pred & (y == 1)).sum() / (y == 1).sum() + (~pred & (y == 0)).sum() / (y == 0).sum()) / 2
        if score > best + 1e-12:
            best, cut = score, t
    got = balanced_threshold(y, p)
    pred = p >= got
    got_score = ((pred & (y == 1)).sum() / (y == 1).sum() + (~pred & (y == 0)).sum() / (y == 0).sum()) / 2
    assert got_score == pytest.approx(best) and cut is not None


def test_a_fit_learns_which_component_tells_the_labels_and_round_trips(graphs_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    informative = np.clip(0.6 * y + 0.4 * rng.random(400), 0, 1)
    noise = rng.random(400)
    combo = fit_combination(np.column_stack([informative, noise]), y, ["binc", "binc+dir"], graphs_dir,
                            origin={"evaluation": "mine"})
    assert combo.weights[0, 0] > 2 * abs(combo.weights[1, 0])
    assert combo.fitted["entries"] == 400 and combo.fitted["evaluation"] == "mine"
    assert 0 < combo.threshold < 1
    # Entries without evidence are left out of the fit.
    half = fit_combination(np.column_stack([informative, noise]), y, ["binc", "binc+dir"], graphs_dir,
                           has_evidence=np.arange(400) < 200)
    assert half.fitted["entries"] == 200
    copy = tmp_path / "graphs"
    shutil.copytree(graphs_dir, copy)
    written = write_combination(copy, combo)
    assert written == copy / COMBINED_FILE
    loaded = load_combination(copy)
    assert loaded is not None and loaded.components == combo.components
    np.testing.assert_allclose(loaded.weights, combo.weights)
    assert GraphSet.load(copy).combination is not None
    with pytest.raises(InputError, match="both labels"):
        fit_combination(np.zeros((5, 1)), np.ones(5), ["binc"], graphs_dir)
    with pytest.raises(InputError, match="one label and 2 component scores"):
        fit_combination(np.zeros((5, 1)), np.ones(5), ["binc", "binc+dir"], graphs_dir)


def test_an_artefact_for_other_graphs_or_malformed_is_refused(graphs_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "graphs"
    shutil.copytree(graphs_dir, copy)
    assert load_combination(copy) is None
    doc = _combination(copy).to_json()
    (copy / COMBINED_FILE).write_bytes(orjson.dumps({**doc, "graphs_manifest_sha256": "0" * 64}))
    with pytest.raises(ArtefactError, match="fitted for other graphs.*egqa graph combine"):
        load_combination(copy)
    (copy / COMBINED_FILE).write_bytes(orjson.dumps({**doc, "weights": {"binc": [1.0]}}))
    with pytest.raises(ArtefactError, match="malformed"):
        load_combination(copy)
    (copy / COMBINED_FILE).write_bytes(orjson.dumps({**doc, "format": "egqa.combined.v0"}))
    with pytest.raises(ArtefactError, match="not an egqa.combined.v1"):
        load_combination(copy)


class Fixed:
    """A component scorer with given pair scores."""

    reads_text = False
    reads_graphs = True
    runs_model = False

    def __init__(self, name: str, scores: list[float], matches: list[str] | None = None) -> None:
        self.name = name
        self.scores = np.array(scores)
        self.kinds = matches or ["typed"] * len(scores)

    def score(self, batch: PairBatch) -> Scored:
        return Scored(self.scores, self.kinds, np.ones(len(self.scores), dtype=bool))


def test_combined_scores_match_a_naive_reference_group_by_group(graphs_dir: Path) -> None:
    combo = _combination(graphs_dir)
    a = [0.0, 0.4, 0.1, 0.0, 0.9, 0.2]
    b = [0.8, 0.0, 0.0, 0.0, 0.1, 0.6]
    groups = np.array([0, 0, 0, 1, 2, 2])
    query = Query("(p.1,p.2)", "(q.1,q.2)", ("a", "b"))
    batch = PairBatch([query] * 6, groups=groups)
    scored = Combined(combo, (Fixed("binc", a), Fixed("binc+dir", b))).score(batch)
    for g in (0, 1, 2):
        members = np.flatnonzero(groups == g)
        # The hypothesis' answer: the combination of each component's best over its evidence.
        answer = combo.probability([[max(a[i] for i in members), max(b[i] for i in members)]])[0]
        assert scored.scores[members].max() == pytest.approx(answer)
        own = combo.probability([[a[i], b[i]] for i in members])
        # Its pairs keep the order of their own combined scores, the best one carrying the answer.
        np.testing.assert_allclose(scored.scores[members], answer * own / own.max())


def test_the_registry_offers_combined_only_with_a_fitted_artefact(graphs_dir: Path, tmp_path: Path) -> None:
    plain = build_scorers(GraphSet.load(graphs_dir))
    assert COMBINED not in plain
    with pytest.raises(InputError, match=r"scorer 'combined' is unavailable: no combination is fitted.*egqa graph "
                                         r"combine"):
        plain.check(COMBINED)
    copy = tmp_path / "graphs"
    shutil.copytree(graphs_dir, copy)
    write_combination(copy, _combination(copy))
    graphs = GraphSet.load(copy)
    registry = build_scorers(graphs)
    # Where fitted, it is the default (the best method measured, docs/results.md); a setting still wins.
    assert list(registry)[-1] == COMBINED and registry.default == COMBINED
    assert build_scorers(graphs, default="binc").default == "binc"
    assert answer_threshold(registry[COMBINED], 0.05) == pytest.approx(0.4)
    assert answer_threshold(registry["binc"], 0.05) == 0.05
    # A component the installation cannot offer (here: the LM) makes it unavailable, saying which and why.
    write_combination(copy, _combination(copy, ("binc", "lm_cosine")))
    registry = build_scorers(GraphSet.load(copy))
    assert COMBINED not in registry and registry.default == "binc+act"  # the next best offered
    assert "lm_cosine: the sentence-embedding model is not loaded" in registry.unavailable[COMBINED]


def test_a_pair_the_first_component_only_backed_off_on_takes_the_match_of_the_one_that_scored_it(
        graphs_dir: Path) -> None:
    combo = _combination(graphs_dir)
    first = Fixed("binc", [1e-9, 1e-9, 0.5], ["lm_backoff", "lm_backoff", "typed"])
    second = Fixed("binc+dir", [0.3, 0.0, 0.2], ["fuzzy", "none", "backoff"])
    batch = PairBatch([Query("(p.1,p.2)", "(q.1,q.2)", ("a", "b"))] * 3, groups=np.array([0, 1, 2]))
    assert Combined(combo, (first, second)).score(batch).matches == ["fuzzy", "lm_backoff", "typed"]


def test_the_stable_threshold_is_the_median_of_bundle_resamples_argmaxes() -> None:
    from graph_builder.graphs.combined import stable_threshold

    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 300)
    p = np.clip(0.3 * y + rng.random(300) * 0.7, 0, 1)
    groups = [f"b{k // 3}" for k in range(300)]  # bundles of three entries
    # By hand: the same resamples of whole bundles, each one's best cut, their median.
    draw = np.random.default_rng(0)
    cuts = []
    for _ in range(50):
        chosen = draw.integers(0, 100, 100)
        pick = np.concatenate([np.arange(3 * g, 3 * g + 3) for g in chosen])
        cuts.append(balanced_threshold(y[pick], p[pick]))
    assert stable_threshold(y, p, groups, resamples=50, seed=0) == pytest.approx(float(np.median(cuts)))
    # Steadier than one argmax: dropping a tenth of the entries moves the median less.
    keep = rng.random(300) > 0.1
    kept = [g for g, k in zip(groups, keep, strict=True) if k]
    moved_argmax = abs(balanced_threshold(y, p) - balanced_threshold(y[keep], p[keep]))
    moved_median = abs(stable_threshold(y, p, groups) - stable_threshold(y[keep], p[keep], kept))
    assert moved_median <= moved_argmax + 0.02
