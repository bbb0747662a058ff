"""Optional parts of egqa, installed as extras, and the error that names the extra when one is missing.

`benchmark` (matplotlib, scikit-learn, nltk): precision-recall figures, the hypothesis-only audit and the
WordNet benchmark builder. `cluster` (dask.distributed): extraction and graph counting on a Dask cluster.
`elasticsearch`: the Elasticsearch evidence store's client. `lm`: the sentence-embedding scorers
(graph_builder.embeddings says what it needs). Serving from SQLite needs none of them; `bash scripts/install.sh`
installs them all by default.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from graph_builder.errors import ModelMissingError

EXTRAS = {"benchmark": "matplotlib, scikit-learn and nltk", "cluster": "dask.distributed",
          "elasticsearch": "the Elasticsearch client"}


def require(extra: str, module: str, purpose: str) -> ModuleType:
    """Import `module` of an optional extra, or raise ModelMissingError naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ModelMissingError(f"{purpose} needs the `{extra}` extra ({EXTRAS[extra]}): pip install "
                                f"'egqa[{extra}]', or bash scripts/install.sh") from None
