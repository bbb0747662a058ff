"""Extraction and graph build on a Dask cluster of real processes: one `dask scheduler` and two `dask worker`
processes on localhost over tcp, each worker with its own working folder. The datasets and graph artefacts must be
the same as a single-process run's.

The workers import this repository (PYTHONPATH), load the spaCy pipeline themselves and write their shards into
the output folder, which they share with the client here because all run on one machine (docs/cluster.md).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow.parquet as pq
import pytest

REPO = Path(__file__).resolve().parents[2]
NEWS = REPO / "tests" / "data" / "web" / "news.jsonl"  # 20 made-up articles (tests/data/web/README.md)
REAL_ARTICLES = 400  # the first articles of reut2-000.sgm for the real-data variant (seconds to extract)
STARTUP_SECONDS = 120


@dataclass(frozen=True)
class Cluster:
    """A running scheduler and its workers' process ids and folders."""

    address: str
    worker_dirs: tuple[Path, ...]


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """End each started process group (a worker's nanny and its worker process), politely then by force."""
    def signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
        try:
            os.killpg(proc.pid, sig)  # each was started as the leader of its own session
        except ProcessLookupError:
            pass

    for proc in procs:
        signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for proc in procs:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        signal_group(proc, signal.SIGKILL)  # whatever of the group is left, a nanny's worker included
        proc.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Start `dask scheduler` and two single-threaded `dask worker` processes; stop them all afterwards."""
    pytest.importorskip("distributed", reason="the cluster extra is not installed: pip install 'egqa[cluster]'")
    from distributed import Client

    root = tmp_path_factory.mktemp("cluster")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    scheduler_file = root / "scheduler.json"
    procs: list[subprocess.Popen[bytes]] = []

    def start(args: list[str], cwd: Path, log: str) -> None:
        with open(root / log, "wb") as out:
            procs.append(subprocess.Popen([sys.executable, "-m", "dask", *args], cwd=cwd, env=env, stdout=out,
                                          stderr=subprocess.STDOUT, start_new_session=True))

    try:
        start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
               "--scheduler-file", str(scheduler_file)], root, "scheduler.log")
        deadline = time.monotonic() + STARTUP_SECONDS
        while not scheduler_file.exists() and procs[0].poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert scheduler_file.exists(), f"the scheduler did not start: {(root / 'scheduler.log').read_text()}"
        time.sleep(0.2)  # the file is written whole, but give a reader no chance of a half-written one
        address = orjson.loads(scheduler_file.read_bytes())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        dirs = []
        for n in range(2):
            home = root / f"worker-{n}"
            (home / "local").mkdir(parents=True)
            start(["worker", address, "--nworkers", "1", "--nthreads", "1", "--name", f"egqa-{n}",
                   "--local-directory", str(home / "local"), "--no-dashboard"], home, f"worker-{n}.log")
            dirs.append(home)
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=STARTUP_SECONDS)
        yield Cluster(address, tuple(dirs))
    finally:
        _stop(procs)


def _parsers_loaded() -> list[str]:
    """Run on a worker: the spaCy pipelines this process has loaded for extraction."""
    from graph_builder import pipeline

    return sorted(pipeline._PARSERS)


def _module_file() -> str:
    """Run on a worker: where its `graph_builder` package was imported from."""
    import graph_builder

    return str(Path(graph_builder.__file__).resolve())


def _sorted_rows(path: Path) -> list[dict[str, Any]]:
    """Return a Parquet file's rows sorted, so that files are compared by content, not row order."""
    rows = pq.read_table(path).to_pylist()
    return sorted(rows, key=lambda r: orjson.dumps(r, default=str, option=orjson.OPT_SORT_KEYS))


def assert_same_dataset(local: Path, dask: Path) -> None:
    """Two triples datasets hold the same shards with the same rows, and the same manifest."""
    names = sorted(p.name for p in local.glob("*.parquet"))
    assert names and names == sorted(p.name for p in dask.glob("*.parquet"))
    for name in names:
        assert pq.read_schema(local / name).equals(pq.read_schema(dask / name)), name
        assert _sorted_rows(local / name) == _sorted_rows(dask / name), name
    assert orjson.loads((local / "manifest.json").read_bytes()) == orjson.loads((dask / "manifest.json").read_bytes())
    reports = [{k: v for k, v in orjson.loads((d / "report.json").read_bytes()).items() if k not in {"out", "seconds"}}
               for d in (local, dask)]
    assert reports[0] == reports[1]


def _without_paths(doc: Any) -> Any:
    """A manifest minus where its input was read from (the one field that names a folder) and the checksums of
    graph manifests that hold it (each of those is compared field by field instead)."""
    if isinstance(doc, dict):
        return {k: _without_paths(v) for k, v in doc.items() if k not in {"triples", "manifest_sha256"}}
    if isinstance(doc, list):
        return [_without_paths(v) for v in doc]
    return doc


def assert_same_graphs(local: Path, dask: Path) -> int:
    """Two graph sets hold the same files, equal arrays and equal manifests; return the edges compared."""
    files = sorted(str(p.relative_to(local)) for p in local.rglob("*") if p.is_file())
    assert files == sorted(str(p.relative_to(dask)) for p in dask.rglob("*") if p.is_file())
    edges = 0
    for name in files:
        a, b = local / name, dask / name
        if name.endswith(".npy"):
            x, y = np.load(a), np.load(b)
            assert x.dtype == y.dtype and np.array_equal(x, y), name
            edges += x.size if name.endswith("data.npy") else 0
        elif name.endswith("manifest.json"):
            assert _without_paths(orjson.loads(a.read_bytes())) == _without_paths(orjson.loads(b.read_bytes())), name
        else:
            assert a.read_bytes() == b.read_bytes(), name
    return edges


