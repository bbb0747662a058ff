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


def test_help_lists_the_commands_in_pipeline_order_and_names_no_python_types() -> None:
    from typer.testing import CliRunner

    from service.cli import app

    shown = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    listed = [line.split()[0] for line in shown.output.split("Commands:")[1].splitlines() if line.strip()]
    commands = [name for name in listed if name in {"demo", "extract", "graph", "index", "serve", "benchmark",
                                                     "evaluate", "compare"}]
    assert commands == ["demo", "extract", "graph", "index", "serve", "benchmark", "evaluate", "compare"]
    for command in (["extract"], ["graph", "build"], ["graph", "eval-levyholt"], ["benchmark", "build"], ["ingest"]):
        text = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "200"}).output
        for python_type in ("<str>", "<int>", "<float>", "list[", "Path>", "range>"):
            assert python_type not in text, f"egqa {' '.join(command)} --help shows {python_type}"
    assert "CORPUS <path>..." in CliRunner().invoke(app, ["extract", "--help"], env={"COLUMNS": "200"}).output


def test_a_format_outside_its_choices_is_exit_2_naming_them(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from service.cli import app

    bad = CliRunner().invoke(app, ["graph", "import", str(tmp_path), "--out", str(tmp_path / "g"), "--format", "x"])
    assert bad.exit_code == 2
    assert "Invalid value for '--format'" in bad.output and "'hosseini', 'berant'" in bad.output
    bad = CliRunner().invoke(app, ["graph", "eval-levyholt", str(tmp_path), str(tmp_path), "--format", "x"])
    assert bad.exit_code == 2
    assert "'rels', 's', 'both'" in bad.output


def test_an_invalid_value_met_by_a_command_is_one_readable_line_and_exit_2() -> None:
    import typer
    from pydantic import BaseModel, Field
    from typer.testing import CliRunner

    from service.cli import _PipelineGroup

    class Limits(BaseModel):
        port: int = Field(le=65535)

    app = typer.Typer(cls=_PipelineGroup)

    @app.command()
    def check(port: int) -> None:
        Limits(port=port)

    @app.command()
    def other() -> None:
        """A second command, so that `check` is a subcommand as egqa's are."""

    result = CliRunner().invoke(app, ["check", "70000"])
    assert result.exit_code == 2
    assert result.stderr == "error: port: Input should be less than or equal to 65535\n"


def test_entities_run_again_start_from_the_types_extraction_gave(tmp_path: Path) -> None:
    # The pass gives a surname typed an organisation its person's type; run again, it must read the types as
    # extracted, not its own output, and say the same.
    import orjson

    from graph_builder.triples import DATASET_MANIFEST, write_shard
    from tests.graph_builder.test_entities import _row

    folder = tmp_path / "triples"
    folder.mkdir()
    (folder / DATASET_MANIFEST).write_bytes(orjson.dumps({"format": "egqa.triples.v1"}))
    rows = []
    for k, article in enumerate("abc"):
        rows += [_row(2 * k, article, "mario draghi", "Mario Draghi", "person", "ecb", "ECB", "organization"),
                 _row(2 * k + 1, article, "draghi", "Draghi", "organization", "rate", "rates")]
    write_shard(rows, folder / "part-00000.parquet")
    first, second = egqa("entities", str(folder)), egqa("entities", str(folder))
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert "surname, retyped 3" in first.stdout
    assert first.stdout.splitlines()[1:] == second.stdout.splitlines()[1:]
