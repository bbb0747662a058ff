"""Serving needs none of the optional extras; a command that needs one names it when it is missing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from graph_builder.errors import ModelMissingError
from graph_builder.extras import require

OPTIONAL = ("dask", "distributed", "matplotlib", "sklearn", "nltk", "elasticsearch")


def test_the_service_and_the_cli_load_without_any_extra() -> None:
    probe = ("import sys, service.app, service.cli, retrieval.backends.sqlite, graph_builder.pipeline, "
             "graph_builder.graphs.build, benchmark.build, benchmark.audit, benchmark.metrics, benchmark.levyholt; "
             f"print(sorted(m for m in {OPTIONAL!r} if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_a_missing_extra_is_named_with_its_install_command() -> None:
    with pytest.raises(ModelMissingError, match=r"precision-recall figures needs the `benchmark` extra "
                                                r"\(matplotlib, scikit-learn and nltk\): pip install 'egqa\[benchmark\]'"):
        require("benchmark", "no_such_module_for_egqa", "precision-recall figures")
    assert require("cluster", "json", "anything").__name__ == "json"


def test_an_elasticsearch_store_without_its_client_names_the_extra() -> None:
    """With the client hidden, opening an http:// store says which extra to install; SQLite still opens."""
    probe = ("import sys; sys.modules['elasticsearch'] = None\n"
             "from retrieval.factory import open_store\n"
             "open_store('sqlite:///:memory:').close()\n"
             "try:\n    open_store('http://127.0.0.1:9200')\n"
             "except Exception as exc:\n    print(type(exc).__name__, exc)\n")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == ("ModelMissingError the Elasticsearch evidence store needs the `elasticsearch` extra "
                                  "(the Elasticsearch client): pip install 'egqa[elasticsearch]', or bash "
                                  "scripts/install.sh")
