"""The Dockerfile and its build context, and the image's install path run here as the image runs it."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from service.settings import Settings
from tests.deploy.deployfiles import DOCKERIGNORE, REPO, Instruction, dockerfile, final_stage, image_environment

INSTALL = "scripts/install.sh"


def _stage(name: str) -> list[Instruction]:
    return [i for i in dockerfile() if i.stage == name]


def _stages() -> list[str]:
    """Return the stage names in build order."""
    return [i.stage for i in dockerfile() if i.keyword == "FROM"]


def _parent(stage: str) -> str:
    """Return what a stage is built FROM (an image, or an earlier stage's name)."""
    return next(i.args.split()[0] for i in _stage(stage) if i.keyword == "FROM")


def _base_images() -> list[str]:
    """Return the base image of each stage built on an image (not on another stage), ARG defaults substituted."""
    args = dict(i.args.split("=", 1) for i in dockerfile() if i.keyword == "ARG" and "=" in i.args)
    return [re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), m.group(0)), _parent(stage))
            for stage in _stages() if _parent(stage) not in _stages()]


def _lineage(stage: str) -> list[str]:
    """Return the stages `stage` is built on, oldest first, ending with itself."""
    parent = _parent(stage)
    return [*(_lineage(parent) if parent in _stages() else []), stage]


def _steps(run: str) -> set[str]:
    return set(re.search(r"EGQA_STEPS=(\w+)", run).group(1).split(","))  # type: ignore[union-attr]


def _install_runs(stage: str) -> list[str]:
    return [i.args for i in _stage(stage) if i.keyword == "RUN" and INSTALL in i.args]


def _copies(stage: str) -> list[list[str]]:
    """Return the stage's COPY instructions without --flags: [sources..., destination]."""
    return [[a for a in shlex.split(i.args) if not a.startswith("--")]
            for i in _stage(stage) if i.keyword == "COPY"]


def test_image_is_multi_stage_on_python_311_slim() -> None:
    bases = _base_images()
    assert len(bases) >= 2
    # One base for all stages: the runtime copies a venv whose interpreter links must resolve.
    assert len(set(bases)) == 1 and bases[0].startswith("python:3.11-slim"), bases
    assert ["/opt/egqa", "/opt/egqa"] in _copies(final_stage())


def test_every_stage_installs_through_the_one_install_script() -> None:
    steps = set()
    for stage in _stages():
        runs = _install_runs(stage)
        assert len(runs) == 1, f"stage {stage} must run {INSTALL} once"
        steps.update(_steps(runs[0]))
    # Between them the stages run every step `make install` runs: the system packages and egqa (its
    # dependencies first, in a layer of their own).
    assert steps == {"system", "deps", "python"}


def test_dependencies_install_from_the_packaging_files_alone_before_the_code_is_copied() -> None:
    # The slow layer (spaCy, SciPy, the model) must not depend on the code, or every edit reinstalls it.
    deps = next(s for s in _stages() if _steps(_install_runs(s)[0]) == {"deps"})
    keywords = [i.keyword for i in _stage(deps)]
    assert keywords.index("COPY") < keywords.index("RUN", keywords.index("COPY"))
    assert sorted(src for copy in _copies(deps) for src in copy[:-1]) == ["pyproject.toml", INSTALL]
    python = next(s for s in _stages() if _steps(_install_runs(s)[0]) == {"python"})
    assert deps in _lineage(python), "egqa installs into the venv that holds its dependencies"


def test_final_stage_runs_as_a_non_root_user() -> None:
    final = _stage(final_stage())
    users = [i.args for i in final if i.keyword == "USER"]
    assert users and users[-1] not in {"root", "0", "0:0"}
    keywords = [i.keyword for i in final]
    assert keywords.index("USER") < keywords.index("CMD")
    assert any(i.keyword == "RUN" and "useradd" in i.args and users[-1] in i.args for i in final)


def test_healthcheck_probes_health_with_a_script_the_image_contains() -> None:
    checks = [i.args for i in _stage(final_stage()) if i.keyword == "HEALTHCHECK"]
    assert len(checks) == 1
    command = json.loads(checks[0][checks[0].index("CMD") + 3:].strip())
    assert command == ["python", "/app/scripts/healthcheck.py"]
    assert any("scripts/healthcheck.py" in c[:-1] and c[-1] == "/app/scripts/" for c in _copies(final_stage()))


