"""Imports flow one way (graph_builder <- retrieval <- service) and HTTP lives in the service alone."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Which top-level packages each package may import from.
ALLOWED = {"graph_builder": {"graph_builder"}, "retrieval": {"graph_builder", "retrieval"},
           "benchmark": {"graph_builder", "benchmark"}}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_packages_import_only_what_lies_below_them() -> None:
    ours = {"graph_builder", "retrieval", "service", "benchmark"}
    wrong = []
    for package, allowed in ALLOWED.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            for name in sorted((_imports(path) & ours) - allowed):
                wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert wrong == []


def test_the_domain_errors_know_no_http_status() -> None:
    from graph_builder import errors

    text = Path(errors.__file__).read_text(encoding="utf-8")
    assert "status" not in text.replace("statuses (service/errors.py)", "")
    from service.errors import HTTP_STATUS, status_of

    class Unlisted(errors.NotFoundError):
        pass

    assert status_of(Unlisted("x")) == 404 and HTTP_STATUS[errors.StoreError] == 503
