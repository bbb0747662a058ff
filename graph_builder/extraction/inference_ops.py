"""CPU ops and layer forwards for running a trained spaCy pipeline, faster where its token vectors spend most.

The recogniser's own token vectors and the tagger/parser's shared ones are thinc layers: hash embeddings, then
window convolutions whose Maxout layers are one matrix product each followed by a max over 3 pieces. thinc's
CPU ops compute the product with blis and the max in a loop that also records which piece won, for training.
`InferenceOps` computes the product with numpy's BLAS (OpenBLAS in numpy's wheels: its kernels ran these shapes in
0.6 of blis's CPU time here) and the max as an element-wise maximum of the pieces, skipping the record a forward
pass never reads. Same weights, same layers: on 5,152 news sentences the entities and parses were identical
(docs/extraction.md, "Speed of the sentence path"). It cannot train: a backward pass through Maxout raises.

`use_inference_layers` also gives the Maxout and LayerNorm layers forward passes that compute the same numbers with
less memory traffic: a Maxout's weight rows ordered piece by piece (its product then holds each piece as a block of
columns, so the max reads contiguous blocks), and a LayerNorm that takes the mean and centres its input once, where
thinc's takes each twice (numpy's variance takes its own). Each output element is the same dot product, sum or
quotient in the same order as thinc's, so the outputs are equal bit for bit (tests/graph_builder/
test_extraction_speed.py checks them on random inputs and on the loaded pipeline's layers).

It also gives each hash-embedding chain (a MultiHashEmbed without static vectors: the sm pipeline's shared token
vectors and its recogniser's own) `embed_forward`: the first Maxout's product is linear in the concatenated
embeddings, and each embedding is a sum of table rows, so each table is multiplied by its block of the weights once
(`_mixed_tables`) and a token's product is the sum of the precomputed rows its keys pick. That is the same sum in
another order: the vectors differ from thinc's by about 1e-6, and the tags, parses, entities and triples were the
same on every slice checked (docs/extraction.md, "Speed of the sentence path").
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from spacy.language import Language
from thinc.api import Model, NumpyOps, Ragged
from thinc.layers.chain import forward as thinc_chain_forward
from thinc.layers.layernorm import forward as thinc_layernorm_forward
from thinc.layers.maxout import forward as thinc_maxout_forward


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
    """Give every layer of the pipeline's trained components InferenceOps, and its Maxout and LayerNorm layers and
    hash-embedding chains the inference forwards (`use_inference_layers`); return how many layers took the ops."""
    layers = use_ops(nlp, InferenceOps())
    use_inference_layers(nlp)
    return layers


def cpu_layers(nlp: Language) -> Iterator[Model]:
    """Every layer of the pipeline's trained components that runs on thinc's CPU ops (any other backend, a GPU's,
    is left alone)."""
    for _, component in nlp.pipeline:
        model = getattr(component, "model", None)
        if model is None or not hasattr(model, "walk"):
            continue
        yield from (layer for layer in model.walk() if isinstance(layer.ops, NumpyOps))


def use_ops(nlp: Language, ops: NumpyOps) -> int:
    """Give every CPU layer of the pipeline's trained components `ops`; return how many layers took them."""
    layers = list(cpu_layers(nlp))
    for layer in layers:
        layer.ops = ops
    return len(layers)


def _refuse_backprop(_: Any) -> Any:
    raise RuntimeError("inference layers run trained pipelines only: load the pipeline with spaCy to train")


def maxout_forward(model: Model, X: Any, is_train: bool) -> tuple[Any, Callable[[Any], Any]]:
    """thinc's Maxout forward (X W^T + b, the max over the pieces) with W's rows taken piece by piece: the pieces of
    the product are column blocks, each element the same dot product as thinc's."""
    W, b = _by_piece(model)
    Y = np.matmul(X, W.T)
    Y += b
    return _max_of_pieces(Y, model.get_dim("nO"), model.get_dim("nP")), _refuse_backprop