def test_default_command_serves_on_all_interfaces() -> None:
    cmd = [i.args for i in _stage(final_stage()) if i.keyword == "CMD"]
    assert json.loads(cmd[-1]) == ["egqa", "serve"]
    env = image_environment()
    assert env["EGQA_HOST"] == "0.0.0.0"
    settings_vars = {f"EGQA_{name.upper()}" for name in Settings.model_fields}
    assert {k for k in env if k.startswith("EGQA_")} <= settings_vars


def _glob_regex(pattern: str) -> str:
    """Translate a .dockerignore glob (Go filepath.Match plus `**`) into a regular expression."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return out


def _ignored(path: str, patterns: list[str]) -> bool:
    """Whether .dockerignore excludes `path` (Docker's rules: last match wins, `!` re-includes)."""
    parts = path.split("/")
    excluded = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!").strip("/")
        candidates = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
        if any(re.fullmatch(_glob_regex(pattern), c) for c in candidates):
            excluded = not negate
    return excluded


def test_dockerignore_keeps_what_the_image_copies_and_drops_history_secrets_and_outputs() -> None:
    patterns = [p.strip() for p in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
                if p.strip() and not p.startswith("#")]
    sources = {src for stage in {i.stage for i in dockerfile()} for copy in _copies(stage)
               if not any(i.keyword == "COPY" and "--from" in i.args and copy[0] in i.args for i in _stage(stage))
               for src in copy[:-1]}
    for source in sorted(sources):
        files = [source] if (REPO / source).is_file() else \
            [str(p.relative_to(REPO)) for p in (REPO / source).rglob("*.py")]
        assert files, f"COPY {source}: nothing there"
        assert not [f for f in files if _ignored(f, patterns)], f"COPY {source} is excluded by .dockerignore"
    for unwanted in (".git/HEAD", ".env", "out/demo/graphs/manifest.json", "service/__pycache__/app.cpython-311.pyc",
                     "tests/conftest.py"):
        assert _ignored(unwanted, patterns), unwanted


def test_image_install_path_gives_a_working_egqa(tmp_path: Path) -> None:
    """Replay the stages that install egqa here: their COPY lines into a folder, their install RUNs into a venv."""
    build = next(s for s in _stages() if "python" in _steps(_install_runs(s)[0]))
    context = tmp_path / "src"
    for *sources, destination in (copy for stage in _lineage(build) for copy in _copies(stage)):
        for source in sources:
            target = context / destination if destination not in {"./", "."} else context / source
            target.parent.mkdir(parents=True, exist_ok=True)
            if (REPO / source).is_dir():
                shutil.copytree(REPO / source, target, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(REPO / source, target if destination not in {"./", "."} else context / source)
    venv = tmp_path / "venv"
    # System site-packages hold the dependencies already; pip installs egqa itself into the venv.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    for run in (_install_runs(stage)[0] for stage in _lineage(build)):
        assignments = dict(a.split("=", 1) for a in shlex.split(run.split("bash")[0]))
        assignments["PYTHON"] = str(venv / "bin" / "python")
        env = {**os.environ, **assignments, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        result = subprocess.run(["bash", INSTALL], cwd=context, env=env, capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "installing Debian packages" not in result.stdout  # the pip steps leave apt alone

    # Outside any source tree, as in the image: every package comes from the venv, every command loads.
    image_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the image sets none
    probe = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import benchmark, graph_builder, retrieval, service, retrieval.backends.elasticsearch; "
         "print(*(m.__file__ for m in (benchmark, graph_builder, retrieval, service)), sep='\\n')"],
        cwd=tmp_path, env=image_env, capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert all(line.startswith(str(venv)) for line in probe.stdout.split()), probe.stdout
    cli = subprocess.run([str(venv / "bin" / "egqa"), "--help"], cwd=tmp_path, env=image_env, capture_output=True,
                         text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    for command in ("extract", "graph", "index", "serve"):
        assert re.search(rf"^\s+{command}\s", cli.stdout, re.M), f"egqa {command} missing from the image's CLI"
    editable = list((venv / "lib").glob("python3*/site-packages/__editable__*"))
    assert editable == []  # a regular install: the runtime stage copies the venv without the source tree
