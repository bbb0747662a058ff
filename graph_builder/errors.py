"""Domain errors of egqa, shared by every layer; the service maps them to HTTP in one place."""

from __future__ import annotations


class EgqaError(Exception):
    """Base class of every error egqa raises on purpose; its message tells the user what to fix."""

    status_code: int = 400
    code: str = "bad_request"


class InputError(EgqaError):
    """Input the user gave (a file, a date, a parameter) cannot be used."""

    code = "invalid_input"


class CorpusError(InputError):
    """A corpus file cannot be read at all (missing, unknown format)."""

    code = "corpus_error"


class ModelMissingError(EgqaError):
    """A language resource (spaCy pipeline, WordNet) is not installed."""

    status_code = 503
    code = "model_missing"


class ArtefactError(EgqaError):
    """A graph or dataset artefact is missing, corrupted, or of a version we cannot read."""

    status_code = 500
    code = "artefact_error"


class NotFoundError(EgqaError):
    """A thing the user asked for (window, predicate, type pair) does not exist."""

    status_code = 404
    code = "not_found"


class StoreError(EgqaError):
    """An evidence store cannot be reached or answered badly."""

    status_code = 503
    code = "store_unavailable"