def _run_both(corpus: Path, root: Path, cluster: Cluster, shard_size: int, cutoff: int) -> tuple[Path, Path]:
    """Extract and build `corpus` in this process, then with the CLI on the cluster; return both roots."""
    from typer.testing import CliRunner

    from graph_builder.graphs.build import BuildParams, build_graphs
    from graph_builder.pipeline import extract_corpus
    from service.cli import app

    local, dask = root / "local", root / "dask"
    extract_corpus([corpus], local / "triples", workers=1, shard_size=shard_size)
    build_graphs(local / "triples", local / "graphs",
                 BuildParams(min_predicates_per_pair=cutoff, min_pairs_per_predicate=cutoff), progress=False)
    runner = CliRunner()
    extracted = runner.invoke(app, ["extract", str(corpus), "--out", str(dask / "triples"),
                                    "--shard-size", str(shard_size), "--scheduler", cluster.address])
    assert extracted.exit_code == 0, extracted.output
    built = runner.invoke(app, ["graph", "build", str(dask / "triples"), "--out", str(dask / "graphs"),
                                "--min-predicates-per-pair", str(cutoff), "--min-pairs-per-predicate", str(cutoff),
                                "--scheduler", cluster.address])
    assert built.exit_code == 0, built.output
    return local, dask


def test_workers_are_separate_processes_in_their_own_folders(cluster: Cluster) -> None:
    from distributed import Client

    with Client(cluster.address, timeout="30s") as client:
        info = client.scheduler_info()["workers"]
        pids = client.run(os.getpid)
        cwds = client.run(os.getcwd)
        modules = client.run(_module_file)
    assert sorted(w["name"] for w in info.values()) == ["egqa-0", "egqa-1"]
    assert all(w["nthreads"] == 1 for w in info.values())
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
    assert sorted(Path(c).resolve() for c in cwds.values()) == sorted(d.resolve() for d in cluster.worker_dirs)
    scratch = sorted(Path(w["local_directory"]).resolve() for w in info.values())
    assert [s.is_relative_to(d.resolve() / "local") for s, d in zip(scratch, cluster.worker_dirs)] == [True, True]
    assert set(modules.values()) == {str(REPO / "graph_builder" / "__init__.py")}


def test_cluster_of_processes_gives_the_single_process_datasets_and_graphs(cluster: Cluster, tmp_path: Path) -> None:
    from distributed import Client

    # 20 articles in 4 shards of 5: both workers get some; cutoffs at 1 because the corpus is tiny.
    local, dask = _run_both(NEWS, tmp_path, cluster, shard_size=5, cutoff=1)
    with Client(cluster.address, timeout="30s") as client:
        loaded = client.run(_parsers_loaded)
    assert len(loaded) == 2 and all(models for models in loaded.values()), loaded  # both workers parsed a shard
    assert len(list((dask / "triples").glob("part-*.parquet"))) == 4
    assert_same_dataset(local / "triples", dask / "triples")
    assert pq.read_metadata(next((dask / "triples").glob("part-*.parquet"))).num_rows > 0
    assert assert_same_graphs(local / "graphs", dask / "graphs") > 0


def test_cluster_of_processes_on_real_reuters_articles(cluster: Cluster, reuters_dir: Path, tmp_path: Path) -> None:
    from graph_builder.corpus import ReadReport, read_file

    articles = list(read_file(reuters_dir / "reut2-000.sgm", ReadReport()))[:REAL_ARTICLES]
    corpus = tmp_path / "reuters.jsonl"  # written outside the repository: the corpus is third-party data
    corpus.write_bytes(b"\n".join(orjson.dumps({"id": a.id, "date": a.date.isoformat(), "title": a.title,
                                                "text": a.text, "split": a.split}) for a in articles))
    local, dask = _run_both(corpus, tmp_path, cluster, shard_size=50, cutoff=1)  # 8 shards
    assert_same_dataset(local / "triples", dask / "triples")
    assert orjson.loads((dask / "triples" / "report.json").read_bytes())["triples"] > 500
    assert assert_same_graphs(local / "graphs", dask / "graphs") > 1000  # stored values over every measure


def test_relative_paths_name_the_clients_folders(cluster: Cluster, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from service.cli import app

    # Workers run in folders of their own: a relative --out must still mean the client's folder to them.
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    extracted = runner.invoke(app, ["extract", str(NEWS), "--out", "triples", "--shard-size", "10",
                                    "--scheduler", cluster.address])
    assert extracted.exit_code == 0, extracted.output
    assert sorted(p.name for p in (tmp_path / "triples").glob("part-*.parquet")) == ["part-news-0000.parquet",
                                                                                   "part-news-0001.parquet"]
    assert not [p for d in cluster.worker_dirs for p in d.rglob("*.parquet")]
    built = runner.invoke(app, ["graph", "build", "triples", "--out", "graphs", "--min-predicates-per-pair", "1",
                                "--min-pairs-per-predicate", "1", "--scheduler", cluster.address])
    assert built.exit_code == 0, built.output
    assert orjson.loads((tmp_path / "graphs" / "manifest.json").read_bytes())["totals"]["nodes"] > 0
