"""Batch evaluation over real HTTP (uvicorn on loopback) against the real Reuters build."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from benchmark.metrics import evaluate_scores
from graph_builder.errors import InputError, StoreError
from graph_builder.triples import read_triples
from service.evaluate import (PARTIAL, EvalConfig, compare_runs, compare_scores, evaluate, format_comparison,
                              format_run_comparison, format_table)
from service.demo import free_port
from service.settings import Settings

from tests.conftest import Build
from tests.service.conftest import serve_in_thread




@pytest.fixture(scope="module")
def server(reuters_build: Build) -> Iterator[str]:
    """The service on a loopback port, exactly as `egqa serve` runs it."""
    with serve_in_thread(Settings(graphs_dir=reuters_build.graphs, store_url=reuters_build.sqlite_url)) as url:
        yield url


@pytest.fixture(scope="module")
def entries(reuters_build: Build) -> list[dict[str, Any]]:
    """A small labelled set: real triples (label 1) and the same pairs with another pair's predicate (label 0)."""
    rows = read_triples(reuters_build.triples).to_pylist()
    rng = random.Random(3)
    sample = rng.sample(rows, 60)
    out = []
    for n, r in enumerate(sample):
        other = sample[(n + 1) % len(sample)]["predicate"]
        for k, (label, predicate) in enumerate(((1, r["predicate"]), (0, other))):
            out.append({"id": f"e{n:03d}-{k}", "bundle_id": f"e{n:03d}", "label": label, "subj": r["subj"],
                        "obj": r["obj"], "subj_type": r["subj_type"], "obj_type": r["obj_type"],
                        "predicate": predicate, "window": r["window"], "exclude_sentence_ids": []})
    out.append({**out[0], "id": "bad-window", "window": 1})  # a window with no news: counted as failed
    return out


def test_evaluate_writes_scores_report_and_figure(server: str, entries: list[dict[str, Any]], tmp_path: Path) -> None:
    config = EvalConfig(("binc", "exact"), batch_size=16, concurrency=3)
    result = evaluate(entries, server, tmp_path, config)
    lines = [orjson.loads(x) for x in (tmp_path / "scores.jsonl").read_bytes().splitlines()]
    assert [x["id"] for x in lines] == [e["id"] for e in entries]
    assert all({"id", "label", "binc", "exact"} <= set(x) for x in lines)
    report = orjson.loads((tmp_path / "report.json").read_bytes())
    assert set(report) == {"binc", "exact"} and report["exact"]["failed"] == 1
    # Anyone can recompute the metrics, intervals included, from scores.jsonl.
    again = evaluate_scores([x["label"] for x in lines], [x["exact"] for x in lines],
                            [x["has_evidence"] for x in lines], [x["bundle_id"] for x in lines])
    for key in ("auc_norm", "ap_norm", "auc_50", "xi", "coverage"):
        assert again[key] == pytest.approx(report["exact"][key])
    assert again["auc_norm_ci"] == pytest.approx(report["exact"]["auc_norm_ci"])
    assert again["ap_norm_ci"] == pytest.approx(report["exact"]["ap_norm_ci"])
    # Intervals resample the 60 bundles (the bad-window entry shares its bundle with e000-0).
    assert report["binc"]["bootstrap"] == {
        "method": "egqa.bootstrap_percentile_by_unit.v1", "level": 0.95, "resamples": 1000, "seed": 0,
        "unit": "bundle", "units": 60, "undefined": 0}
    for scorer in ("binc", "exact"):
        m = report[scorer]
        assert m["auc_norm_ci"][0] <= m["auc_norm"] <= m["auc_norm_ci"][1]
        assert m["ap_norm_ci"][0] <= m["ap_norm"] <= m["ap_norm_ci"][1]
    # Each positive is a real mention in its window: the exact baseline finds it, the graphs score it 1.0 too.
    positives = [x for x in lines if x["label"] == 1 and x["id"] != "bad-window"]
    assert all(x["exact"] == 1.0 and x["binc"] == 1.0 for x in positives)
    assert report["exact"]["xi"] == pytest.approx(61 / 121)
    assert (tmp_path / "pr_curves.png").stat().st_size > 5000
    assert result.report == report


