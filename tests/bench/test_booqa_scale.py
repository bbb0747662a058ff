"""The BoOQA-scale generator of bench/synthetic.py: deterministic, evidence spread as specified, bundles the
evaluator accepts, the evaluation period kept out of the training part, and planted evidence the engine finds.
And bench/booqa_scale.py's own arithmetic: its options, its ratios, and what --resume reuses."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from bench.booqa_scale import Bench, Stage, parse_args, ratio, score_mismatches
from bench.synthetic import BENCHMARK_FILE, STATS_FILE, TRIPLES_DIR, CorpusSpec, cached, generate_booqa
from benchmark.build import read_jsonl
from graph_builder.triples import dataset_checksum, read_articles, read_triples
from graph_builder.predicates import is_normalised
from service.evaluate import check_entries, entry_query

TINY = CorpusSpec(triples=30_000, train_triples=18_000, propositions=601, windows=40, predicates=2_000)
# Big enough for the heavy tail to show (2,000 bundles), small enough to generate in a few seconds.
MODERATE = CorpusSpec(triples=150_000, train_triples=75_000, propositions=6_000, windows=120, predicates=4_000)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny corpus."""
    out = tmp_path_factory.mktemp("tiny")
    generate_booqa(TINY, out, progress=False)
    return out


@pytest.fixture(scope="module")
def tiny_served(tiny: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The tiny corpus as the benchmark serves it: binc and weeds graphs of TRAIN, a SQLite store of TEST."""
    from graph_builder.graphs.build import BuildParams, build_graphs
    from retrieval.factory import open_store
    from retrieval.ingest import index_dataset

    out = tmp_path_factory.mktemp("tiny-served")
    build_graphs(tiny / TRIPLES_DIR, out / "graphs", BuildParams(measures=("binc", "weeds"), splits=("TRAIN",)),
                 progress=False)
    url = f"sqlite:///{out / 'evidence.db'}"
    store = open_store(url)
    index_dataset(tiny / TRIPLES_DIR, store, splits=("TEST",))
    store.close()
    return out / "graphs", url


@pytest.fixture(scope="module")
def moderate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A corpus of 2,000 bundles."""
    out = tmp_path_factory.mktemp("moderate")
    generate_booqa(MODERATE, out, progress=False)
    return out


def _evidence_per_entry(folder: Path, entries: list[dict[str, object]]) -> list[int]:
    """Recount each entry's evidence from the Parquet files: TEST triples of its window about its argument pair
    (either order), less those of its excluded sentences."""
    t = read_triples(folder / TRIPLES_DIR, columns=["window", "split", "subj", "obj", "sentence_id"])
    t = t.filter(pc.equal(t["split"], "TEST"))
    lo, hi = pc.min_element_wise(t["subj"], t["obj"]), pc.max_element_wise(t["subj"], t["obj"])
    keys = pc.binary_join_element_wise(pc.cast(t["window"], pa.string()), lo, hi, "|").to_pylist()
    per_pair = Counter(keys)
    per_sentence = Counter(zip(keys, t["sentence_id"].to_pylist()))
    out = []
    for e in entries:
        a, b = sorted((str(e["subj"]), str(e["obj"])))
        key = f"{e['window']}|{a}|{b}"
        excluded = sum(per_sentence[(key, s)] for s in e["exclude_sentence_ids"])  # type: ignore[attr-defined]
        out.append(per_pair[key] - excluded)
    return out


def test_same_seed_same_bytes_other_seed_other_bytes(tiny: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    generate_booqa(TINY, again, progress=False)
    assert dataset_checksum(again / TRIPLES_DIR) == dataset_checksum(tiny / TRIPLES_DIR)
    assert (again / BENCHMARK_FILE).read_bytes() == (tiny / BENCHMARK_FILE).read_bytes()
    assert read_articles(again / TRIPLES_DIR).equals(read_articles(tiny / TRIPLES_DIR))
    other = tmp_path / "other"
    generate_booqa(CorpusSpec(**{**TINY.__dict__, "seed": TINY.seed + 1}), other, progress=False)
    assert dataset_checksum(other / TRIPLES_DIR) != dataset_checksum(tiny / TRIPLES_DIR)
    # --keep reuses a corpus only when its params match.
    assert cached(TINY, tiny) is not None
    assert cached(CorpusSpec(**{**TINY.__dict__, "propositions": 600}), tiny) is None


def test_sizes_are_the_ones_asked_for(tiny: Path) -> None:
    t = read_triples(tiny / TRIPLES_DIR, columns=["split", "window", "predicate"])
    assert t.num_rows == TINY.triples
    assert Counter(t["split"].to_pylist()) == {"TRAIN": TINY.train_triples, "TEST": TINY.triples - TINY.train_triples}
    assert len(set(t["window"].to_pylist())) == TINY.windows
    assert len(read_jsonl(tiny / BENCHMARK_FILE)) == TINY.propositions


def test_evidence_per_proposition_is_spread_as_specified(moderate: Path) -> None:
    entries = read_jsonl(moderate / BENCHMARK_FILE)
    counts = np.array(_evidence_per_entry(moderate, entries))
    assert counts.min() >= 1  # every proposition has evidence
    assert 6 <= np.median(counts) <= 9  # median ~7
    assert 0.85 * 128 <= counts.mean() <= 1.15 * 128  # mean ~128
    assert 1_500 <= counts.max() <= MODERATE.evidence_max  # a heavy tail up to ~4k
    stats = orjson.loads((moderate / STATS_FILE).read_bytes())
    assert stats["evidence_actual"]["mean"] == pytest.approx(counts.mean())
    assert stats["evidence_actual"]["median"] == np.median(counts)


def test_bundles_are_well_formed_for_the_evaluator(tiny: Path) -> None:
    entries = read_jsonl(tiny / BENCHMARK_FILE)
    check_entries(entries)  # unique ids, 0/1 labels, every field the service query needs
    bundles: dict[str, list[dict[str, object]]] = {}
    for e in entries:
        bundles.setdefault(str(e["bundle_id"]), []).append(e)
        query = entry_query(e)
        # Normalised predicates: the service reads them as given instead of parsing them as text.
        assert is_normalised(query["predicate"]), query["predicate"]
        assert e["split"] in ("dev", "test") and str(e["id"]).startswith(str(e["bundle_id"]))
    t = read_triples(tiny / TRIPLES_DIR, columns=["window", "subj", "obj", "predicate", "sentence_id"]).to_pylist()
    said: dict[tuple[int, str, str], set[str]] = {}
    sentences = set()
    for r in t:
        said.setdefault((r["window"], *sorted((r["subj"], r["obj"]))), set()).add(r["predicate"])
        sentences.add(r["sentence_id"])
    sizes = Counter(len(b) for b in bundles.values())
    assert set(sizes) <= {2, 3} and sizes[3] >= 0.9 * len(bundles)  # a positive and its (at most 2) negatives
    for members in bundles.values():
        positive, *negatives = members
        assert positive["label"] == 1 and all(n["label"] == 0 for n in negatives)
        shared = ("subj", "obj", "subj_type", "obj_type", "window", "date", "exclude_sentence_ids")
        assert all(n[k] == positive[k] for n in negatives for k in shared)
        assert set(positive["exclude_sentence_ids"]) <= sentences  # type: ignore[arg-type]
        stated = said[(int(positive["window"]), *sorted((str(positive["subj"]), str(positive["obj"]))))]
        assert positive["predicate"] in stated
        # Negatives are real predicates of the corpus that the window never states about the pair.
        assert all(n["predicate"] not in stated for n in negatives)
        assert len({n["predicate"] for n in negatives}) == len(negatives)


def test_evaluation_period_is_not_in_the_training_part(tiny: Path) -> None:
    t = read_triples(tiny / TRIPLES_DIR, columns=["split", "window", "date", "triple_id", "article_id"])
    train = t.filter(pc.equal(t["split"], "TRAIN"))
    test = t.filter(pc.equal(t["split"], "TEST"))
    assert pc.max(train["date"]).as_py() < pc.min(test["date"]).as_py()
    assert pc.max(train["window"]).as_py() < pc.min(test["window"]).as_py()
    assert not set(train["article_id"].to_pylist()) & set(test["article_id"].to_pylist())
    stats = orjson.loads((tiny / STATS_FILE).read_bytes())
    assert pc.min(test["date"]).as_py() == dt.date.fromisoformat(stats["eval_from"])
    test_windows = set(test["window"].to_pylist())
    entries = read_jsonl(tiny / BENCHMARK_FILE)
    assert {int(e["window"]) for e in entries} <= test_windows  # type: ignore[call-overload]
    # dev comes before test in time.
    dev = [int(e["window"]) for e in entries if e["split"] == "dev"]  # type: ignore[call-overload]
    test_split = [int(e["window"]) for e in entries if e["split"] == "test"]  # type: ignore[call-overload]
    assert dev and test_split and max(dev) < min(test_split)


def test_the_engine_finds_the_planted_evidence(tiny: Path, tiny_served: tuple[Path, str]) -> None:
    """Index the TEST period, build TRAIN graphs, judge every proposition: the evidence counts the engine sees
    are the planted ones (capped by its max_evidence), and positives beat their negatives far more often than not."""
    from graph_builder.graphs.graphset import GraphSet
    from retrieval.factory import open_store
    from service.engine import HypothesisInput, Options, ScoringEngine

    graphs, url = tiny_served
    store = open_store(url)
    engine = ScoringEngine(GraphSet.load(graphs), store)
    entries = read_jsonl(tiny / BENCHMARK_FILE)
    answers = engine.judge([HypothesisInput(**{k: v for k, v in entry_query(e).items()
                                               if k != "exclude_sentence_ids"},
                                            exclude_sentence_ids=tuple(entry_query(e)["exclude_sentence_ids"]))
                            for e in entries], Options("binc", top_k=0))
    store.close()
    expected = [min(n, engine.max_evidence) for n in _evidence_per_entry(tiny, entries)]
    assert [a.evidence_count for a in answers] == expected
    wins = losses = 0
    for i, e in enumerate(entries):
        if e["label"] == 1:
            for j in range(i + 1, len(entries)):
                if entries[j]["bundle_id"] != e["bundle_id"]:
                    break
                wins += answers[i].score > answers[j].score
                losses += answers[i].score < answers[j].score
    assert wins > 2 * losses  # the labels carry signal a graph can find (ties: both 1.0 or both 0)


def test_score_check_allows_the_apis_six_significant_digits_and_nothing_more() -> None:
    """Entry dev-00002-1 of `--scale small` under binc: the engine scores 0.05032953123251597, the API sends
    0.0503295 (6 significant digits). Rounded to 6 decimals (0.05033) the two looked different."""
    ids = ["dev-00002-1", "big", "tiny", "zero", "one"]
    in_process = [0.05032953123251597, 0.123456789, 1.23456789e-7, 0.0, 1.0]
    served = {"dev-00002-1": 0.0503295, "big": 0.123457, "tiny": 1.23457e-7, "zero": 0.0, "one": 1.0}
    http = {entry: {"binc": score} for entry, score in served.items()}
    assert score_mismatches("binc", ids, in_process, http) == []
    # One unit off in the 6th significant digit is a real difference between the two paths.
    http["dev-00002-1"] = {"binc": 0.0503296}
    http["tiny"] = {"binc": 0.0}  # what 6 decimals would make of it: the API keeps it
    assert score_mismatches("binc", ids, in_process, http) == [
        {"id": "dev-00002-1", "scorer": "binc", "in_process": 0.05032953123251597, "as_served": 0.0503295,
         "http": 0.0503296},
        {"id": "tiny", "scorer": "binc", "in_process": 1.23456789e-7, "as_served": 1.23457e-7, "http": 0.0}]


def test_scores_over_the_api_are_the_engines_to_six_significant_digits(tiny: Path,
                                                                      tiny_served: tuple[Path, str]) -> None:
    """The benchmark's check on the real API: a batch as `egqa evaluate` sends it, against the in-process engine
    with the service's settings; scores below 0.1 (where decimals and significant digits part) are among them."""
    from fastapi.testclient import TestClient

    from service.app import create_app, open_engine
    from service.engine import HypothesisInput, Options
    from service.settings import Settings

    graphs, url = tiny_served
    settings = Settings(graphs_dir=graphs, store_url=url, lm=False)
    entries = read_jsonl(tiny / BENCHMARK_FILE)[:300]
    ids = [str(e["id"]) for e in entries]
    engine = open_engine(settings)
    inputs = [HypothesisInput(**{k: v for k, v in entry_query(e).items() if k != "exclude_sentence_ids"},
                              exclude_sentence_ids=tuple(entry_query(e)["exclude_sentence_ids"])) for e in entries]
    with TestClient(create_app(settings)) as client:
        for scorer in ("binc", "weeds", "exact"):
            response = client.post("/v1/query/batch", json={"queries": [entry_query(e) for e in entries],
                                                            "scorer": scorer, "top_k": 0})
            assert response.status_code == 200
            http = {entry: {scorer: r["score"]} for entry, r in zip(ids, response.json()["results"], strict=True)}
            scores = [a.score for a in engine.judge(inputs, Options(scorer, top_k=0))]
            assert score_mismatches(scorer, ids, scores, http) == [], scorer
            if scorer != "exact":
                assert sum(0.0 < s < 0.1 and round(s, 6) != http[i][scorer] for i, s in zip(ids, scores)) > 0
    engine.store.close()


def test_command_line_presets_and_overrides() -> None:
    args, spec = parse_args(["--scale", "small", "--propositions", "900", "--top-k", "50"])
    assert (spec.triples, spec.train_triples, spec.propositions) == (200_000, 120_000, 900)
    assert args.top_k == 50 and args.measures == "binc,cos,lin,weeds"  # what the five scorers read
    args, spec = parse_args(["--scorers", "binc,global"])
    assert spec == CorpusSpec() and args.measures == "binc,binc_clean,global"


def test_ratio_sets_the_http_rate_and_cpu_per_proposition_against_the_in_process_baseline() -> None:
    http = Stage("evaluate-x", "evaluate over HTTP: x", seconds=10.0, cpu=2.0, peak_mb=None, rate=100.0,
                 unit="props/s", baseline="inprocess-x", server_cpu=3.0)
    base = Stage("inprocess-x", "in-process judge: x", seconds=5.0, cpu=4.0, peak_mb=None, rate=200.0)
    # 100 / 200 props/s; CPU per proposition 4 s / 1,000 in-process against (2 + 3) s / 1,000 over HTTP.
    assert ratio(http, [http, base]) == "0.50x in-process (CPU 0.80x)"
    assert ratio(http, [http]) == ""  # the baseline is not measured (yet): no ratio
    assert ratio(base, [http, base]) == ""  # the baseline has none of its own


def test_resume_reuses_only_stages_of_the_same_corpus_settings_and_code_whose_outputs_exist(tmp_path: Path) -> None:
    work = ["--scale", "small", "--work", str(tmp_path)]
    args, spec = parse_args(work)
    first = Bench(args, spec)
    first.add(Stage("index-sqlite", "index (sqlite)", 2.0, 1.5, 300.0, 40_000.0, "triples/s"))
    first.add(Stage("graph", "graph build", 3.0, 2.5, 310.0, 40_000.0, "triples/s"))
    store = tmp_path / "evidence.db"
    store.touch()
    resumed_args, _ = parse_args([*work, "--resume"])
    assert resumed_args.keep  # --resume keeps corpus, graphs and store for the next resume
    again = Bench(resumed_args, spec)
    assert again.reuse("index-sqlite", store)
    assert (again.stages[0].seconds, again.stages[0].note) == (2.0, "from the previous run")
    assert not again.reuse("graph", tmp_path / "graphs" / "manifest.json")  # its graphs are gone: build again
    assert not again.reuse("serve-sqlite")  # never finished
    assert orjson.loads((tmp_path / "results.json").read_bytes())["stages"][0]["key"] == "index-sqlite"
    store.unlink()
    assert not Bench(resumed_args, spec).finished("index-sqlite", store)
    other_args, _ = parse_args([*work, "--resume", "--top-k", "5"])
    assert Bench(other_args, spec).previous == {}  # other pruning, other figures
    assert Bench(resumed_args, spec, code="8da79e7").previous == {}  # --before's stages are not this code's
    assert Bench(resumed_args, replace(spec, seed=spec.seed + 1)).previous == {}
