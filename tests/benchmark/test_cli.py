"""`egqa benchmark build` and `egqa benchmark audit` end to end on synthetic triples and real WordNet."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from benchmark.wordnet import DEBIAN_WORDNET_DIR, INSTALL_HINT
from graph_builder.triples import shard_path, write_shard
from service.cli import app
from tests.benchmark.test_audit import _bundles
from tests.benchmark.test_build import synthetic_rows


@pytest.mark.skipif(not (DEBIAN_WORDNET_DIR / "data.verb").is_file(),
                    reason=f"WordNet 3.0 is not installed: {INSTALL_HINT}")
def test_build_prints_the_stats_table(tmp_path: Path) -> None:
    triples = tmp_path / "triples"
    triples.mkdir()
    write_shard(synthetic_rows(), shard_path(triples, "000"))
    result = CliRunner().invoke(app, [
        "benchmark", "build", str(triples), "--out", str(tmp_path / "bench"), "--min-pair-articles", "2",
        "--min-pair-predicates", "2", "--min-predicate-pairs", "2", "--bucket-scale", "100",
        "--senses", "all", "--negative-filter", "none", "--wordnet-cache", str(tmp_path / "wn")])
    assert result.exit_code == 0, result.output
    stats = orjson.loads((tmp_path / "bench" / "stats.json").read_bytes())
    assert stats["thresholds"]["min_pair_articles"] == 2
    assert stats["thresholds"]["bucket_bounds"][0] == 6000
    (total,) = [line.split() for line in result.output.splitlines() if line.startswith("all ")]
    assert total[-3:] == [f"{stats['positives']:,}", f"{stats['negatives']:,}", f"{stats['xi']:.3f}"]
    assert (tmp_path / "bench" / "dev.jsonl").is_file() and (tmp_path / "bench" / "test.jsonl").is_file()
    # The hypothesis-only audit follows, for both splits, recorded beside the files.
    audit = orjson.loads((tmp_path / "bench" / "audit.json").read_bytes())
    assert set(audit) == {"dev", "test"}
    assert "hypothesis-only audit" in result.output
    assert [line.split()[0] for line in result.output.splitlines() if line.startswith(("dev ", "test "))][-2:] \
        == ["dev", "test"]


def test_audit_reports_auc_norm(tmp_path: Path) -> None:
    path = tmp_path / "planted.jsonl"
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in _bundles(60, planted=True)))
    result = CliRunner().invoke(app, ["benchmark", "audit", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.output)["auc_norm"] > 0.95
    missing = CliRunner().invoke(app, ["benchmark", "audit", str(tmp_path / "none.jsonl")])
    assert missing.exit_code == 2
    assert missing.stderr.startswith("error: ") and "none.jsonl" in missing.stderr


def test_audit_of_a_folder_prints_dev_and_test(tmp_path: Path) -> None:
    for split, planted in (("dev", True), ("test", False)):
        (tmp_path / f"{split}.jsonl").write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in _bundles(60, planted)))
    result = CliRunner().invoke(app, ["benchmark", "audit", str(tmp_path), "--resamples", "100"])
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split() for line in result.output.splitlines() if line.startswith(("dev", "test"))}
    assert set(rows) == {"dev", "test"}
    assert float(rows["dev"][1]) > 95.0 > float(rows["test"][1])
    assert (tmp_path / "audit.json").is_file()
