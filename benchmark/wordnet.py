"""WordNet 3.0 from Debian's packages, read with NLTK's reader: hyponyms and synonyms of words.

Debian ships the database under /usr/share/wordnet but not the `lexnames` file NLTK's reader needs, and
NLTK wants the files in `<root>/corpora/wordnet`. `prepare_wordnet` builds that folder in a cache from
the Debian files plus a generated `lexnames` (the 45 names of the lexnames(5WN) manual). The files are
copied (~35 MB, once): NLTK >= 3.9 refuses to read through symlinks that leave the corpus folder and
refuses hard-linked files.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from graph_builder.errors import ModelMissingError
from graph_builder.extras import require

from benchmark.senses import Hyponym, Sense

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset, WordNetCorpusReader

DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")
INSTALL_HINT = "apt-get install -y wordnet-base wordnet-sense-index"

# lexnames(5WN): file number = position, then the name and its syntactic category (1 noun ... 4 adverb).
LEXNAMES: tuple[tuple[str, int], ...] = (
    ("adj.all", 3), ("adj.pert", 3), ("adv.all", 4), ("noun.Tops", 1), ("noun.act", 1),
    ("noun.animal", 1), ("noun.artifact", 1), ("noun.attribute", 1), ("noun.body", 1),
    ("noun.cognition", 1), ("noun.communication", 1), ("noun.event", 1), ("noun.feeling", 1),
    ("noun.food", 1), ("noun.group", 1), ("noun.location", 1), ("noun.motive", 1), ("noun.object", 1),
    ("noun.person", 1), ("noun.phenomenon", 1), ("noun.plant", 1), ("noun.possession", 1),
    ("noun.process", 1), ("noun.quantity", 1), ("noun.relation", 1), ("noun.shape", 1),
    ("noun.state", 1), ("noun.substance", 1), ("noun.time", 1), ("verb.body", 2), ("verb.change", 2),
    ("verb.cognition", 2), ("verb.communication", 2), ("verb.competition", 2), ("verb.consumption", 2),
    ("verb.contact", 2), ("verb.creation", 2), ("verb.emotion", 2), ("verb.motion", 2),
    ("verb.perception", 2), ("verb.possession", 2), ("verb.social", 2), ("verb.stative", 2),
    ("verb.weather", 2), ("adj.ppl", 3),
)

# Files NLTK's reader opens; `lexnames` is generated, the rest come from the Debian packages.
_DATABASE_FILES = (
    "cntlist.rev", "index.sense", "index.adj", "index.adv", "index.noun", "index.verb",
    "data.adj", "data.adv", "data.noun", "data.verb", "adj.exc", "adv.exc", "noun.exc", "verb.exc",
)

POS_NAMES = {"v": "verb", "n": "noun"}


def lexnames_text() -> str:
    """Return the content of the `lexnames` file: `NN<TAB>name<TAB>category` lines, numbered 00-44."""
    return "".join(f"{i:02d}\t{name}\t{category}\n" for i, (name, category) in enumerate(LEXNAMES))


def default_cache_dir() -> Path:
    """Return egqa's cache folder for the prepared WordNet (XDG cache, else ~/.cache)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "egqa" / "nltk_data"


