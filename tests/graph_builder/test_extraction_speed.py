"""The sentence path's shortcuts give exactly what spaCy's own components give (speed is measured in bench/, not here)."""

from __future__ import annotations

import pytest
from spacy.language import Language
from spacy.pipeline import AttributeRuler
from spacy.tokens import Doc

from graph_builder.extraction import SentenceParser, doc_triples, load_pipeline, plain
from graph_builder.extraction.attributes import MemoAttributeRuler, memo_ruler

# Sentences written for the test: made-up names, contractions the two-token patterns rewrite ("gon na", "let 's",
# "ai n't"), an expletive before "is", pronouns whose case the parse decides, and runs of spaces.
SENTENCES = [
    "Acme Corp said on Monday it would buy Widget Inc from Zorblat AG for 3 million euros.",
    "We 're gon na win this, y' all, Jane Smith told Brightwater Bank.",
    "Let 's see what Orvex does  next;   it ai n't over.",
    "There is a plan, and it is to sell the unit to Halvard Group, which Morgan Quill runs.",
    "I told you that it was Kestrel Partners that hired me, not Dunmore Ltd.",
]


def _parsed(texts: list[str]) -> list[Doc]:
    """Docs as the attribute ruler receives them: tokenised, tagged and parsed."""
    nlp = load_pipeline()
    docs = [nlp.make_doc(t) for t in texts]
    for name in ("tok2vec", "tagger", "parser"):
        docs = list(nlp.get_pipe(name).pipe(docs))
    return docs


def _attributes(doc: Doc) -> list[tuple[str, str, str, str, str]]:
    return [(t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_) for t in doc]


def test_memo_ruler_sets_what_spacys_attribute_ruler_sets() -> None:
    nlp = load_pipeline()
    ruler = nlp.get_pipe("attribute_ruler")
    memo = memo_ruler(ruler)
    assert isinstance(memo, MemoAttributeRuler)
    docs = _parsed(SENTENCES)
    expected = [_attributes(ruler(Doc(nlp.vocab).from_bytes(d.to_bytes()))) for d in docs]
    for _ in range(2):  # the second time every token comes from the memo
        got = [_attributes(memo(Doc(nlp.vocab).from_bytes(d.to_bytes()))) for d in docs]
        assert got == expected
    by_word = {token.text: attributes for doc in docs for token, attributes in zip(doc, _attributes(memo(doc)))}
    assert by_word["gon"][3] == "go" and by_word["na"][3] == "to"  # two-token patterns reached
    assert by_word["'re"][1] == "AUX" and by_word["'re"][3] == "be"


def test_memo_ruler_word_classes_keep_regex_and_named_words_apart() -> None:
    """Words no pattern names share one memo entry; a word a regex matches ("nothin'") or a pattern names does not."""
    nlp = load_pipeline()
    memo = memo_ruler(nlp.get_pipe("attribute_ruler"))
    assert isinstance(memo, MemoAttributeRuler)
    strings = nlp.vocab.strings
    assert memo._word(strings.add("zorblat")) == memo._word(strings.add("quillon"))
    assert memo._word(strings.add("nothin'")) == strings["nothin'"]
    assert memo._word(strings.add("ai")) == strings["ai"]


def test_memo_ruler_keeps_spacys_ruler_for_patterns_it_cannot_read() -> None:
    nlp = load_pipeline()
    ruler = AttributeRuler(nlp.vocab)
    ruler.add([[{"LOWER": "acme", "OP": "+"}]], {"POS": "PROPN"})
    assert memo_ruler(ruler) is ruler
    ruler = AttributeRuler(nlp.vocab)
    ruler.add([[{"SHAPE": "Xxxx"}]], {"POS": "PROPN"})
    assert memo_ruler(ruler) is ruler


def test_sentence_path_gives_the_full_pipelines_triples() -> None:
    """SentenceParser (recogniser first, memo ruler) and the whole pipeline on each sentence give the same triples."""
    nlp = load_pipeline()
    parsed = SentenceParser(nlp, cache_size=0).parse(["\n".join(SENTENCES)])
    ours = [[(r.subj.norm, r.predicate, r.obj.norm, r.subj.type, r.obj.type) for r in s.relations] for s in parsed[0]]
    full = [[(r.subj.norm, r.predicate, r.obj.norm, r.subj.type, r.obj.type)
             for st in doc_triples(nlp(s.text)) for r in map(plain, st.relations)] for s in parsed[0]]
    assert ours == full
    assert sum(map(len, ours)) >= 4


def _analysis(doc: Doc) -> list[tuple[str, str, int, str, str, str]]:
    return [(t.text, t.tag_, t.head.i, t.dep_, t.ent_iob_, t.ent_type_) for t in doc]


