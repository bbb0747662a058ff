"""The containers' commands run here with the containers' environment: builder, then `egqa serve`.

Only the paths that Docker would mount (corpus, graphs, store) and the published port are swapped for
local ones; Elasticsearch is swapped for an SQLite store (the store contract suite covers both backends).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from service.demo import free_port
from tests.deploy.deployfiles import REPO, compose, image_environment, service_environment

# Three verbs over the same company pairs: enough shared argument pairs for one graph past the cutoffs.
PAIRS = [("Microsoft", "GitHub"), ("Amazon", "Zappos"), ("Microsoft", "LinkedIn"), ("Amazon", "Twitch"),
         ("IBM", "Red Hat"), ("Disney", "Pixar"), ("Google", "YouTube")]
VERBS = ["acquired", "bought", "owns"]


def container_env(service: str, local: dict[str, str], secrets: Path) -> dict[str, str]:
    """The environment a compose service's container gets, with `local` replacing mounted paths and the compose
    secrets (/run/secrets/NAME) read from files of the same names in `secrets`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EGQA_")}
    env.update({k: v for k, v in image_environment().items() if k != "PATH"})
    env.update({k: v for k, v in service_environment(service).items() if v is not None})
    assert set(local) <= set(env), "only variables the container sets are replaced"
    env.update(local)
    for name in list(compose()["secrets"]):
        (secrets / name).write_text(f"{name}-{'s' * 24}\n")
    return {k: v.replace("/run/secrets/", f"{secrets}/") if v.startswith("/run/secrets/") else v
            for k, v in env.items()}




def _get(url: str) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | str]:
    """Run the builder's command on a tiny corpus with the builder's environment."""
    root = tmp_path_factory.mktemp("deploy")
    corpus = root / "corpus"
    corpus.mkdir()
    with (corpus / "news.jsonl").open("w", encoding="utf-8") as out:
        for i, (a, b) in enumerate(PAIRS):
            text = " ".join(f"{a} {verb} {b}." for verb in VERBS)
            out.write(json.dumps({"id": f"n{i}", "date": f"2020-01-0{i + 1}", "title": "News", "text": text}) + "\n")
    local = {"EGQA_GRAPHS_DIR": str(root / "data" / "graphs"), "EGQA_STORE_URL": f"sqlite:///{root}/evidence.db"}
    command = compose()["services"]["builder"]["command"]
    mounts = {"/app/": f"{REPO}/", "/corpus": str(corpus), "/data/": f"{root}/data/"}
    for container_path, host_path in mounts.items():
        command = [arg.replace(container_path, host_path, 1) if arg.startswith(container_path) else arg
                   for arg in command]
    result = subprocess.run(command, env=container_env("builder", local, root), cwd=root, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    shards = [pq.read_table(p, columns=["window"]) for p in (root / "data" / "work" / "triples").glob("part-*.parquet")]
    windows = {w for shard in shards for w in shard.column("window").to_pylist()}
    graphs = json.loads((root / "data" / "graphs" / "manifest.json").read_text())
    return {"root": root, **local, "triples": sum(s.num_rows for s in shards), "windows": len(windows),
            "manifest": graphs}


@pytest.fixture(scope="module")
def served(built: dict[str, object]) -> Iterator[dict[str, object]]:
    """Start the egqa service's command with its environment; yield its URL and environment."""
    port = free_port()
    env = container_env("egqa", {"EGQA_GRAPHS_DIR": str(built["EGQA_GRAPHS_DIR"]),
                                 "EGQA_STORE_URL": str(built["EGQA_STORE_URL"]), "EGQA_PORT": str(port)},
                        Path(str(built["root"])))
    log = Path(str(built["root"])) / "serve.log"
    with log.open("w") as sink:
        process = subprocess.Popen(compose()["services"]["egqa"]["command"], env=env, cwd=built["root"],
                                   stdout=sink, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if _get(f"{url}/health")[0] == 200:
                    break
            except (urllib.error.URLError, OSError):
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"egqa serve did not answer /health (exit {process.poll()}):\n{log.read_text()[-4000:]}")
            time.sleep(0.5)
        yield {"url": url, "env": env, "process": process}
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def test_builder_command_writes_graphs_and_evidence_where_the_service_reads_them(built: dict[str, object]) -> None:
    assert built["triples"] == 3 * len(PAIRS)
    assert built["manifest"]["totals"]["graphs"] >= 1  # type: ignore[index]
    assert Path(str(built["EGQA_STORE_URL"]).removeprefix("sqlite:///")).is_file()


def test_service_command_answers_health_on_all_interfaces(served: dict[str, object]) -> None:
    status, body = _get(f"{served['url']}/health")
    assert (status, body["status"]) == (200, "ok")
    assert served["env"]["EGQA_HOST"] == "0.0.0.0"  # type: ignore[index]


def test_service_is_ready_with_the_built_graphs_and_store(served: dict[str, object],
                                                           built: dict[str, object]) -> None:
    status, body = _get(f"{served['url']}/ready")
    assert status == 200, body
    assert body["graphs"] == built["manifest"]["totals"]["graphs"]  # type: ignore[index]
    assert body["store"] == {"backend": "sqlite", "triples": built["triples"], "windows": built["windows"]}


def test_image_healthcheck_passes_on_the_live_service_and_fails_without_it(served: dict[str, object]) -> None:
    probe = [sys.executable, str(REPO / "scripts" / "healthcheck.py")]
    env = dict(served["env"])  # type: ignore[call-overload]
    assert subprocess.run(probe, env=env, capture_output=True, timeout=30).returncode == 0
    env["EGQA_PORT"] = str(free_port())
    down = subprocess.run(probe, env=env, capture_output=True, text=True, timeout=30)
    assert down.returncode == 1
    assert "unhealthy" in down.stderr