def test_compare_sets_scorers_against_a_baseline_on_a_real_run(server: str, entries: list[dict[str, Any]],
                                                              tmp_path: Path) -> None:
    evaluate(entries, server, tmp_path, EvalConfig(("binc", "exact"), batch_size=16, resamples=200))
    report = orjson.loads((tmp_path / "report.json").read_bytes())
    comparison = compare_scores(tmp_path, "exact", resamples=200)
    assert comparison["baseline"] == "exact" and list(comparison["scorers"]) == ["exact", "binc"]
    for scorer in ("binc", "exact"):  # the same metrics as the run's own report, intervals included
        for key in ("auc_norm", "ap_norm", "coverage", "auc_norm_ci", "ap_norm_ci"):
            assert comparison["scorers"][scorer]["metrics"][key] == pytest.approx(report[scorer][key])
    same = comparison["scorers"]["exact"]["minus_baseline"]
    assert same["ap_norm"] == 0.0 and same["ap_norm_ci"] == [0.0, 0.0]
    diff = comparison["scorers"]["binc"]["minus_baseline"]
    assert diff["ap_norm"] == pytest.approx(report["binc"]["ap_norm"] - report["exact"]["ap_norm"])
    assert diff["ap_norm_ci"][0] <= diff["ap_norm"] <= diff["ap_norm_ci"][1]
    # 60 bundles of one positive and one negative; bundle e000 also holds the failed bad-window entry.
    for scorer in ("binc", "exact"):
        contrast = comparison["scorers"][scorer]["contrast"]
        assert contrast["pairs"] == 61
        assert sum(v for k, v in contrast.items() if k != "pairs") == 61
    table = format_comparison(comparison).splitlines()
    assert table[0].split()[:3] == ["scorer", "AP_norm", "[95%"] and table[1].startswith("exact")
    assert "scorer minus exact on the same 200 resamples of 60 bundles" in table[-1]
    with pytest.raises(InputError, match="no scores for 'lin'; the run holds: binc, exact"):
        compare_scores(tmp_path, "lin")


def test_compare_refuses_what_is_not_a_scores_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no scores at"):
        compare_scores(tmp_path, "binc")
    (tmp_path / "scores.jsonl").write_text('{"id": "a", "label": 1, "bundle_id": "b", "binc": 0.5}\nnot json\n')
    with pytest.raises(InputError, match="scores.jsonl:2 is not JSON"):
        compare_scores(tmp_path, "binc")
    (tmp_path / "scores.jsonl").write_text('{"id": "a", "label": 1, "bundle_id": "b", "binc": 0.5}\n'
                                           '{"id": "c", "label": 0, "bundle_id": "b", "binc": null}\n')
    with pytest.raises(InputError, match="row 2 has no numeric score for binc"):
        compare_scores(tmp_path / "scores.jsonl", "binc")


def test_evaluate_resumes_without_asking_again(server: str, entries: list[dict[str, Any]], tmp_path: Path) -> None:
    config = EvalConfig(("exact",), batch_size=32)
    evaluate(entries[:40], server, tmp_path, config)
    partial = (tmp_path / PARTIAL).read_bytes()
    # The second run finds every score on disk; pointed at a dead port it would fail if it asked anything.
    evaluate(entries[:40], "http://127.0.0.1:9", tmp_path, EvalConfig(("exact",), retries=0))
    assert (tmp_path / PARTIAL).read_bytes() == partial
    evaluate(entries[:60], server, tmp_path, config)  # 20 more entries: only those are asked
    assert len((tmp_path / PARTIAL).read_bytes().splitlines()) == 60


