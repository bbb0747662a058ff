"""Domain errors of egqa, shared by every layer; the service maps their kinds to HTTP statuses (service/errors.py)."""

from __future__ import annotations


class EgqaError(Exception):
    """Base class of every error egqa raises on purpose; its message tells the user what to fix."""

    code: str = "bad_request"


class InputError(EgqaError):
    """Input the user gave (a file, a date, a parameter) cannot be used."""

    code = "invalid_input"


class CorpusError(InputError):
    """A corpus file cannot be read at all (missing, unknown format)."""

    code = "corpus_error"


class ModelMissingError(EgqaError):
    """A language resource (spaCy pipeline, WordNet) is not installed."""

    code = "model_missing"


class ArtefactError(EgqaError):
    """A graph or dataset artefact is missing, corrupted, or of a version we cannot read."""

    code = "artefact_error"


class NotFoundError(EgqaError):
    """A thing the user asked for (window, predicate, type pair) does not exist."""

    code = "not_found"


class StoreError(EgqaError):
    """An evidence store cannot be reached or answered badly."""

    code = "store_unavailable"


class StoreCorrupted(StoreError):
    """An evidence store's data cannot be read: its file is damaged or is not a store."""

    code = "store_corrupted"
