"""WordNet lookups on the real WordNet 3.0 from Debian (skipped with the install command when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark.wordnet import DEBIAN_WORDNET_DIR, INSTALL_HINT, LEXNAMES, WordNet, lexnames_text, open_wordnet
from graph_builder.errors import ModelMissingError

needs_wordnet = pytest.mark.skipif(not (DEBIAN_WORDNET_DIR / "data.verb").is_file(),
                                   reason=f"WordNet 3.0 is not installed: {INSTALL_HINT}")


@pytest.fixture(scope="module")
def wordnet(tmp_path_factory: pytest.TempPathFactory) -> WordNet:
    return open_wordnet(tmp_path_factory.mktemp("nltk_data"))


def test_lexnames_file_has_the_45_manual_entries() -> None:
    lines = lexnames_text().splitlines()
    assert len(lines) == len(LEXNAMES) == 45
    assert lines[0] == "00\tadj.all\t3"
    assert lines[29] == "29\tverb.body\t2"
    assert lines[44] == "44\tadj.ppl\t3"


def test_missing_wordnet_says_how_to_install_it(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError, match="apt-get install -y wordnet-base wordnet-sense-index"):
        open_wordnet(tmp_path / "cache", source=tmp_path / "no-wordnet")


@needs_wordnet
def test_verb_hyponyms_follow_the_paper_examples(wordnet: WordNet) -> None:
    # Li et al. (2022): "go to" -> "drive to", "play game" -> "play practice game".
    assert "drive" in wordnet.hyponyms("go", "v")
    assert "practice game" in wordnet.hyponyms("game", "n")
    # Direction: "purchase" is a synonym of "buy", "repurchase" a hyponym, never the reverse.
    assert "repurchase" in wordnet.hyponyms("buy", "v")
    assert "buy" not in wordnet.hyponyms("repurchase", "v")
    assert "purchase" in wordnet.synonyms("buy", "v")
    assert "buy" not in wordnet.synonyms("buy", "v")


@needs_wordnet
def test_multiword_phrases_and_hyponym_sets(wordnet: WordNet) -> None:
    assert "capitulate" in wordnet.hyponyms("give up", "v")
    assert wordnet.hyponyms("give_up", "v") == wordnet.hyponyms("give up", "v")
    named = dict(wordnet.hyponym_sets("visit", "v"))
    # A hyponym synset comes whole, named: its lemmas are one another's synonyms for the absence check.
    assert named["drop_by.v.01"] == ("come by", "drop by", "drop in")
    assert ("sightsee",) in named.values()
    assert all(tuple(sorted(lemmas)) == lemmas for lemmas in named.values())
    assert list(named) == sorted(named)
    assert dict(wordnet.sense_hyponym_sets("visit", ("visit.v.03",)))["drop_by.v.01"] == named["drop_by.v.01"]
    assert wordnet.hyponyms("xqzzy", "v") == []