def test_a_rebuilt_benchmark_is_asked_again_where_an_id_names_another_proposition(
        server: str, entries: list[dict[str, Any]], tmp_path: Path) -> None:
    config = EvalConfig(("exact",), batch_size=32)
    first = evaluate(entries[:10], server, tmp_path, config)
    # The same ids after a rebuild: entry 0 now asks entry 1's proposition (and the other way round).
    swapped = [dict(e) for e in entries[:10]]
    keep = ("id", "bundle_id", "label")
    for a, b in ((0, 1), (1, 0)):
        swapped[a] = {**{k: entries[b][k] for k in entries[b] if k not in keep}, **{k: entries[a][k] for k in keep}}
    evaluate(swapped, server, tmp_path, config)
    lines = [orjson.loads(line) for line in (tmp_path / PARTIAL).read_bytes().splitlines()]
    assert len(lines) == 12 and {x["id"] for x in lines[10:]} == {entries[0]["id"], entries[1]["id"]}
    rows = {r["id"]: r for r in map(orjson.loads, (tmp_path / "scores.jsonl").read_bytes().splitlines())}
    assert first.report["exact"]["n"] == 10
    evaluate(swapped, server, tmp_path / "fresh", config)
    fresh_rows = {r["id"]: r for r in map(orjson.loads, (tmp_path / "fresh" / "scores.jsonl").read_bytes().splitlines())}
    assert all(rows[i]["exact"] == fresh_rows[i]["exact"] for i in fresh_rows)
    # A partial line written before digests existed is never reused.
    old = tmp_path / "old"
    old.mkdir()
    (old / PARTIAL).write_bytes(orjson.dumps({"id": entries[0]["id"], "scorer": "exact", "score": 0.5,
                                              "evidence_count": 1}) + b"\n")
    evaluate(entries[:2], server, old, config)
    assert len((old / PARTIAL).read_bytes().splitlines()) == 3


def test_unreachable_service_fails_clearly_after_retries(entries: list[dict[str, Any]], tmp_path: Path) -> None:
    started = time.perf_counter()
    with pytest.raises(StoreError, match="failed after 3 tries"):
        evaluate(entries[:4], f"http://127.0.0.1:{free_port()}", tmp_path, EvalConfig(("exact",), retries=2,
                                                                                      backoff=0.05))
    assert time.perf_counter() - started < 30


def test_table_shows_both_metrics_with_intervals_and_reads_old_reports() -> None:
    # A report of this version and one written before AP_norm and intervals existed.
    report = {
        "binc": {"auc_norm": 0.59, "auc_norm_ci": [0.512, 0.664], "ap_norm": 0.0312, "ap_norm_ci": [-0.0201, 0.08],
                 "auc_50": 0.7, "xi": 0.379, "coverage": 1.0, "n": 132, "positives": 50, "failed": 0,
                 "bootstrap": {"resamples": 1000, "units": 50, "unit": "bundle", "seed": 0}},
        "exact": {"auc_norm": 0.5, "auc_50": 0.0, "xi": 0.379, "coverage": 0.0, "n": 132, "failed": 2},
    }
    lines = format_table(report).splitlines()
    assert lines[0].split() == ["scorer", "AUC_norm", "[95%", "CI]", "AP_norm", "[95%", "CI]", "AUC_50", "xi",
                                "coverage", "n", "failed"]
    assert lines[1].split() == ["binc", "59.0", "[51.2,", "66.4]", "3.1", "[-2.0,", "8.0]", "70.0", "0.379", "100.0",
                                "132", "0"]
    assert lines[2].split() == ["exact", "50.0", "-", "0.0", "0.379", "0.0", "132", "2"]
    assert "1000 bootstrap resamples of 50 bundles" in lines[3]


def test_bad_datasets_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no entries"):
        evaluate([], "http://127.0.0.1:9", tmp_path, EvalConfig())
    with pytest.raises(InputError, match="not unique"):
        evaluate([{"id": "a", "label": 1, "subj": "x", "obj": "y", "subj_type": "t", "obj_type": "t",
                   "predicate": "(a.1,a.2)", "window": 1}] * 2, "http://127.0.0.1:9", tmp_path, EvalConfig())


