"""Offline half of egqa: corpus readers, relation extraction, typed triples and entailment graphs."""

__version__ = "0.1.0"