def test_inference_ops_give_what_thincs_own_ops_give() -> None:
    """The pipeline egqa loads runs on InferenceOps and inference forwards; spaCy's own load of the same package, on
    thinc's NumpyOps and layers, tags, parses and recognises the same sentences identically (the gemm and maxout are
    the only ops replaced, Maxout and LayerNorm the only forwards)."""
    import numpy as np
    from thinc.api import Model, NumpyOps

    from graph_builder.extraction import PARSERS, ParserName, load_spacy
    from graph_builder.extraction.inference_ops import InferenceOps

    ours = load_pipeline()
    spacys = load_spacy(PARSERS[ParserName.sm])
    def layers(nlp: Language) -> list[Model]:
        return [layer for _, c in nlp.pipeline if getattr(c, "model", None) is not None for layer in c.model.walk()]

    assert layers(ours) and all(isinstance(layer.ops, InferenceOps) for layer in layers(ours))
    assert not any(isinstance(layer.ops, InferenceOps) for layer in layers(spacys))
    for text in SENTENCES:
        assert _analysis(ours(text)) == _analysis(spacys(text))

    ops, reference = InferenceOps(), NumpyOps()
    rng = np.random.default_rng(7)
    x, y = rng.random((37, 19), dtype=np.float32), rng.random((23, 19), dtype=np.float32)
    assert np.allclose(ops.gemm(x, y, trans2=True), reference.gemm(x, y, trans2=True), rtol=1e-5)
    out = np.empty((19, 19), dtype=np.float32)
    assert ops.gemm(x, x, out=out, trans1=True) is out and np.allclose(out, x.T @ x, rtol=1e-5)
    pieces = rng.random((11, 5, 3), dtype=np.float32)
    best, which = ops.maxout(pieces)
    assert np.array_equal(best, reference.maxout(pieces)[0]) and best.flags.c_contiguous and which is None
    with pytest.raises(RuntimeError, match="trained pipelines only"):
        ops.backprop_maxout(best, which, 3)


def test_inference_forwards_equal_thincs_bit_for_bit() -> None:
    """Every Maxout and LayerNorm layer of the loaded pipeline gives, on random inputs of several lengths, exactly
    thinc's own forward's output (not merely close), and refuses a backward pass."""
    import numpy as np
    from thinc.layers import layernorm, maxout

    from graph_builder.extraction.inference_ops import cpu_layers, layernorm_forward, maxout_forward

    thincs = {"maxout": maxout.forward, "layernorm": layernorm.forward}
    ours = {"maxout": maxout_forward, "layernorm": layernorm_forward}
    layers = [layer for layer in cpu_layers(load_pipeline()) if layer.name in ours]
    assert {layer.name for layer in layers} == {"maxout", "layernorm"}
    assert all(layer._func is ours[layer.name] for layer in layers)
    rng = np.random.default_rng(11)
    for layer in layers:
        for rows in (1, 5, 130):
            X = (rng.standard_normal((rows, layer.get_dim("nI"))) * 3).astype(np.float32)
            got, backprop = layer._func(layer, X, False)
            assert np.array_equal(got, thincs[layer.name](layer, X, False)[0])
            assert got.dtype == np.float32 and got.flags.c_contiguous
    with pytest.raises(RuntimeError, match="trained pipelines only"):
        backprop(got)


def test_precomputed_embeddings_give_thincs_vectors_to_the_last_bits() -> None:
    """Both hash-embedding chains of the sm pipeline (the recogniser's, the shared token vectors') run on precomputed
    tables: the same vectors as thinc's chain within float32 rounding, and the thinc forwards can be put back."""
    import numpy as np

    from graph_builder.extraction.inference_ops import (
        INFERENCE_FORWARDS, THINC_FORWARDS, cpu_layers, embed_forward, is_hash_embed, use_forwards,
    )

    nlp = load_pipeline()
    chains = [layer for layer in cpu_layers(nlp) if is_hash_embed(layer)]
    assert len(chains) == 2 and all(layer._func is embed_forward for layer in chains)
    docs = [nlp.make_doc(text) for text in SENTENCES]
    try:
        fast = [layer(docs, False)[0] for layer in chains]
        use_forwards(nlp, THINC_FORWARDS)
        assert not any(layer._func is embed_forward for layer in chains)
        slow = [layer(docs, False)[0] for layer in chains]
    finally:
        use_forwards(nlp, INFERENCE_FORWARDS)
    for ours, thincs in zip(fast, slow, strict=True):
        assert [a.shape for a in ours] == [a.shape for a in thincs] == [(len(d), 96) for d in docs]
        assert all(np.allclose(a, b, rtol=0, atol=1e-4) for a, b in zip(ours, thincs, strict=True))


def test_memo_lemmatizer_sets_what_spacys_lemmatizer_sets() -> None:
    """The memo lemmatiser gives every token spaCy's lemma, the second time from its memo, and leaves a lemma the
    attribute ruler set ("gon" -> "go") as spaCy's lemmatiser leaves it."""
    from graph_builder.extraction.lemmas import MemoLemmatizer, memo_lemmatizer

    nlp = load_pipeline()
    lemmatizer = nlp.get_pipe("lemmatizer")
    memo = memo_lemmatizer(lemmatizer)
    assert isinstance(memo, MemoLemmatizer)
    ruler = nlp.get_pipe("attribute_ruler")
    docs = [ruler(d) for d in _parsed([*SENTENCES, "Banks hoped the rates would fall; Acme's units were sold."])]

    def lemmas(doc: Doc) -> list[tuple[str, str]]:
        return [(t.text, t.lemma_) for t in doc]

    expected = [lemmas(lemmatizer(Doc(nlp.vocab).from_bytes(d.to_bytes()))) for d in docs]
    for _ in range(2):  # the second time every lemma comes from the memo
        got = [lemmas(memo(Doc(nlp.vocab).from_bytes(d.to_bytes()))) for d in docs]
        assert got == expected
    assert memo.memo
    by_word = dict(pair for doc in expected for pair in doc)
    assert by_word["gon"] == "go" and by_word["units"] == "unit" and by_word["were"] == "be"
    assert memo_lemmatizer(ruler) is ruler  # not a lemmatiser: left as it is
