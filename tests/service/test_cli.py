"""The command line as a user meets it: its version, and errors as one line with exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from graph_builder import __version__


def egqa(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "service", *args], capture_output=True, text=True, timeout=300)


def test_version() -> None:
    run = egqa("--version")
    assert (run.returncode, run.stdout.strip()) == (0, f"egqa {__version__}")


def test_a_missing_dataset_is_one_line_and_exit_2(tmp_path: Path) -> None:
    run = egqa("entities", str(tmp_path / "nothing"))
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1] == f"error: {tmp_path / 'nothing'}: no triples dataset here (run `egqa extract` first)"
    assert "Traceback" not in run.stderr


def test_a_bad_question_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"text": "Obama won.", "date": "2012-11-07"}\n')
    run = egqa("benchmark", "questions", str(path), "--url", "http://127.0.0.1:9")
    assert run.returncode == 2
    assert run.stderr.strip().endswith("q.jsonl:1: not a question (`expected` must be true or false)")


def test_an_invalid_setting_names_the_variable_not_the_value(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "service", "serve", "--graphs", str(tmp_path)], capture_output=True,
                         text=True, timeout=300, env={"PATH": "/usr/bin:/bin", "EGQA_API_KEY": "tooshort-key",
                                                      "HOME": str(tmp_path)})
    assert run.returncode == 2
    assert "EGQA_API_KEY: api_key must be at least 16 characters" in run.stderr and "tooshort-key" not in run.stderr
