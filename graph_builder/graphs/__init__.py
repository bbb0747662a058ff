"""Typed entailment graphs: counts, measures, CSR artefacts, importers, loader and LevyHolt evaluation."""
