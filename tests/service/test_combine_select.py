"""Choosing the components of `combined`: folds of whole bundles, out-of-fold answers against a fit done by hand,
and a forward selection that takes the informative scorers and leaves noise out."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson
import pytest
from typer.testing import CliRunner

from graph_builder.errors import InputError
from graph_builder.graphs.combined import fit_combination
from service.cli import app
from service.combine import bundle_folds, out_of_fold, select_components


def write_run(folder: Path, bundles: int = 400, seed: int = 1) -> Path:
    """Scores of three scorers: `a` and `b` each read the label through noise of their own (so two read it better
    than one), `noise` reads nothing. Four entries a bundle, the first positive; no score is 0, so that no ties are
    left for noise to break."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True)
    with (folder / "scores.jsonl").open("wb") as out:
        for b in range(bundles):
            for k in range(4):
                label = int(k == 0)
                a = float(np.clip(0.3 + 0.2 * label + 0.2 * rng.standard_normal(), 1e-3, 1.0))
                bb = float(np.clip(0.3 + 0.2 * label + 0.2 * rng.standard_normal(), 1e-3, 1.0))
                out.write(orjson.dumps({"id": f"{b}-{k}", "bundle_id": f"b{b}", "label": label, "has_evidence": True,
                                        "a": a, "b": bb, "noise": float(rng.random())}) + b"\n")
    return folder


@pytest.fixture
def graphs(tmp_path: Path) -> Path:
    (tmp_path / "graphs").mkdir()
    (tmp_path / "graphs" / "manifest.json").write_text("{}")
    return tmp_path / "graphs"


def test_folds_deal_whole_bundles_and_repeat_under_a_seed() -> None:
    bundles = [f"b{k // 3}" for k in range(300)]
    folds = bundle_folds(bundles, 5, seed=0)
    for b in set(bundles):
        assert len({int(f) for f, x in zip(folds, bundles) if x == b}) == 1
    assert sorted(set(folds.tolist())) == [0, 1, 2, 3, 4]
    assert np.array_equal(folds, bundle_folds(bundles, 5, seed=0))
    assert not np.array_equal(folds, bundle_folds(bundles, 5, seed=1))
    with pytest.raises(InputError, match="folds"):
        bundle_folds(["x", "y"], 3, seed=0)
    with pytest.raises(InputError, match="folds"):
        bundle_folds(bundles, 1, seed=0)


def test_out_of_fold_answers_come_from_a_fit_on_the_other_folds(tmp_path: Path, graphs: Path) -> None:
    rows = [orjson.loads(line) for line in (write_run(tmp_path / "run") / "scores.jsonl").read_bytes().splitlines()]
    scores = np.array([[r["a"], r["b"]] for r in rows])
    labels = np.array([r["label"] for r in rows])
    evidence = np.ones(len(rows), dtype=bool)
    evidence[::7] = False
    folds = bundle_folds([r["bundle_id"] for r in rows], 4, seed=3)
    got = out_of_fold(scores, labels, evidence, folds, ("a", "b"), graphs, c=1.0)
    for fold in range(4):
        held = folds == fold
        by_hand = fit_combination(scores[~held], labels[~held], ("a", "b"), graphs, has_evidence=evidence[~held])
        want = np.where(evidence[held], by_hand.probability(scores[held]), 0.0)
        np.testing.assert_allclose(got[held], want)
    assert (got[~evidence] == 0).all()


def test_selection_takes_the_informative_scorers_and_leaves_noise(tmp_path: Path, graphs: Path) -> None:
    run = write_run(tmp_path / "run")
    selection = select_components(run, graphs, folds=5, seed=0)
    assert sorted(selection.components) == ["a", "b"]
    assert selection.stopped is not None and selection.stopped[0] == "noise"
    assert selection.steps[1][1] > selection.steps[0][1] + 10  # the second scorer adds what the first misses
    assert selection.alone["noise"] < selection.alone["a"]
    with pytest.raises(InputError, match="no scores for"):
        select_components(run, graphs, ["a", "missing"])


def test_the_command_reports_the_selection_and_fits_what_it_chose(tmp_path: Path, graphs: Path) -> None:
    run = write_run(tmp_path / "run")
    result = CliRunner().invoke(app, ["graph", "combine", str(run), "--graphs", str(graphs), "--select", "all",
                                      "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "step 1: + " in result.output and "stop: + noise" in result.output
    assert "dry run: nothing written" in result.output and not (graphs / "combined.json").exists()