def _max_of_pieces(Y: Any, n_out: int, pieces: int) -> Any:
    """The element-wise max of a product's pieces, held piece by piece as column blocks of width `n_out`."""
    best = np.array(Y[:, :n_out])
    for piece in range(1, pieces):
        np.maximum(best, Y[:, piece * n_out:(piece + 1) * n_out], out=best)
    return best


def _remember(store: dict[int, Any], array: Any, value: Any) -> None:
    """store[id(array)] = value, the entry dropped when the array is freed (so its id cannot be taken by another)."""
    if id(array) not in store:
        weakref.finalize(array, store.pop, id(array), None)
    store[id(array)] = value


# Each Maxout layer's weights and bias by piece, by the id of its weights array (thinc's layers cannot be weakly
# referenced, their arrays can: an entry goes when its array does), beside a reference to the bias they came from.
_BY_PIECE: dict[int, tuple[weakref.ref[Any], Any, Any]] = {}


def _by_piece(model: Model) -> tuple[Any, Any]:
    """The layer's weights (nO, nP, nI) and bias (nO, nP) as (nP * nO, nI) and (nP * nO,), made once per layer
    (the parameters of a trained pipeline do not change); made again if the parameters are replaced."""
    W, b = model.get_param("W"), model.get_param("b")
    memo = _BY_PIECE.get(id(W))
    if memo is None or memo[0]() is not b:
        n_out, pieces, n_in = model.get_dim("nO"), model.get_dim("nP"), model.get_dim("nI")
        by_piece = W.reshape(n_out, pieces, n_in).transpose(1, 0, 2).reshape(-1, n_in)
        bias = b.reshape(n_out, pieces).T.reshape(-1)
        memo = (weakref.ref(b), np.ascontiguousarray(by_piece), np.ascontiguousarray(bias))
        _remember(_BY_PIECE, W, memo)
    return memo[1], memo[2]


def layernorm_forward(model: Model, X: Any, is_train: bool) -> tuple[Any, Callable[[Any], Any]]:
    """thinc's LayerNorm forward ((X - mean) / sqrt(var + 1e-8) * G + b) with X centred once: numpy's mean and var
    are these same sums and quotients."""
    width = X.shape[1]
    mu = np.add.reduce(X, axis=1, keepdims=True)
    mu /= width
    centred = X - mu
    var = np.add.reduce(centred * centred, axis=1, keepdims=True)
    var /= width
    var += 1e-08
    centred *= var ** (-1.0 / 2.0)
    centred *= model.get_param("G")
    centred += model.get_param("b")
    return centred, _refuse_backprop


def embed_forward(model: Model, docs: Any, is_train: bool) -> tuple[Any, Callable[[Any], Any]]:
    """A MultiHashEmbed's forward (hash embeddings of each attribute, concatenated, then a Maxout with a LayerNorm),
    with the Maxout's product taken through each embedding table ahead of time: a token's product is the sum of the
    precomputed rows its hashed keys pick (`_mixed_tables`), 24 row additions instead of a 576 x 288 product. The
    sums run in another order than thinc's product, so the numbers can differ in the last bits (about 1e-6); the
    tags, parses and entities were identical on the slices in docs/extraction.md."""
    extract, to_ragged, _, mix, to_list = model.layers
    ragged = to_ragged(extract(docs, False)[0], False)[0]
    ids = ragged.dataXd
    maxout = next(layer for layer in mix.walk() if layer.name == "maxout")
    layernorm = next(layer for layer in mix.walk() if layer.name == "layernorm")
    tables, bias = _mixed_tables(model, maxout)
    Y = None
    for index, seed, table in tables:
        column = model.ops.as_contig(ids[index], dtype="uint64")
        rows = model.ops.gather_add(table, model.ops.hash(column, seed) % table.shape[0])
        if Y is None:
            Y = rows
        else:
            Y += rows
    Y += bias
    normed = layernorm_forward(layernorm, _max_of_pieces(Y, maxout.get_dim("nO"), maxout.get_dim("nP")), False)[0]
    return to_list(Ragged(normed, ragged.lengths), False)[0], _refuse_backprop


