"""A small graph set over real verbs for the LM tests (our own triples), and a guard for the `lm` extra."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_builder.errors import ModelMissingError
from graph_builder.graphs.build import BuildParams, build_graphs

from tests.graph_builder.graph_fixtures import triple_rows, write_triples

# People and companies: buying goes with owning (so buy -> own has an edge); visiting is unrelated.
LM_SPECS: list[tuple[str, str, str, str, str]] = (
    [(f"p{i}", "person", "(buy.1,buy.2)", f"c{i}", "organization") for i in range(12)]
    + [(f"p{i}", "person", "(own.1,own.2)", f"c{i}", "organization") for i in range(12)]
    + [(f"p{i}", "person", "(sell.1,sell.2)", f"c{i}", "organization") for i in range(6)]
    + [(f"p{i}", "person", "(visit.1,visit.2)", f"c{i}", "organization") for i in range(6, 12)]
    + [(f"p{i}", "person", "(criticise.1,criticise.2)", f"c{i}", "organization") for i in range(3, 9)]
    # A same-type graph: companies acquire and merge with companies.
    + [(f"c{i}", "organization", "(acquire.1,acquire.2)", f"d{i}", "organization") for i in range(8)]
    + [(f"c{i}", "organization", "(merge.1,merge.with.2)", f"d{i}", "organization") for i in range(4, 12)]
)


def encoder_or_skip():  # type: ignore[no-untyped-def]
    """The packaged sentence model; skip with the install hint when the `lm` extra is absent."""
    from graph_builder.embeddings import load_encoder

    try:
        return load_encoder()
    except ModelMissingError as exc:
        pytest.skip(f"`lm` extra absent: {exc}")


def build_lm_graphs(root: Path) -> Path:
    """Write LM_SPECS as triples and build their graphs (cutoffs 2/2) into root/graphs."""
    write_triples(root / "triples", LM_SPECS)
    build_graphs(root / "triples", root / "graphs",
                 BuildParams(min_predicates_per_pair=2, min_pairs_per_predicate=2), progress=False)
    return root / "graphs"


__all__ = ["LM_SPECS", "build_lm_graphs", "encoder_or_skip", "triple_rows"]
