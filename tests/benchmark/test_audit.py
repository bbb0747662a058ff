"""The hypothesis-only audit flags a planted artefact and stays low on a clean file."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from benchmark.audit import AUDIT_FILE, audit_benchmark, audit_entries, audit_file, format_audit, hypothesis_features
from graph_builder.errors import InputError


def _bundles(n: int, planted: bool, seed: int = 0) -> list[dict[str, object]]:
    rng = random.Random(seed)
    pool = [f"(verb{k}.1,verb{k}.2)" for k in range(12)]
    out = []
    for b in range(n):
        for k in range(3):
            label = 1 if k == 0 else 0
            predicate = rng.choice(pool)
            if planted and not label:
                # Artefact: every negative's predicate carries a rare particle the positives never have.
                predicate = predicate.replace(".2)", ".zzz.2)")
            out.append({"id": f"dev-{b:05d}-{k}", "bundle_id": f"dev-{b:05d}", "label": label,
                        "subj": f"s{b}", "obj": f"o{b}", "subj_type": "person", "obj_type": "location",
                        "predicate": predicate, "predicate_text": predicate.strip("()").split(".")[0],
                        "window": 2100, "date": "1987-04-20", "exclude_sentence_ids": [f"x{b}"]})
    return out


def test_planted_artefact_is_found(tmp_path: Path) -> None:
    path = tmp_path / "planted.jsonl"
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in _bundles(120, planted=True)))
    result = audit_file(path)
    assert result["auc_norm"] > 0.95
    assert result["xi"] == pytest.approx(1 / 3)
    assert (result["n"], result["positives"], result["bundles"]) == (360, 120, 120)


def test_clean_file_stays_near_chance() -> None:
    result = audit_entries(_bundles(200, planted=False))
    # Predicates are drawn independently of labels; AUC_norm of a chance scorer is close to 0.
    assert result["auc_norm"] < 0.1


def test_features_see_the_hypothesis_only() -> None:
    entry = {"predicate": "want__(arrive.1,arrive.in.2)", "predicate_text": "wants to arrive in",
             "subj_type": "person", "obj_type": "location", "subj": "john", "obj": "paris",
             "exclude_sentence_ids": ["secret"], "window": 1}
    features = hypothesis_features(entry)
    assert {"lemma=arrive", "lemma=in", "prefix=want__", "types=person#location", "word=wants"} <= set(features)
    assert not any("john" in f or "secret" in f for f in features)


def _write(path: Path, entries: list[dict[str, object]]) -> None:
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in entries))


def test_benchmark_folder_is_audited_for_dev_and_test(tmp_path: Path) -> None:
    # dev carries the planted artefact, test does not: the two splits must be told apart, each with its
    # intervals from resampling its own bundles.
    _write(tmp_path / "dev.jsonl", _bundles(120, planted=True))
    _write(tmp_path / "test.jsonl", [{**e, "id": f"test{e['id']}", "bundle_id": f"test{e['bundle_id']}"}
                                     for e in _bundles(150, planted=False, seed=1)])
    results = audit_benchmark(tmp_path, resamples=200)
    assert list(results) == ["dev", "test"]
    assert results["dev"]["auc_norm"] > 0.95 and results["dev"]["ap_norm"] > 0.9
    assert results["test"]["auc_norm"] < 0.1
    assert (results["dev"]["bundles"], results["test"]["bundles"]) == (120, 150)
    assert results["test"]["bootstrap"]["unit"] == "bundle" and results["test"]["bootstrap"]["units"] == 150
    low, high = results["test"]["ap_norm_ci"]
    assert low < results["test"]["ap_norm"] < high
    assert orjson.loads((tmp_path / AUDIT_FILE).read_bytes()) == orjson.loads(orjson.dumps(results))
    table = format_audit(results).splitlines()
    assert [line.split()[0] for line in table[2:]] == ["dev", "test"]


def test_a_split_too_small_to_audit_is_reported_not_fatal_and_a_missing_one_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path / "dev.jsonl", _bundles(3, planted=False))
    _write(tmp_path / "test.jsonl", _bundles(60, planted=True))
    results = audit_benchmark(tmp_path, resamples=100)
    assert results["dev"]["error"] == "3 bundles are too few for 5-fold cross-validation"
    assert results["test"]["auc_norm"] > 0.9
    assert "dev: not audited: 3 bundles are too few" in format_audit(results)
    (tmp_path / "test.jsonl").unlink()
    with pytest.raises(InputError, match="no test.jsonl"):
        audit_benchmark(tmp_path)