# Each MultiHashEmbed's tables through its Maxout, by the id of the Maxout's weights array (an entry goes when the
# array does), beside references to the embedding tables they came from.
_MIXED: dict[int, tuple[list[weakref.ref[Any]], list[tuple[Any, int, Any]]]] = {}


def _mixed_tables(model: Model, maxout: Model) -> tuple[list[tuple[Any, int, Any]], Any]:
    """For each embedding of a MultiHashEmbed chain, its column index, hash seed and table times its block of the
    Maxout's weights (by piece, as in `maxout_forward`); and the Maxout's bias by piece."""
    W, bias = _by_piece(maxout)
    embeddings = [embedding.layers for embedding in model.layers[2].layers[0].layers]  # (ints-getitem, hashembed)
    sources = [hashembed.get_param("E") for _, hashembed in embeddings]
    memo = _MIXED.get(id(maxout.get_param("W")))
    if memo is None or any(ref() is not E for ref, E in zip(memo[0], sources, strict=True)):
        tables, start = [], 0
        for (getitem, hashembed), E in zip(embeddings, sources, strict=True):
            product = np.ascontiguousarray(E @ W[:, start:start + E.shape[1]].T)
            tables.append((getitem.attrs["index"], hashembed.attrs["seed"], product))
            start += E.shape[1]
        memo = ([weakref.ref(E) for E in sources], tables)
        _remember(_MIXED, maxout.get_param("W"), memo)
    return memo[1], bias


def is_hash_embed(layer: Model) -> bool:
    """Whether a layer is the chain a MultiHashEmbed builds without static vectors: features, hash embeddings
    concatenated, a Maxout with a LayerNorm (and an inference no-op dropout), per-document arrays."""
    parts = [part.name for part in layer.layers]
    if len(parts) != 5 or parts[:2] != ["extract_features", "list2ragged"] or parts[4] != "ragged2list" \
            or parts[3] != "with_array(maxout>>layernorm>>dropout)":
        return False
    concat = layer.layers[2].layers[0] if layer.layers[2].layers else None
    return concat is not None and concat.name.startswith("ints-getitem>>hashembed") and all(
        [part.name for part in embedding.layers] == ["ints-getitem", "hashembed"] for embedding in concat.layers)


Forward = Callable[[Model, Any, bool], tuple[Any, Callable[[Any], Any]]]
# thinc's own forward passes of the same layers, to put back (bench/extraction_profile.py --thinc-ops).
THINC_FORWARDS: dict[str, Forward] = {
    "maxout": thinc_maxout_forward,
    "layernorm": thinc_layernorm_forward,
    "hash embeddings": thinc_chain_forward,
}
INFERENCE_FORWARDS: dict[str, Forward] = {
    "maxout": maxout_forward,
    "layernorm": layernorm_forward,
    "hash embeddings": embed_forward,
}


def use_inference_layers(nlp: Language) -> int:
    """Give the pipeline's Maxout and LayerNorm layers and its MultiHashEmbed chains (`is_hash_embed`) the forward
    passes above; return how many layers took one."""
    return use_forwards(nlp, INFERENCE_FORWARDS)


def use_forwards(nlp: Language, forwards: dict[str, Forward]) -> int:
    """Give each CPU layer of the pipeline's trained components that `forwards` names (by thinc's layer name, or
    "hash embeddings" for a MultiHashEmbed chain) that forward pass; return how many layers took one."""
    changed = 0
    for layer in cpu_layers(nlp):
        forward = forwards.get("hash embeddings" if is_hash_embed(layer) else layer.name)
        if forward is not None:
            layer._func = forward
            changed += 1
    return changed
