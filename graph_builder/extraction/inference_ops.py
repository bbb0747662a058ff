"""thinc's CPU ops for running a trained spaCy pipeline, faster at the two steps its token vectors spend most on.

The recogniser's own token vectors and the tagger/parser's shared ones are thinc layers: hash embeddings, then
window convolutions whose Maxout layers are one matrix product each followed by a max over 3 pieces. thinc's
CPU ops compute the product with blis and the max in a loop that also records which piece won, for training.
`InferenceOps` computes the product with numpy's BLAS (OpenBLAS in numpy's wheels: its kernels ran these shapes in
0.6 of blis's CPU time here) and the max as an element-wise maximum of the pieces, skipping the record a forward
pass never reads. Same weights, same layers: on 5,152 news sentences the entities and parses were identical
(docs/extraction.md, "Speed of the sentence path"). It cannot train: a backward pass through Maxout raises.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from spacy.language import Language
from thinc.api import NumpyOps


class InferenceOps(NumpyOps):
    """NumpyOps with a BLAS matrix product and a maxout for forward passes only (no argmax kept)."""

    def gemm(self, x: Any, y: Any, out: Any = None, trans1: bool = False, trans2: bool = False) -> Any:
        """x @ y (either transposed) by numpy's BLAS, into `out` when given."""
        a = x.T if trans1 else x
        b = y.T if trans2 else y
        if out is None:
            return np.matmul(a, b)
        np.matmul(a, b, out=out)
        return out

    def maxout(self, X: Any) -> tuple[Any, Any]:
        """The max over the last axis (the pieces) of a (rows, outputs, pieces) array; the winners are not kept."""
        best = np.array(X[..., 0])  # a contiguous copy: the pieces are strided views
        for piece in range(1, X.shape[-1]):
            np.maximum(best, X[..., piece], out=best)
        return best, None

    def backprop_maxout(self, dY: Any, which: Any, P: int) -> Any:
        """Refuse: these ops run trained pipelines and keep nothing a backward pass needs."""
        raise RuntimeError("InferenceOps runs trained pipelines only: use thinc's NumpyOps to train")


def use_inference_ops(nlp: Language) -> int:
    """Give every layer of the pipeline's trained components InferenceOps; return how many layers took them."""
    return use_ops(nlp, InferenceOps())


def use_ops(nlp: Language, ops: NumpyOps) -> int:
    """Give every CPU layer of the pipeline's trained components `ops`; return how many layers took them."""
    layers = 0
    for _, component in nlp.pipeline:
        model = getattr(component, "model", None)
        if model is None or not hasattr(model, "walk"):
            continue
        for layer in model.walk():
            if isinstance(layer.ops, NumpyOps):  # leave any other backend (a GPU's) alone
                layer.ops = ops
                layers += 1
    return layers
