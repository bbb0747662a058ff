"""bench/edge_read.py: the blind read of added and kept nodes' best edges, checked against brute force and hand values."""

from __future__ import annotations

import csv
from pathlib import Path

import orjson
import pytest

from graph_builder.errors import InputError
from graph_builder.graphs.build import BuildParams, build_graphs
from graph_builder.graphs.graphset import GraphSet
from graph_builder.triples import write_shard
from tests.bench.scripts import BENCH, load_script
from tests.graph_builder.graph_fixtures import random_specs, triple_rows

edge_read = load_script("edge_read")


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[GraphSet, GraphSet]:
    root = tmp_path_factory.mktemp("edge-read")
    (root / "triples").mkdir()
    write_shard(triple_rows(random_specs(5, n=3000)), root / "triples" / "part-00000.parquet")
    params = {"top_k": None, "min_score": 0.0, "measures": ("binc",), "workers": 1}
    build_graphs(root / "triples", root / "strict", BuildParams(**params), progress=False)
    build_graphs(root / "triples", root / "loose", BuildParams(min_pairs_per_predicate=1, **params), progress=False)
    return GraphSet.load(root / "loose"), GraphSet.load(root / "strict")


def test_groups_and_best_edges_match_brute_force(two_builds: tuple[GraphSet, GraphSet]) -> None:
    new, old = two_builds
    edges = edge_read.draw(new, old, "binc", 5, seed=3)
    assert sorted(e.group for e in edges) == ["added"] * 5 + ["kept"] * 5
    for e in edges:
        graph = new.graphs[e.graph]
        assert (e.premise in old.graphs[e.graph].nodes if e.graph in old.graphs else False) == (e.group == "kept")
        m = graph.csr("binc").tocoo()
        row = graph.index[e.premise]
        out = [(float(v), int(c)) for r, c, v in zip(m.row, m.col, m.data) if r == row and c != r and v > 0]
        top = max(v for v, _ in out)
        best = min((c for v, c in out if v == top), key=lambda c: (-int(graph.counts[c]), graph.nodes[c]))
        assert (e.score, e.hypothesis) == (pytest.approx(top), graph.nodes[best])
        assert e.reverse == pytest.approx(float(graph.csr("binc")[best, row]))
    assert edge_read.draw(new, old, "binc", 5, seed=3) == edges  # reproducible
    with pytest.raises(InputError, match="added nodes"):
        edge_read.draw(new, old, "binc", 10**6, seed=3)


def test_newcombe_reproduces_the_published_example() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, table II, 56/70 against 48/80, method 10: 0.0524 to 0.3339.
    lo, hi = edge_read.newcombe(56, 70, 48, 80)
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)


def test_judge_scores_a_filled_sample_by_hand(two_builds: tuple[GraphSet, GraphSet], tmp_path: Path) -> None:
    new, old = two_builds
    edges = edge_read.draw(new, old, "binc", 4, seed=1)
    edge_read.write_sample(edges, tmp_path, {"measure": "binc"})
    with (tmp_path / "sample.tsv").open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    assert rows[0] == ["item", "graph", "premise", "hypothesis", "plausible"]
    assert all("added" not in r and "kept" not in r for r in rows)  # blind: the group is only in the key
    groups = {r["item"]: r["group"] for r in map(orjson.loads, (tmp_path / "key.jsonl").read_bytes().splitlines())}
    seen = {"added": 0, "kept": 0}
    for r in rows[1:]:  # one added edge plausible of 4, three kept of 4
        g = groups[r[0]]
        r[4] = "y" if (g == "added" and seen[g] == 0) or (g == "kept" and seen[g] < 3) else "n"
        seen[g] += 1
    with (tmp_path / "sample.tsv").open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, delimiter="\t", lineterminator="\n").writerows(rows)
    result = edge_read.judge(tmp_path)
    assert result["added"]["plausible"] == 1 and result["kept"]["plausible"] == 3
    assert result["added"]["ci"] == pytest.approx((0.0456, 0.6994), abs=1e-4)  # Wilson 1/4 by hand
    diff = result["added_minus_kept"]
    assert diff["difference"] == -0.5
    assert diff["ci"] == pytest.approx((-0.7891, 0.1355), abs=1e-4)  # from the two Wilson intervals by hand
    rows[1][4] = "maybe"
    with (tmp_path / "sample.tsv").open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, delimiter="\t", lineterminator="\n").writerows(rows)
    with pytest.raises(InputError, match="y or n"):
        edge_read.judge(tmp_path)