def test_cli_compare_prints_the_table_and_writes_json(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from service.cli import app

    rows = [{"id": f"{b}-{k}", "bundle_id": f"b{b}", "label": int(k == 0), "has_evidence": True,
             "binc": [0.9, 0.2][k] if b % 3 else 0.0, "lin": [0.6, 0.6][k] if b % 3 else 0.1}
            for b in range(30) for k in range(2)]
    (tmp_path / "scores.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    result = CliRunner().invoke(app, ["compare", str(tmp_path), "--baseline", "lin", "--resamples", "50",
                                      "--out", str(tmp_path / "compare.json")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # 20 bundles where binc ranks the positive first and lin ties the two; 10 where only lin scores (a tie).
    assert lines[1].split()[-6:] == ["0", "0", "30", "0", "0", "0"]  # lin: every pair tied
    assert lines[2].split()[-6:] == ["20", "0", "0", "0", "0", "10"]  # binc
    saved = orjson.loads((tmp_path / "compare.json").read_bytes())
    assert saved["scorers"]["binc"]["minus_baseline"]["ap_norm"] > 0
    printed = CliRunner().invoke(app, ["compare", str(tmp_path), "--baseline", "lin", "--resamples", "50", "--json"])
    assert printed.exit_code == 0, printed.output
    assert orjson.loads(printed.output) == saved  # --json prints what --out writes, and nothing else
    bad = CliRunner().invoke(app, ["compare", str(tmp_path), "--baseline", "cos"])
    assert bad.exit_code == 2
    assert bad.stderr == "error: no scores for 'cos'; the run holds: binc, lin\n"


def test_interleave_sends_each_batch_to_its_scorers_spacing_apart() -> None:
    """Every request goes out once; a scorer's batches keep their order; a batch reaches the next scorer at least
    `spacing` requests after the one before (answered by then, so the service reuses its evidence)."""
    from service.evaluate import interleave

    batches = [[{"id": f"e{k}"}] for k in range(7)]
    per_scorer = [[(s, b) for b in batches[:n]] for s, n in (("exact", 7), ("binc", 7), ("lin", 3))]
    jobs = interleave(per_scorer, 4)
    assert sorted((s, b[0]["id"]) for s, b in jobs) == sorted((s, b[0]["id"]) for js in per_scorer for s, b in js)
    place = {(s, b[0]["id"]): i for i, (s, b) in enumerate(jobs)}
    for s, n in (("exact", 7), ("binc", 7), ("lin", 3)):
        assert [place[(s, f"e{k}")] for k in range(n)] == sorted(place[(s, f"e{k}")] for k in range(n))
    for k in range(7):
        assert place[("binc", f"e{k}")] - place[("exact", f"e{k}")] >= 4
    for k in range(3):
        assert place[("lin", f"e{k}")] - place[("binc", f"e{k}")] >= 4
    assert interleave([[("binc", b) for b in batches]], 4) == [("binc", b) for b in batches]


def test_a_combination_fitted_on_one_run_scores_over_http_as_fitted(server: str, entries: list[dict[str, Any]],
                                                                   reuters_build: Build, tmp_path: Path) -> None:
    import shutil

    from typer.testing import CliRunner

    from graph_builder.graphs.combined import load_combination
    from service.cli import app

    pytest.importorskip("sklearn")
    fit_run = tmp_path / "fit"
    evaluate(entries, server, fit_run, EvalConfig(("binc", "binc+dir", "exact"), batch_size=16, resamples=50))
    graphs = tmp_path / "graphs"
    shutil.copytree(reuters_build.graphs, graphs)
    dry = CliRunner().invoke(app, ["graph", "combine", str(fit_run), "--graphs", str(graphs), "--components",
                                   "binc+dir,exact", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "dry run: nothing written" in dry.output and load_combination(graphs) is None
    fitted = CliRunner().invoke(app, ["graph", "combine", str(fit_run), "--graphs", str(graphs), "--components",
                                      "binc+dir,exact", "--check", str(fit_run)])
    assert fitted.exit_code == 0, fitted.output
    lines = fitted.output.splitlines()
    assert lines[0].split() == ["component", "w", "score", "w", "ln(score)", "w", "[score>0]"]
    assert "combined minus it, AP_norm" in fitted.output and f"written: {graphs / 'combined.json'}" in fitted.output
    combination = load_combination(graphs)
    assert combination is not None and combination.components == ("binc+dir", "exact")
    # Served with those graphs, `combined` is offered; its answers are the fitted model's.
    with serve_in_thread(Settings(graphs_dir=graphs, store_url=reuters_build.sqlite_url)) as url:
        out = tmp_path / "served"
        evaluate(entries, url, out, EvalConfig(("combined",), batch_size=16, resamples=0))
    served = {x["id"]: x for x in map(orjson.loads, (out / "scores.jsonl").read_bytes().splitlines())}
    offline = [orjson.loads(x) for x in (fit_run / "scores.jsonl").read_bytes().splitlines()]
    for row in offline:
        expected = combination.probability([[row["binc+dir"], row["exact"]]])[0] if row["has_evidence"] else 0.0
        assert served[row["id"]]["combined"] == pytest.approx(expected, rel=1e-5, abs=1e-9)
    # A component the run does not hold is named, with the command that adds it.
    missing = CliRunner().invoke(app, ["graph", "combine", str(fit_run), "--graphs", str(graphs), "--components",
                                       "binc,lin"])
    assert missing.exit_code == 2
    assert "no scores for lin" in missing.output and "egqa evaluate ... --scorer binc,lin" in missing.output


def _run(folder: Path, rows: list[dict[str, Any]]) -> Path:
    folder.mkdir()
    (folder / "scores.jsonl").write_bytes(b"\n".join(orjson.dumps(r) for r in rows) + b"\n")
    return folder


def test_compare_sets_a_run_against_another_run_of_the_same_benchmark(tmp_path: Path) -> None:
    entries = [("a", "b1", 1), ("b", "b1", 0), ("c", "b2", 1), ("d", "b2", 0)]
    mine = _run(tmp_path / "new", [{"id": i, "bundle_id": b, "label": y, "has_evidence": True, "binc": s}
                                   for (i, b, y), s in zip(entries, [0.9, 0.1, 0.2, 0.8], strict=True)])
    # The other run scored entry c high without evidence: it counts as 0 there, as in that run's own metrics.
    theirs = _run(tmp_path / "old", [{"id": i, "bundle_id": b, "label": y, "has_evidence": i != "c", "binc": s}
                                     for (i, b, y), s in zip(entries, [0.9, 0.1, 0.9, 0.8], strict=True)])
    labels = [y for _, _, y in entries]
    comparison = compare_runs(mine, theirs, resamples=50)
    item = comparison["scorers"]["binc"]
    expected_mine = evaluate_scores(labels, [0.9, 0.1, 0.2, 0.8], None, ["b1", "b1", "b2", "b2"], 50)["ap_norm"]
    expected_theirs = evaluate_scores(labels, [0.9, 0.1, 0.0, 0.8], None, ["b1", "b1", "b2", "b2"], 50)["ap_norm"]
    assert item["metrics"]["ap_norm"] == pytest.approx(expected_mine)
    assert item["against_metrics"]["ap_norm"] == pytest.approx(expected_theirs)
    assert item["minus_against"]["ap_norm"] == pytest.approx(expected_mine - expected_theirs)
    assert expected_mine > expected_theirs  # c ranked above nothing there, above b here
    assert compare_runs(mine, mine, resamples=50)["scorers"]["binc"]["minus_against"]["ap_norm_ci"] == [0.0, 0.0]
    lines = format_run_comparison(comparison).splitlines()
    assert lines[0].split()[:2] == ["scorer", "AP_norm"] and lines[1].startswith("binc")
    # Another benchmark's run is refused, as is a scorer the other run lacks.
    other = _run(tmp_path / "other", [{"id": "z", "bundle_id": "b1", "label": 1, "binc": 0.5},
                                      {"id": "y", "bundle_id": "b1", "label": 0, "binc": 0.5},
                                      {"id": "x", "bundle_id": "b2", "label": 1, "binc": 0.5},
                                      {"id": "w", "bundle_id": "b2", "label": 0, "binc": 0.5}])
    with pytest.raises(InputError, match="same benchmark file"):
        compare_runs(mine, other)
    with pytest.raises(InputError, match="no scores in both runs for 'lin'"):
        compare_runs(mine, theirs, ["lin"])
