"""The numpy sentence encoder against reference vectors, predicate embeddings as an artefact, and smoothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import orjson
import pytest

import graph_builder.embeddings as embeddings
from graph_builder.embeddings import (
    EMBEDDINGS_DIR,
    SentenceEncoder,
    VectorCache,
    embed_graphset,
    model_dir,
    predicate_words,
)
from graph_builder.errors import ArtefactError, ModelMissingError
from graph_builder.graphs.graphset import GraphSet, Query, Smoothing, is_negated

from tests.graph_builder.lm_fixtures import build_lm_graphs, encoder_or_skip

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def encoder() -> SentenceEncoder:
    return encoder_or_skip()


@pytest.fixture(scope="module")
def lm_graphs(tmp_path_factory: pytest.TempPathFactory, encoder: SentenceEncoder) -> Path:
    graphs = build_lm_graphs(tmp_path_factory.mktemp("lm"))
    embed_graphset(graphs, encoder, progress=False)
    return graphs


@pytest.mark.parametrize(("node", "words"), [
    ("(shop.1,shop.in.2)#person#location", "shop in"),
    ("(use.2,use.in.2)#thing#location", "use in"),
    ("(raise.1,raise.stake.in.2)#organization#organization", "raise stake in"),
    ("NEG__(win.1,win.2)#person#event", "not win"),
    ("want__(buy.1,buy.2)#person#organization", "want buy"),
    ("be find in#metal#fruit", "be find in"),
])
def test_predicate_words(node: str, words: str) -> None:
    assert predicate_words(node) == words


def test_encoder_matches_sentence_transformers(encoder: SentenceEncoder) -> None:
    # Vectors of sentences we wrote, made by sentence-transformers (torch) with the same packaged model:
    # python bench/embeddings.py --write-reference tests/data/minilm_reference.json (in a torch environment).
    reference = orjson.loads((DATA / "minilm_reference.json").read_bytes())
    ours = encoder.encode(reference["sentences"])
    expected = np.asarray(reference["vectors"], dtype=np.float32)
    assert ours.shape == expected.shape == (len(reference["sentences"]), 384)
    assert float(np.abs(ours - expected).max()) < 1e-5


def test_vectors_are_unit_and_independent_of_batching(encoder: SentenceEncoder) -> None:
    texts = ["buy", "The central bank raised interest rates to 7.5 pct from 7 pct on Monday.", "shop in",
             "Shares of the company fell sharply after the takeover bid was withdrawn by its rival."]
    together = encoder.encode(texts, batch_size=4)  # padded to the longest text
    alone = np.vstack([encoder.encode([t]) for t in texts])
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert float(np.abs(together - alone).max()) < 1e-5


def test_paraphrase_is_nearer_than_an_unrelated_sentence(encoder: SentenceEncoder) -> None:
    claim, paraphrase, unrelated = encoder.encode(["The firm bought the shop.", "The company purchased the store.",
                                                   "It rained all week in the mountains."])
    assert float(claim @ paraphrase) > float(claim @ unrelated) + 0.3


def test_cache_embeds_each_text_once(encoder: SentenceEncoder) -> None:
    cache = VectorCache(encoder)
    rows = cache.vectors(["buy", "own", "buy", "buy"])
    assert len(cache) == 2 and np.array_equal(rows[0], rows[2])
    assert np.allclose(rows[1], encoder.encode(["own"])[0], atol=1e-6)


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "MODEL_PACKAGE", "egqa_no_such_model_package")
    with pytest.raises(ModelMissingError, match=r"`lm` extra.*egqa\[lm\]"):
        model_dir()


def test_embeddings_artefact_rows_follow_graph_nodes(lm_graphs: Path, encoder: SentenceEncoder) -> None:
    manifest = orjson.loads((lm_graphs / EMBEDDINGS_DIR / "manifest.json").read_bytes())
    assert manifest["model"] == "sentence-transformers/all-MiniLM-L6-v2" and manifest["encoder"] == "minilm.numpy.v1"
    graphs = GraphSet.load(lm_graphs)
    assert graphs.embeddings is not None
    graph = graphs.graphs["organization#person"]
    rows = np.asarray(graphs.embeddings.vectors[graph.name])
    assert rows.dtype == np.float32 and rows.shape == (len(graph.nodes), 384)
    expected = encoder.encode([predicate_words(n) for n in graph.nodes])
    assert float(np.abs(rows - expected).max()) < 1e-5
    assert not list((lm_graphs / EMBEDDINGS_DIR).rglob("*.pkl"))


def test_corrupted_or_stale_embeddings_are_refused(lm_graphs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "graphs"
    shutil.copytree(lm_graphs, copy)
    vectors = copy / EMBEDDINGS_DIR / "organization#person" / "vectors.npy"
    data = bytearray(vectors.read_bytes())
    data[-1] ^= 0xFF
    vectors.write_bytes(bytes(data))
    with pytest.raises(ArtefactError, match="checksum mismatch"):
        GraphSet.load(copy)
    # Embeddings of other graphs (here: another build's) must not be read against these nodes.
    other = build_lm_graphs(tmp_path / "other")
    shutil.rmtree(copy / EMBEDDINGS_DIR)
    shutil.copytree(lm_graphs / EMBEDDINGS_DIR, other / EMBEDDINGS_DIR)
    manifest = orjson.loads((other / "manifest.json").read_bytes())
    manifest["graphs"]["organization#person"]["manifest_sha256"] = "0" * 64
    with pytest.raises(ArtefactError, match="built for other graphs"):
        embeddings.load_predicate_embeddings(other, manifest["graphs"])


def test_smoothing_grounds_an_unseen_premise(lm_graphs: Path, encoder: SentenceEncoder) -> None:
    graphs = GraphSet.load(lm_graphs)
    types = ("person", "organization")
    unseen = Query("(purchase.1,purchase.2)", "(own.1,own.2)", types)
    plain = graphs.score_batch([unseen], "binc")
    assert plain.stage == ["none"] and plain.scores[0] == 0.0
    smoothing = Smoothing(VectorCache(encoder).vectors, k=1, min_cosine=0.5)
    smoothed = graphs.score_batch([unseen], "binc", smoothing=smoothing)
    buy_own = graphs.score_batch([Query("(buy.1,buy.2)", "(own.1,own.2)", types)], "binc")
    assert buy_own.stage == ["typed"] and buy_own.scores[0] > 0.5
    # "purchase" is read as its nearest node, "buy": it scores what buy -> own scores.
    assert smoothed.stage == ["smoothed"] and smoothed.scores[0] == pytest.approx(buy_own.scores[0])
    # Known premises are untouched; a premise with no near neighbour stays ungrounded, and so does one with
    # its arguments the other way round (every node here has a person first: none has the premise's slots).
    known = graphs.score_batch([Query("(sell.1,sell.2)", "(own.1,own.2)", types),
                                Query("(photosynthesise.1,photosynthesise.2)", "(own.1,own.2)", types),
                                Query("(purchase.1,purchase.2)", "(own.1,own.2)", types, premise_reversed=True)],
                               "binc", smoothing=smoothing)
    assert known.stage == ["typed", "none", "none"]


def test_smoothing_never_reads_a_denied_premise_as_its_act(lm_graphs: Path, encoder: SentenceEncoder) -> None:
    """A denied act stands in for no node of the act: "did not purchase" is near "buy" in words and says the
    opposite. A controlled one may ("wants to purchase" reads as "buy", as `+act` reads it)."""
    graphs = GraphSet.load(lm_graphs)
    types = ("person", "organization")
    smoothing = Smoothing(VectorCache(encoder).vectors, k=1, min_cosine=0.3)
    marked = [Query("NEG__(purchase.1,purchase.2)", "(own.1,own.2)", types),
              Query("NEG__want__(purchase.1,purchase.2)", "(own.1,own.2)", types),
              Query("want__(purchase.1,purchase.2)", "(own.1,own.2)", types),
              Query("(purchase.1,purchase.2)", "(own.1,own.2)", types)]
    scored = graphs.score_batch(marked, "binc", smoothing=smoothing)
    assert scored.stage[:2] == ["none", "none"] and list(scored.scores[:2]) == [0.0, 0.0]
    assert scored.stage[2:] == ["smoothed", "smoothed"] and min(scored.scores[2:]) > 0.5
    assert (is_negated("NEG__want__(buy.1,buy.2)#person#thing"), is_negated("want__(buy.1,buy.2)")) == (True, False)


@pytest.mark.parametrize(("unseen", "known"), [
    ("(purchase.1,purchase.2)", "(acquire.1,acquire.2)"),
    ("(combine.1,combine.with.2)", "(merge.1,merge.with.2)"),  # premise sorts first: the pair is read mirrored
])
def test_smoothing_keeps_the_argument_order_in_a_same_type_graph(lm_graphs: Path, encoder: SentenceEncoder,
                                                                 unseen: str, known: str) -> None:
    graphs = GraphSet.load(lm_graphs)
    orgs = ("organization", "organization")
    smoothing = Smoothing(VectorCache(encoder).vectors, k=1, min_cosine=0.5)
    reference = graphs.score_batch([Query(known, known, orgs), Query(known, known, orgs, premise_reversed=True)],
                                   "binc")
    assert reference.scores[0] == 1.0 and reference.scores[1] < 1.0  # "X acquired Y" does not say Y acquired X
    smoothed = graphs.score_batch([Query(unseen, known, orgs), Query(unseen, known, orgs, premise_reversed=True)],
                                  "binc", smoothing=smoothing)
    # The unseen premise reads as its nearest node in the same argument order, reversed when it is reversed.
    assert smoothed.stage == ["smoothed", "smoothed"]
    np.testing.assert_allclose(smoothed.scores, reference.scores)
