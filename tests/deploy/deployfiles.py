"""Readers for the deployment files the tests check: docker-compose.yml, the Dockerfile, the configuration table."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
COMPOSE_FILE = REPO / "docker-compose.yml"
DOCKERFILE = REPO / "Dockerfile"
DOCKERIGNORE = REPO / ".dockerignore"
# The one table of configuration variables (docs/configuration.md, linked from README.md).
CONFIGURATION_DOC = REPO / "docs" / "configuration.md"

# ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?err}: the interpolations Compose performs.
_INTERPOLATION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}")


def compose_text() -> str:
    """Return docker-compose.yml as written."""
    return COMPOSE_FILE.read_text(encoding="utf-8")


def compose() -> dict[str, Any]:
    """Return docker-compose.yml parsed (anchors and merge keys resolved, variables not interpolated)."""
    data = yaml.safe_load(compose_text())
    assert isinstance(data, dict)
    return data


def interpolations(text: str) -> dict[str, str | None]:
    """Return every `${VAR...}` the text interpolates and its `:-` default (None if it has none)."""
    found: dict[str, str | None] = {}
    for name, op, default in _INTERPOLATION.findall(text):
        found[name] = default if op in (":-", "-") else found.get(name)
    return found


def interpolate(value: str) -> str:
    """Apply Compose's interpolation with no variables set: every `${VAR:-x}` becomes x."""
    return _INTERPOLATION.sub(lambda m: m.group(3) if m.group(2) in (":-", "-") else "", value)


def service_environment(service: str) -> dict[str, str | None]:
    """Return a compose service's environment; None marks a variable passed through from the caller."""
    env = compose()["services"][service].get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, None) for item in env)
    return {k: None if v is None else interpolate(str(v)) for k, v in env.items()}


@dataclass(frozen=True)
class Instruction:
    """One Dockerfile instruction, continuation lines joined."""

    stage: str
    keyword: str
    args: str


def dockerfile() -> list[Instruction]:
    """Return the Dockerfile's instructions in order, each tagged with its stage name."""
    logical: list[str] = []
    pending = ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # a comment inside a continued instruction
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    out: list[Instruction] = []
    stage = ""
    for line in logical:
        keyword, _, args = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            parts = args.split()
            stage = parts[parts.index("AS") + 1] if "AS" in parts else parts[0]
        out.append(Instruction(stage, keyword, args.strip()))
    return out


def final_stage() -> str:
    """Return the name of the stage `docker build` produces (the last FROM)."""
    return [i for i in dockerfile() if i.keyword == "FROM"][-1].stage


def image_environment() -> dict[str, str]:
    """Return the ENV the final image sets (PATH's `$PATH` expansion left out)."""
    env: dict[str, str] = {}
    for instruction in dockerfile():
        if instruction.stage == final_stage() and instruction.keyword == "ENV":
            for pair in shlex.split(instruction.args):
                key, _, value = pair.partition("=")
                env[key] = value
    return env


def readme_config_table() -> dict[str, list[str]]:
    """Return the configuration table of docs/configuration.md: variable name -> its other cells."""
    text = CONFIGURATION_DOC.read_text(encoding="utf-8")
    start = text.index("| variable | default |")
    rows: dict[str, list[str]] = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0].strip("`")] = cells[1:]
    return rows