def prepare_wordnet(cache_dir: Path | None = None, source: Path = DEBIAN_WORDNET_DIR) -> Path:
    """Build `<cache_dir>/corpora/wordnet` from the Debian files and return that folder."""
    missing = [name for name in _DATABASE_FILES if not (source / name).is_file()]
    if missing:
        raise ModelMissingError(
            f"WordNet 3.0 not found in {source} (missing {', '.join(missing[:3])}"
            f"{', ...' if len(missing) > 3 else ''}); install it with `{INSTALL_HINT}`")
    target = (cache_dir or default_cache_dir()) / "corpora" / "wordnet"
    target.mkdir(parents=True, exist_ok=True)
    for name in _DATABASE_FILES:
        _place(source / name, target / name)
    lexnames = target / "lexnames"
    text = lexnames_text()
    if not lexnames.is_file() or lexnames.read_text(encoding="utf-8") != text:
        tmp = lexnames.with_name(f".lexnames.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, lexnames)
    return target


def _place(src: Path, dst: Path) -> None:
    """Copy `src` to `dst` atomically unless `dst` is already a plain copy of it (same size and mtime)."""
    src_stat = src.stat()
    if dst.is_file() and not dst.is_symlink():
        dst_stat = dst.stat()
        if (dst_stat.st_size, dst_stat.st_mtime, dst_stat.st_nlink) == (src_stat.st_size, src_stat.st_mtime, 1):
            return
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    shutil.copy2(src, tmp)
    os.replace(tmp, dst)


def _phrase_key(phrase: str) -> str:
    return "_".join(phrase.replace("_", " ").split()).lower()


def _lemma_text(name: str) -> str:
    return name.replace("_", " ").lower()


def _lemma_sets_below(senses: list[Synset], phrase: str, depth: int) -> tuple[Hyponym, ...]:
    """The hyponym synsets up to `depth` levels below `senses`, as (synset name, sorted lemmas without `phrase`
    itself), in synset-name order."""
    own = {_lemma_text(phrase)}
    found: dict[str, tuple[str, ...]] = {}
    frontier = senses
    for _ in range(depth):
        below = [h for synset in frontier for h in synset.hyponyms()]
        for synset in below:
            lemmas = tuple(sorted({_lemma_text(n) for n in synset.lemma_names()} - own))
            if lemmas:
                found[synset.name()] = lemmas
        frontier = below
    return tuple((name, found[name]) for name in sorted(found))


class WordNet:
    """Hyponym and synonym lookups over one NLTK WordNet reader, with per-query caches."""

    def __init__(self, reader: WordNetCorpusReader) -> None:
        """Wrap an open NLTK WordNet reader."""
        self.reader = reader
        self._cache: dict[tuple[str, str, str, int], tuple[Hyponym, ...]] = {}
        self._synonyms: dict[tuple[str, str], tuple[str, ...]] = {}

    def synsets(self, phrase: str, pos: str) -> list[Synset]:
        """Return the synsets of a word or multi-word phrase (`pos` is `v` or `n`), most frequent first."""
        if pos not in POS_NAMES:
            raise ValueError(f"pos must be one of {sorted(POS_NAMES)}, got {pos!r}")
        return list(self.reader.synsets(_phrase_key(phrase), pos=pos))

    def has(self, phrase: str, pos: str) -> bool:
        """Return whether the phrase has any synset of part of speech `pos`."""
        return bool(self.synsets(phrase, pos))

    def hyponym_sets(self, phrase: str, pos: str, depth: int = 1,
                     max_senses: int | None = None) -> tuple[Hyponym, ...]:
        """Return the hyponym synsets (up to `depth` levels below any sense) as (name, sorted lemmas)."""
        key = ("hypo", _phrase_key(phrase), pos, depth * 1000 + (max_senses or 0))
        if key not in self._cache:
            self._cache[key] = _lemma_sets_below(self.synsets(phrase, pos)[:max_senses], phrase, depth)
        return self._cache[key]

    def senses(self, phrase: str, pos: str) -> list[Sense]:
        """Return the senses of a word, most frequent first, with the word's SemCor count in each."""
        key = _phrase_key(phrase)
        return [Sense(name=s.name(), lemmas=tuple(_lemma_text(n) for n in s.lemma_names()),
                      definition=s.definition(), examples=tuple(s.examples()),
                      count=sum(lemma.count() for lemma in s.lemmas() if lemma.name().lower() == key))
                for s in self.synsets(phrase, pos)]

    def verb_antonyms(self) -> list[tuple[str, str]]:
        """Every pair of one-word verbs WordNet lists as antonyms (`buy`/`sell`, `rise`/`fall`), sorted."""
        pairs = {tuple(sorted((lemma.name().lower(), other.name().lower())))
                 for synset in self.reader.all_synsets("v") for lemma in synset.lemmas()
                 for other in lemma.antonyms() if "_" not in lemma.name() + other.name()}
        return sorted(pairs)  # type: ignore[arg-type]

    def sense_hyponym_sets(self, phrase: str, senses: tuple[str, ...],
                           depth: int = 1) -> tuple[Hyponym, ...]:
        """Return the hyponym synsets (up to `depth` levels) of the named senses only, as (name, lemmas)."""
        key = ("sense-hypo", _phrase_key(phrase), "|".join(senses), depth)
        if key not in self._cache:
            self._cache[key] = _lemma_sets_below([self.reader.synset(name) for name in senses], phrase, depth)
        return self._cache[key]

    def hyponyms(self, phrase: str, pos: str, depth: int = 1) -> list[str]:
        """Return the lemmas (spaces between words) of the phrase's hyponyms, sorted."""
        return sorted({lemma for _, lemmas in self.hyponym_sets(phrase, pos, depth) for lemma in lemmas})

    def synonyms(self, phrase: str, pos: str) -> list[str]:
        """Return the other lemmas of every synset of the phrase, sorted (the phrase itself left out)."""
        key = (_phrase_key(phrase), pos)
        if key not in self._synonyms:
            own = _lemma_text(phrase)
            lemmas = {_lemma_text(n) for s in self.synsets(phrase, pos) for n in s.lemma_names()} - {own}
            self._synonyms[key] = tuple(sorted(lemmas))
        return list(self._synonyms[key])


_OPEN: dict[Path, WordNet] = {}


def open_wordnet(cache_dir: Path | None = None, source: Path = DEBIAN_WORDNET_DIR) -> WordNet:
    """Prepare (once) and open WordNet; raise ModelMissingError with the apt command when it is absent."""
    folder = prepare_wordnet(cache_dir, source)
    if folder not in _OPEN:
        nltk_data = require("benchmark", "nltk.data", "WordNet (the benchmark builder)")
        WordNetCorpusReader = require("benchmark", "nltk.corpus.reader.wordnet",  # noqa: N806
                                      "WordNet (the benchmark builder)").WordNetCorpusReader

        # NLTK >= 3.9 opens files only below the roots listed in nltk.data.path: add our cache root.
        for root in (folder.parent.parent,):
            if str(root) not in nltk_data.path:
                nltk_data.path.append(str(root))
        try:
            with warnings.catch_warnings():
                # "multilingual functions are not available": we pass no Open Multilingual WordNet.
                warnings.simplefilter("ignore", UserWarning)
                _OPEN[folder] = WordNet(WordNetCorpusReader(str(folder), None))
        except (OSError, LookupError, AssertionError, ValueError, PermissionError) as exc:
            raise ModelMissingError(
                f"WordNet in {source} is unreadable ({exc}); reinstall it with `{INSTALL_HINT}`") from exc
    return _OPEN[folder]
