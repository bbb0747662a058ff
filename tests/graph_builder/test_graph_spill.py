"""Counting spilled to on-disk hash partitions gives the in-memory counts exactly, and builds byte-identical
artefacts whatever the number of partitions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson
import pytest
from typer.testing import CliRunner

from graph_builder.errors import ArtefactError, InputError
from graph_builder.graphs.build import BuildParams, build_graphs, count_triples, spilled_counts
from graph_builder.graphs.counts import CountParams, GraphCounts, count_matrices
from graph_builder.triples import write_shard
from tests.graph_builder.graph_fixtures import naive_generality, random_specs, triple_rows

ROWS = 5000  # of the fixture below; a partition of 100 rows gives 50 partitions and 51 chunks


def write_tangled(folder: Path) -> Path:
    """Random triples with what the clean counts must see through: every 4th sentence read into a second
    predicate with the same argument pair (co-extraction), every 3rd row repeated word for word by a
    story update in a later shard, and negated predicates. Three shards."""
    specs = random_specs(5, n=3000)
    specs = [(s, st, f"NEG__{p}" if k % 9 == 0 else p, o, ot) for k, (s, st, p, o, ot) in enumerate(specs)]
    rows = triple_rows(specs)
    extra = []
    for k in range(0, len(rows), 4):
        r = rows[k]
        extra.append({**r, "triple_id": f"c{k:07d}", "predicate": f"(q{k % 5}.1,q{k % 5}.2)",
                      "negated": False})
    rows += extra
    rows += [{**rows[k], "triple_id": f"r{k:07d}", "article_id": f"update{k}"} for k in range(0, len(rows), 3)]
    assert len(rows) == ROWS
    folder.mkdir(parents=True)
    for i in range(3):
        write_shard(rows[i * 1667:(i + 1) * 1667], folder / f"part-{i:05d}.parquet")
    return folder


@pytest.fixture(scope="module")
def triples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tangled(tmp_path_factory.mktemp("spill") / "triples")


def assert_same_graphs(got: list[GraphCounts], want: list[GraphCounts]) -> None:
    """Same graphs, nodes, published and clean counts (same sparse layout), co-extractions and stats."""
    assert [g.name for g in got] == [g.name for g in want]
    for a, b in zip(got, want):
        assert a.nodes == b.nodes and a.stats == b.stats
        for x, y in ((a.matrix, b.matrix), (a.clean, b.clean)):
            assert x.shape == y.shape
            assert np.array_equal(x.indptr, y.indptr) and np.array_equal(x.indices, y.indices)
            assert np.array_equal(x.data, y.data)
        assert all(np.array_equal(u, v) for u, v in zip(a.co_extracted, b.co_extracted))


@pytest.mark.parametrize("cutoffs", [(3, 3), (2, 2), (1, 1)])
@pytest.mark.parametrize("partition_rows", [100, 1_000, 10_000])
def test_spilled_counts_equal_the_in_memory_counts(triples: Path, tmp_path: Path, cutoffs: tuple[int, int],
                                                   partition_rows: int) -> None:
    counts, n = count_triples(triples, progress=False)
    want = count_matrices(counts, CountParams(*cutoffs))
    assert n == ROWS and len(want) == 6
    assert sum(g.stats["co_extracted_shared_features"] for g in want) > 0  # the fixture tests co-extraction
    assert sum(int(g.matrix.sum()) for g in want) > sum(int(g.clean.sum()) for g in want)  # and repeats
    params = BuildParams(min_predicates_per_pair=cutoffs[0], min_pairs_per_predicate=cutoffs[1],
                         count_partition_rows=partition_rows)
    with spilled_counts(triples, tmp_path, params, progress=False) as (spill, used):
        assert used == ROWS and spill.partitions == -(-ROWS // partition_rows)
        assert spill.nodes == sum(len(g.nodes) for g in want)
        assert_same_graphs(list(spill.graphs()), want)
        # Every predicate's distinct argument pairs, before the cutoffs, whatever the partitions.
        generality = spill.generality()
        assert dict(zip(generality["predicate"].to_pylist(), generality["pairs"].to_pylist())) == \
            naive_generality(triples)
        assert generality["predicate"].to_pylist() == sorted(naive_generality(triples))
    assert list(tmp_path.iterdir()) == []  # the spill folder is gone


def test_spilled_counts_keep_only_the_chosen_splits(tmp_path: Path) -> None:
    rows = triple_rows(random_specs(3, n=2000))
    for k, r in enumerate(rows):
        r["split"] = "TRAIN" if k % 3 else "TEST"
    (tmp_path / "t").mkdir()
    write_shard(rows, tmp_path / "t" / "part-00000.parquet")
    counts, n = count_triples(tmp_path / "t", progress=False, splits=("TRAIN",))
    params = BuildParams(splits=("TRAIN",), count_partition_rows=150)
    with spilled_counts(tmp_path / "t", tmp_path / "work", params, progress=False) as (spill, used):
        assert used == n == 1333
        assert_same_graphs(list(spill.graphs()), count_matrices(counts, CountParams(3, 3)))
        generality = spill.generality()
        assert dict(zip(generality["predicate"].to_pylist(), generality["pairs"].to_pylist())) == \
            naive_generality(tmp_path / "t", splits=("TRAIN",))


def read_tree(root: Path) -> dict[str, bytes]:
    return {str(f.relative_to(root)): f.read_bytes() for f in sorted(root.rglob("*")) if f.is_file()}


def without(manifest: dict[str, object], *keys: str) -> dict[str, object]:
    """A manifest without its checksums of other manifests and the counting partition size."""
    out = dict(manifest)
    params = dict(out.get("parameters", {}))
    params.pop("count_partition_rows", None)
    out["parameters"] = params
    for key in keys:
        out.pop(key, None)
    return out


def test_build_artefacts_are_byte_identical_for_one_or_many_partitions(triples: Path, tmp_path: Path) -> None:
    one = build_graphs(triples, tmp_path / "one", BuildParams(count_partition_rows=10**9), progress=False)
    many = build_graphs(triples, tmp_path / "many", BuildParams(count_partition_rows=100), progress=False)
    assert one.edges == many.edges and one.per_graph == many.per_graph and one.edges["binc_clean"] > 0
    a, b = read_tree(tmp_path / "one"), read_tree(tmp_path / "many")
    assert sorted(a) == sorted(b)
    manifests = [k for k in a if k.endswith("manifest.json")]
    assert len(manifests) == 7  # the set's and six graphs'
    for key in a:
        if key not in manifests:
            assert a[key] == b[key], key  # every node list and measure array, to the byte
    for key in manifests:
        ma, mb = orjson.loads(a[key]), orjson.loads(b[key])
        assert ma["parameters"]["count_partition_rows"] == 10**9 and mb["parameters"]["count_partition_rows"] == 100
        # The set's manifest lists each graph manifest's checksum, which records the parameter too.
        assert without(ma, "graphs") == without(mb, "graphs")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many", "one"]  # no spill folder left


def test_spill_folder_is_removed_when_the_build_fails(triples: Path, tmp_path: Path) -> None:
    with pytest.raises(ArtefactError, match="no predicate survives"):
        build_graphs(triples, tmp_path / "g", BuildParams(min_predicates_per_pair=500, count_partition_rows=700),
                     progress=False)
    assert list(tmp_path.iterdir()) == []


def test_count_partition_rows_is_validated_and_a_cli_option(triples: Path, tmp_path: Path) -> None:
    import typer

    from service.commands import graph as graph_cmd

    with pytest.raises(InputError, match="count_partition_rows"):
        BuildParams(count_partition_rows=0)
    app = typer.Typer()
    app.command()(graph_cmd.build)
    result = CliRunner().invoke(app, [str(triples), "--out", str(tmp_path / "g"), "--count-partition-rows", "500",
                                      "--measures", "binc"])
    assert result.exit_code == 0, result.output
    manifest = orjson.loads((tmp_path / "g" / "manifest.json").read_bytes())
    assert manifest["parameters"]["count_partition_rows"] == 500