def test_an_unjudged_group_is_an_input_error(two_builds: tuple[GraphSet, GraphSet], tmp_path: Path) -> None:
    new, old = two_builds
    edge_read.write_sample(edge_read.draw(new, old, "binc", 2, seed=1), tmp_path, {})
    with pytest.raises(InputError, match="every group"):
        edge_read.judge(tmp_path)


@pytest.mark.parametrize(("read", "added", "kept", "judged"),
                         [("edges-v7-mpp2-seed7", 11, 20, 100), ("edges-v7-headlines-seed11", 13, 18, 100),
                          ("edges-v10-headlines-seed21-annotator1", 14, 18, 100),
                          ("edges-v10-headlines-seed21-annotator2", 15, 20, 100),
                          ("edges-v12-wholecorpus-seed41-annotator1", 41, 67, 300),
                          ("edges-v12-wholecorpus-seed41-annotator2", 40, 66, 300),
                          ("untyped-x23-evidence-seed4242", 8, 18, 40),
                          ("halftyped-vs-untyped-x23-evidence-seed4242", 8, 9, 40)])
def test_the_recorded_reads_give_the_documented_figures(read: str, added: int, kept: int, judged: int) -> None:
    result = edge_read.judge(BENCH / "data" / "edge_reads" / read)
    assert (result["added"]["plausible"], result["added"]["judged"]) == (added, judged)
    assert (result["kept"]["plausible"], result["kept"]["judged"]) == (kept, judged)


@pytest.mark.parametrize(("read", "difference", "ci"),
                         [("edges-v12-wholecorpus-seed41-annotator1", 3, (-4, 10)),
                          ("edges-v12-wholecorpus-seed41-annotator2", 4, (-3, 11))])
def test_the_recorded_reads_at_equal_support(read: str, difference: int, ci: tuple[int, int]) -> None:
    equal = edge_read.judge(BENCH / "data" / "edge_reads" / read)["added_minus_kept_equal_support"]
    assert round(100 * equal["difference"]) == difference
    assert tuple(round(100 * x) for x in equal["ci"]) == ci


@pytest.mark.parametrize(("count", "band"), [(1, "1-3"), (3, "1-3"), (4, "4-7"), (7, "4-7"), (8, "8-15"),
                                             (15, "8-15"), (16, "16+"), (10**6, "16+")])
def test_support_bands(count: int, band: str) -> None:
    assert edge_read.support_band(count) == band


def test_mantel_haenszel_difference_by_hand() -> None:
    # band a: added 1/2, kept 0/2 -> weight 2*2/4 = 1, difference 0.5; band b: 1/4 and 1/4 -> weight 2, difference 0;
    # band c holds only one group and weighs nothing. (1 * 0.5 + 2 * 0) / 3 = 1/6.
    cells = {"a": {"added": (1, 2), "kept": (0, 2)}, "b": {"added": (1, 4), "kept": (1, 4)}, "c": {"added": (5, 5)}}
    assert edge_read.mantel_haenszel_difference(cells) == pytest.approx(1 / 6)
    # One band: the plain difference of the two shares.
    assert edge_read.mantel_haenszel_difference({"a": {"added": (3, 10), "kept": (1, 4)}}) == pytest.approx(0.05)
    with pytest.raises(InputError, match="both groups"):
        edge_read.mantel_haenszel_difference({"c": {"added": (5, 5)}})


def test_stratified_interval_is_seeded_and_degenerate_without_variance() -> None:
    cells = {"a": {"added": (3, 10), "kept": (5, 12)}, "b": {"added": (2, 9), "kept": (1, 7)}}
    low, high = edge_read.stratified_interval(cells, resamples=500, seed=3)
    assert (low, high) == edge_read.stratified_interval(cells, resamples=500, seed=3)
    assert low < edge_read.mantel_haenszel_difference(cells) < high
    # Every verdict alike within each cell: every resample is the sample itself.
    certain = {"a": {"added": (2, 2), "kept": (0, 3)}}
    assert edge_read.stratified_interval(certain, resamples=50) == pytest.approx((1.0, 1.0))
