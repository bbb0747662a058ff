"""Where should a score become a "true"? Balanced accuracy of the answer threshold on an evaluation's scores.

    python bench/threshold.py out/ding2014/eval-names-dev/scores.jsonl [--scorer binc_clean+smooth+lm]

Reads the scores `egqa evaluate` wrote and, for each graph threshold (and, for an LM-backoff scorer, each cosine at
which an LM-backoff answer would count as true, which the service never does), prints the balanced accuracy
(the mean of the true-positive and true-negative rates, which a benchmark's share of positives does not move),
both rates and plain accuracy. Choose on dev; read test to confirm.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import orjson
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graph_builder.embeddings import LM_BACKOFF_SCALE  # noqa: E402
from graph_builder.graphs.scorers import LmBackoff  # noqa: E402

GRAPH_THRESHOLDS = (0.001, 0.01, 0.02, 0.05, 0.1, 0.2)
LM_THRESHOLDS = (None, 0.8, 0.7, 0.6, 0.5)


def rates(labels: np.ndarray, said: np.ndarray) -> tuple[float, float, float, float]:
    """Balanced accuracy, true-positive rate, true-negative rate and accuracy of the answers `said`."""
    tpr = float((said & (labels == 1)).sum() / max(1, (labels == 1).sum()))
    tnr = float((~said & (labels == 0)).sum() / max(1, (labels == 0).sum()))
    return (tpr + tnr) / 2, tpr, tnr, float((said == (labels == 1)).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scores", type=Path, help="scores.jsonl of `egqa evaluate`")
    parser.add_argument("--scorer", default="binc_clean+smooth+lm")
    args = parser.parse_args()
    rows = [orjson.loads(line) for line in args.scores.read_bytes().splitlines() if line.strip()]
    if not rows or args.scorer not in rows[0]:
        sys.exit(f"{args.scores}: no scores of {args.scorer!r}")
    labels = np.array([r["label"] for r in rows])
    scores = np.array([r[args.scorer] for r in rows], dtype=np.float64)
    lm_scale = args.scorer.endswith(LmBackoff.SUFFIX)
    # An LM-backoff score is the cosine times LM_BACKOFF_SCALE: far below any graph score.
    by_graphs = scores >= 1e3 * LM_BACKOFF_SCALE if lm_scale else scores > 0
    cosine = np.where(by_graphs, 0.0, scores / LM_BACKOFF_SCALE) if lm_scale else np.zeros_like(scores)
    table = Table(title=f"{args.scorer}: {len(rows)} propositions, {labels.mean():.1%} true")
    for column in ("graph threshold", "LM cosine", "balanced acc.", "TPR", "TNR", "accuracy"):
        table.add_column(column, justify="right")
    for t_graph in GRAPH_THRESHOLDS:
        for t_lm in LM_THRESHOLDS if lm_scale else (None,):
            said = (by_graphs & (scores >= t_graph)) | (cosine >= (t_lm if t_lm is not None else np.inf))
            b, tpr, tnr, acc = rates(labels, said)
            table.add_row(f"{t_graph:g}", "never" if t_lm is None else f"{t_lm:g}", f"{b:.3f}", f"{tpr:.3f}",
                          f"{tnr:.3f}", f"{acc:.3f}")
    Console().print(table)


if __name__ == "__main__":
    main()
