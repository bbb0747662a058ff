"""Extraction quality on the hand-labelled gold set: precision, recall, types and negation, with 95% intervals.

Reads every `tests/data/extraction_gold/*.jsonl` (references to sentences of ../shared/data plus labels),
loads each raw body once (ding2014's gzip JSONL streamed once, Reuters-21578 SGML by NEWID), checks the
span's sha1, cleans the span with `prepare_sentence`, runs `graph_builder.extraction.extract_text` on it and
scores the predictions against the gold relations:

- lenient: same unordered argument pair by head-word overlap (last word of the normalised argument equal,
  or one argument's words contain the other's) and the same predicate content lemmas (roles, prepositions,
  NEG__ and controlling verbs removed);
- strict: identical predicate string (with NEG__ and controllers) and identical argument norms in order.

Each sentence is matched one-to-one, greedily. Type accuracy (both types right) and negation accuracy are
taken among lenient matches. Intervals: percentile bootstrap over sentences with a fixed seed.
Usage: python bench/extraction_eval.py [--gold tests/data/extraction_gold] [--data ../shared/data]
       [--parser sm|md] [--against sm|md] [--json] [--show-errors N] [--show fp|misses|both] [--bootstrap 1000] [--seed 0]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import html
import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

REPO = Path(__file__).resolve().parents[1]
DEFAULT_GOLD = REPO / "tests" / "data" / "extraction_gold"
DEFAULT_DATA = REPO.parent / "shared" / "data"
SCORER_VERSION = "egqa.extraction-eval.v2"

NEGATION_PREFIX = "NEG__"
# Words dropped from a predicate before its content lemmas are compared: prepositions and particles that
# only mark a role ("sell.to.2"), so "(sell.1,sell.to.2)" and "(sell.2,sell.to.2)" both read {"sell"}.
FUNCTION_WORDS = frozenset({
    "about", "above", "across", "after", "against", "ahead", "along", "amid", "among", "around", "as", "at",
    "before", "behind", "below", "beneath", "beside", "besides", "between", "beyond", "by", "despite", "down",
    "during", "except", "for", "from", "in", "inside", "into", "like", "near", "of", "off", "on", "onto",
    "out", "outside", "over", "past", "per", "since", "than", "through", "throughout", "to", "toward",
    "towards", "under", "unlike", "until", "up", "upon", "via", "with", "within", "without",
})
TYPES = frozenset({"person", "organization", "location", "event", "product", "building", "art", "law", "group",
                   "language", "thing"})
_PREDICATE_RE = re.compile(r"^(NEG__)?((?:[a-z][a-z\-]*__)*)\(([^(),]+),([^(),]+)\)$")
_REUTERS_RE = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
_NEWID_RE = re.compile(r'NEWID="(\d+)"')
_BODY_RE = re.compile(r"<BODY>(.*?)</BODY>", re.S)


@dataclass(frozen=True)
class Triple:
    """One relation, predicted or gold: arguments in order, predicate string, types and negation."""

    subject: str
    predicate: str
    object: str
    subject_type: str = "thing"
    object_type: str = "thing"
    negated: bool = False

    @classmethod
    def from_dict(cls, row: dict[str, object]) -> Triple:
        """Build a triple from a gold label or an `extract_text` item."""
        return cls(str(row["subject"]), str(row["predicate"]), str(row["object"]),
                   str(row.get("subject_type", "thing")), str(row.get("object_type", "thing")),
                   bool(row.get("negated", False)))


@dataclass(frozen=True)
class GoldSentence:
    """A gold sentence: where its raw span lives and the relations an annotator found in it."""

    corpus: str
    file: str
    article_id: str
    start: int
    end: int
    sha1: str
    relations: tuple[Triple, ...]
    line: int | None = None
    note: str = ""
    source: str = ""

    @property
    def key(self) -> str:
        """A readable reference, e.g. `reuters_ding2014:1234[517:640]`."""
        where = self.line if self.line is not None else self.article_id
        return f"{self.corpus}:{where}[{self.start}:{self.end}]"


@dataclass
class SentenceScore:
    """Counts of one sentence: predictions, gold relations, and the matches among them."""

    key: str
    corpus: str
    predicted: int
    gold: int
    lenient: int
    strict: int
    types_right: int
    negation_right: int
    false_positives: list[Triple] = field(default_factory=list)
    misses: list[Triple] = field(default_factory=list)
    text: str = ""
    gold_relations: tuple[Triple, ...] = ()


# --- the matcher: pure functions on triples -------------------------------------------------------------

def predicate_core(predicate: str) -> str:
    """Strip NEG__ and controlling-verb prefixes: `NEG__agree__(buy.1,buy.2)` -> `(buy.1,buy.2)`."""
    start = predicate.find("(")
    return predicate[start:] if start >= 0 else predicate


def content_lemmas(predicate: str) -> frozenset[str]:
    """The predicate's content words: `(have.1,have.influence.in.2)` -> {have, influence}."""
    words = re.split(r"[.,()]+", predicate_core(predicate).lower())
    return frozenset(w for w in words if w and not w.isdigit() and w not in FUNCTION_WORDS)


def _words(argument: str) -> list[str]:
    """An argument's words without the commas a full name keeps ("fox-pitt, kelton nv" -> fox-pitt kelton nv)."""
    return [w for w in (w.strip(",;") for w in argument.lower().split()) if w]


def arguments_match(predicted: str, gold: str) -> bool:
    """Head-word overlap: same last word, or one argument's word sequence contains the other's."""
    p, g = _words(predicted), _words(gold)
    if not p or not g:
        return False
    if p[-1] == g[-1]:
        return True
    short, long_ = (p, g) if len(p) <= len(g) else (g, p)
    return any(long_[i:i + len(short)] == short for i in range(len(long_) - len(short) + 1))


def main_lemma(predicate: str) -> str:
    """The predicate's head word: the first word of its first half, e.g. `(cut.1,cut.job.in.2)` -> `cut`."""
    return predicate_core(predicate).lstrip("(").split(".", 1)[0].lower()


def predicates_agree(predicted: str, gold: str) -> bool:
    """Lenient predicate agreement: the same content words, or the same head word with one set inside the other.

    "Ford is cutting jobs in North America" states the relation whether it is written `(cut.1,cut.in.2)` or,
    keeping the object noun as the reference parser does, `(cut.1,cut.job.in.2)`; strict matching tells them apart.
    """
    p, g = content_lemmas(predicted), content_lemmas(gold)
    if p == g:
        return True
    return main_lemma(predicted) == main_lemma(gold) and (p <= g or g <= p)


def lenient_orientation(predicted: Triple, gold: Triple) -> bool | None:
    """None if no lenient match; else True when the arguments align in the same order, False when swapped."""
    if not predicates_agree(predicted.predicate, gold.predicate):
        return None
    if arguments_match(predicted.subject, gold.subject) and arguments_match(predicted.object, gold.object):
        return True
    if arguments_match(predicted.subject, gold.object) and arguments_match(predicted.object, gold.subject):
        return False
    return None


def strict_match(predicted: Triple, gold: Triple) -> bool:
    """Identical predicate string and identical argument norms in the same order."""
    return (predicted.predicate, predicted.subject, predicted.object) == (gold.predicate, gold.subject, gold.object)


def types_right(predicted: Triple, gold: Triple, same_order: bool) -> bool:
    """Both argument types right, read through the alignment of a lenient match."""
    types = (predicted.subject_type, predicted.object_type)
    return (types if same_order else types[::-1]) == (gold.subject_type, gold.object_type)


def _greedy(candidates: list[tuple[tuple[int, ...], int, int]]) -> list[tuple[int, int]]:
    """One-to-one matching: best-scored pairs first, ties by gold then prediction index."""
    used_p: set[int] = set()
    used_g: set[int] = set()
    pairs = []
    for _, g, p in sorted(candidates, key=lambda c: (tuple(-x for x in c[0]), c[1], c[2])):
        if g not in used_g and p not in used_p:
            used_g.add(g)
            used_p.add(p)
            pairs.append((g, p))
    return sorted(pairs)


def lenient_pairs(predicted: Sequence[Triple], gold: Sequence[Triple]) -> list[tuple[int, int, bool]]:
    """Greedy one-to-one lenient matching: (gold index, prediction index, same argument order).

    Among several candidates a strict match is preferred, then the same argument order.
    """
    candidates = []
    orientation: dict[tuple[int, int], bool] = {}
    for g, gold_triple in enumerate(gold):
        for p, pred in enumerate(predicted):
            same = lenient_orientation(pred, gold_triple)
            if same is not None:
                orientation[(g, p)] = same
                candidates.append(((int(strict_match(pred, gold_triple)), int(same)), g, p))
    return [(g, p, orientation[(g, p)]) for g, p in _greedy(candidates)]


def strict_pairs(predicted: Sequence[Triple], gold: Sequence[Triple]) -> list[tuple[int, int]]:
    """Greedy one-to-one strict matching: (gold index, prediction index)."""
    candidates = [((1,), g, p) for g, gt in enumerate(gold) for p, pt in enumerate(predicted) if strict_match(pt, gt)]
    return _greedy(candidates)


def score_sentence(predicted: Sequence[Triple], gold: Sequence[Triple], key: str = "", corpus: str = "",
                   text: str = "") -> SentenceScore:
    """Count matches, type and negation agreement, false positives and misses of one sentence."""
    lenient = lenient_pairs(predicted, gold)
    strict = strict_pairs(predicted, gold)
    matched_g = {g for g, _, _ in lenient}
    matched_p = {p for _, p, _ in lenient}
    return SentenceScore(
        key=key, corpus=corpus, predicted=len(predicted), gold=len(gold), lenient=len(lenient), strict=len(strict),
        types_right=sum(types_right(predicted[p], gold[g], same) for g, p, same in lenient),
        negation_right=sum(predicted[p].negated == gold[g].negated for g, p, _ in lenient),
        false_positives=[t for i, t in enumerate(predicted) if i not in matched_p],
        misses=[t for i, t in enumerate(gold) if i not in matched_g],
        text=text,
        gold_relations=tuple(gold),
    )


def label_problems(triple: Triple) -> list[str]:
    """What is wrong with a gold label's form (predicate shape, roles, norms, types, negation flag); empty if fine."""
    problems = []
    match = _PREDICATE_RE.match(triple.predicate)
    if match is None:
        problems.append(f"predicate {triple.predicate!r} is not [NEG__][ctrl__](lemma.ROLE,lemma.ROLE)")
    else:
        halves = [h.rsplit(".", 2) for h in (match.group(3), match.group(4))]
        if bool(match.group(1)) != triple.negated:
            problems.append("'negated' disagrees with the NEG__ prefix")
        if any(len(h) < 2 or not h[-1].isdigit() for h in halves):
            problems.append(f"predicate {triple.predicate!r} has a half without a role number")
    for name in ("subject", "object"):
        norm = getattr(triple, name)
        if not norm or norm != norm.lower() or norm != " ".join(norm.split()):
            problems.append(f"{name} {norm!r} is not a normalised argument (lowercase, single spaces)")
    for name in ("subject_type", "object_type"):
        if getattr(triple, name) not in TYPES:
            problems.append(f"{name} {getattr(triple, name)!r} is not one of {sorted(TYPES)}")
    return problems


# --- metrics with bootstrap intervals --------------------------------------------------------------------

# name -> (numerator field, denominator field) of SentenceScore, summed over sentences.
METRICS: dict[str, tuple[str, str]] = {
    "precision_lenient": ("lenient", "predicted"),
    "precision_strict": ("strict", "predicted"),
    "recall_lenient": ("lenient", "gold"),
    "recall_strict": ("strict", "gold"),
    "type_accuracy": ("types_right", "lenient"),
    "negation_accuracy": ("negation_right", "lenient"),
    "triples_per_sentence": ("predicted", "sentences"),
    "gold_per_sentence": ("gold", "sentences"),
}


def _columns(scores: Sequence[SentenceScore]) -> dict[str, np.ndarray]:
    names = {"predicted", "gold", "lenient", "strict", "types_right", "negation_right"}
    cols = {n: np.array([getattr(s, n) for s in scores], dtype=float) for n in names}
    cols["sentences"] = np.ones(len(scores))
    return cols


def metric_table(scores: Sequence[SentenceScore], n_boot: int = 1000, seed: int = 0) -> dict[str, dict[str, float | int | None]]:
    """Each metric as a ratio of sums over sentences, with a 95% percentile-bootstrap interval over sentences."""
    cols = _columns(scores)
    rng = np.random.default_rng(seed)
    n = len(scores)
    draws = rng.integers(0, n, size=(n_boot, n)) if n else np.zeros((0, 0), dtype=int)
    out: dict[str, dict[str, float | int | None]] = {}
    for name, (num, den) in METRICS.items():
        total_num, total_den = float(cols[num].sum()), float(cols[den].sum())
        value = total_num / total_den if total_den else None
        low = high = None
        if n and value is not None:
            nums, dens = cols[num][draws].sum(axis=1), cols[den][draws].sum(axis=1)
            ratios = nums[dens > 0] / dens[dens > 0]
            if ratios.size:
                low, high = (float(x) for x in np.percentile(ratios, [2.5, 97.5]))
        out[name] = {"value": value, "low": low, "high": high, "numerator": int(total_num), "denominator": int(total_den)}
    return out


PAIRED_METRICS = ("precision_lenient", "recall_lenient", "precision_strict", "recall_strict")


def paired_difference(first: Sequence[SentenceScore], second: Sequence[SentenceScore], metric: str,
                      n_boot: int = 1000, seed: int = 0) -> dict[str, float | None]:
    """`metric` of `first` minus that of `second`, two runs over the same sentences in the same order, with a 95%
    percentile-bootstrap interval that resamples sentences jointly (so both runs see the same draw)."""
    if [s.key for s in first] != [s.key for s in second]:
        raise ValueError("paired runs must score the same sentences in the same order")
    num, den = METRICS[metric]
    a, b = _columns(first), _columns(second)

    def ratio(cols: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
        nums, dens = cols[num][rows].sum(axis=-1), cols[den][rows].sum(axis=-1)
        return np.where(dens > 0, nums / np.where(dens > 0, dens, 1), np.nan)

    n = len(first)
    if not n:
        return {"value": None, "low": None, "high": None}
    everything = np.arange(n)[None, :]
    value = float((ratio(a, everything) - ratio(b, everything))[0])
    draws = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    diffs = ratio(a, draws) - ratio(b, draws)
    diffs = diffs[~np.isnan(diffs)]
    low, high = (float(x) for x in np.percentile(diffs, [2.5, 97.5])) if diffs.size else (None, None)
    return {"value": value, "low": low, "high": high}


# --- reading the gold set and the raw bodies -------------------------------------------------------------

def load_gold(folder: Path) -> list[GoldSentence]:
    """Read every `*.jsonl` of the gold folder, in file then line order."""
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not raw.strip():
                continue
            row = json.loads(raw)
            out.append(GoldSentence(
                corpus=row["corpus"], file=row["file"], article_id=str(row["article_id"]),
                start=int(row["start"]), end=int(row["end"]), sha1=row["sha1"],
                relations=tuple(Triple.from_dict(r) for r in row.get("relations", [])),
                line=row.get("line"), note=row.get("note", ""), source=f"{path.name}:{number}"))
    return out


def _ding_bodies(path: Path, lines: set[int]) -> dict[int, tuple[str, str]]:
    """The (`file`, `body`) of the wanted 1-based lines of a gzip JSONL file, streaming it once."""
    out: dict[int, tuple[str, str]] = {}
    if not lines:
        return out
    last = max(lines)
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            if number in lines:
                record = json.loads(raw)
                out[number] = (record["file"], record["body"])
            if number >= last:
                break
    return out


def _sgml_bodies(path: Path, newids: set[str]) -> dict[str, str]:
    """The raw characters between <BODY> and </BODY> of the wanted NEWIDs (file decoded as latin-1)."""
    out: dict[str, str] = {}
    for match in _REUTERS_RE.finditer(path.read_bytes().decode("latin-1")):
        newid = _NEWID_RE.search(match.group(1))
        if newid and newid.group(1) in newids:
            body = _BODY_RE.search(match.group(2))
            out[newid.group(1)] = body.group(1) if body else ""
    return out


def _body_key(sent: GoldSentence) -> tuple[str, str]:
    return (sent.file, str(sent.line) if sent.file.endswith(".jsonl.gz") else sent.article_id)


def load_raw_bodies(gold: Iterable[GoldSentence], data_root: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """Map (file, line or NEWID) to (article id, raw body) for every referenced article that can be found."""
    wanted: dict[str, set[str]] = {}
    for sent in gold:
        wanted.setdefault(sent.file, set()).add(_body_key(sent)[1])
    bodies: dict[tuple[str, str], tuple[str, str]] = {}
    for file, ids in sorted(wanted.items()):
        path = data_root / file
        if not path.is_file():
            continue
        if file.endswith(".jsonl.gz"):
            for number, record in _ding_bodies(path, {int(i) for i in ids}).items():
                bodies[(file, str(number))] = record
        else:
            for newid, body in _sgml_bodies(path, ids).items():
                bodies[(file, newid)] = (newid, body)
    return bodies


def prepare_sentence(raw: str, corpus: str) -> str:
    """Turn a raw gold span into the text the extractor reads: the corpus readers' own news clean-up."""
    from graph_builder.news import clean_news

    return clean_news(raw)


def corpus_extractor(parser_name: str = "sm") -> Callable[[str], list[dict[str, object]]]:
    """The extraction the corpus pipeline runs (sentence splitting, filters, parse) with one parser of the
    registry (`sm`, `md`), as text -> triple dicts."""
    from graph_builder.extraction import SentenceParser, load_pipeline, relation_dict

    parser = SentenceParser(load_pipeline(parser_name), cache_size=0)

    def extract(text: str) -> list[dict[str, object]]:
        return [relation_dict(r) for s in parser.parse([text])[0] for r in s.relations]  # type: ignore[arg-type]
    return extract


# --- the run ---------------------------------------------------------------------------------------------

@dataclass
class Run:
    """All sentence scores of a run plus the sentences that could not be scored, by reason."""

    scores: list[SentenceScore]
    errors: dict[str, list[str]]


def evaluate(gold: Sequence[GoldSentence], data_root: Path,
             extract: Callable[[str], list[dict[str, object]]]) -> Run:
    """Score `extract` on every gold sentence whose raw span is found and matches its sha1."""
    bodies = load_raw_bodies(gold, data_root)
    errors: dict[str, list[str]] = {}
    scores = []
    for sent in gold:
        found = bodies.get(_body_key(sent))
        if found is None:
            reason = "missing_file" if not (data_root / sent.file).is_file() else "missing_article"
            errors.setdefault(reason, []).append(f"{sent.source} {sent.key}")
            continue
        article_id, body = found
        if article_id != sent.article_id:
            errors.setdefault("article_id_mismatch", []).append(f"{sent.source} {sent.key}")
            continue
        raw = body[sent.start:sent.end]
        if hashlib.sha1(raw.encode("utf-8")).hexdigest() != sent.sha1:
            errors.setdefault("sha1_mismatch", []).append(f"{sent.source} {sent.key}")
            continue
        for triple in sent.relations:
            if label_problems(triple):
                errors.setdefault("invalid_label", []).append(f"{sent.source} {triple.predicate}")  # scored anyway
        text = prepare_sentence(raw, sent.corpus)
        predicted = [Triple.from_dict(r) for r in extract(text)]
        scores.append(score_sentence(predicted, sent.relations, sent.key, sent.corpus, text))
    return Run(scores, errors)


def report(run: Run, n_boot: int, seed: int, extractor: str = "") -> dict[str, object]:
    """Metric tables per corpus and overall, plus error counts."""
    corpora = sorted({s.corpus for s in run.scores})
    groups = {c: [s for s in run.scores if s.corpus == c] for c in corpora}
    groups["overall"] = run.scores
    return {
        "scorer": SCORER_VERSION,
        "extractor": extractor,
        "sentences": {name: len(scores) for name, scores in groups.items()},
        "metrics": {name: metric_table(scores, n_boot, seed) for name, scores in groups.items()},
        "errors": {reason: {"count": len(keys), "examples": keys[:5]} for reason, keys in sorted(run.errors.items())},
    }


def _fmt(cell: dict[str, float | int | None]) -> str:
    value, low, high = cell["value"], cell["low"], cell["high"]
    if value is None:
        return "n/a"
    ci = f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else ""
    return f"{value:.3f}{ci} ({cell['numerator']}/{cell['denominator']})"


def format_report(result: dict[str, object]) -> str:
    """The printed table: one block per corpus (and overall), one line per metric."""
    lines = [f"{SCORER_VERSION} on {result.get('extractor') or 'the extractor'}: value [95% bootstrap interval] "
             "(numerator/denominator)"]
    metrics: dict[str, dict[str, dict[str, float | int | None]]] = result["metrics"]  # type: ignore[assignment]
    sentences: dict[str, int] = result["sentences"]  # type: ignore[assignment]
    for group, table in metrics.items():
        lines.append(f"\n{group}: {sentences[group]} sentences")
        for name, cell in table.items():
            lines.append(f"  {name:<22} {_fmt(cell)}")
    errors: dict[str, dict[str, object]] = result["errors"]  # type: ignore[assignment]
    for reason, info in errors.items():
        lines.append(f"\nerror {reason}: {info['count']} sentences, e.g. {', '.join(info['examples'])}")  # type: ignore[arg-type]
    return "\n".join(lines)


def _triple_text(t: Triple) -> str:
    neg = " NEG" if t.negated else ""
    return f"{t.subject} [{t.subject_type}] {t.predicate} {t.object} [{t.object_type}]{neg}"


ERROR_KINDS = {"fp": ("false positives", "false_positives"), "misses": ("misses", "misses")}


def format_errors(scores: Sequence[SentenceScore], limit: int, kinds: Sequence[str] = ("fp", "misses")) -> str:
    """Up to `limit` errors of each kind, each with its sentence; a false positive also lists the sentence's gold."""
    lines = []
    for kind in kinds:
        title, attr = ERROR_KINDS[kind]
        total = sum(len(getattr(s, attr)) for s in scores)
        lines.append(f"\n== {title} ({min(limit, total)} of {total}) ==")
        shown = 0
        for s in scores:
            for t in getattr(s, attr):
                if shown >= limit:
                    break
                lines.append(f"{s.key}: {_triple_text(t)}\n    | {s.text}")
                if kind == "fp":
                    lines.extend(f"    gold: {_triple_text(g)}" for g in s.gold_relations)
                    if not s.gold_relations:
                        lines.append("    gold: (none)")
                shown += 1
    return "\n".join(lines)


def main() -> None:
    """Score the extractor on the gold set and print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gold", type=Path, default=DEFAULT_GOLD, help="folder of gold *.jsonl files")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="root of the corpora (../shared/data)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--show-errors", type=int, default=0, metavar="N", help="print N false positives and N misses")
    parser.add_argument("--show", choices=[*ERROR_KINDS, "both"], default="both",
                        help="which errors --show-errors prints (fp: false positives, with the sentence's gold)")
    parser.add_argument("--parser", default="sm", help="the extractor's spaCy pipeline: a name of "
                        "graph_builder.extraction.parsers.PARSERS (sm, md)")
    parser.add_argument("--against", default=None, metavar="PARSER", help="also run this parser on the same "
                        "sentences and print the paired difference (--parser minus this) with its interval")
    parser.add_argument("--without-reporter", action="store_true", help="score the rules without the reported "
                        "clause's pronoun read as its reporter (\"Acme said it would buy Y\"): the gold set lists no "
                        "relation reached through a pronoun, so this is the figure on its own convention")
    parser.add_argument("--without-posts", action="store_true", help="score the rules without a post written before "
                        "its holder read as a relation (\"Apple's chief executive Tim Cook\", \"Apple chief executive Tim "
                        "Cook\"): the gold set's guidelines list pre-nominal titles and possessives as no relation")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    args = parser.parse_args()

    if args.without_reporter:
        import graph_builder.extraction.inheritance as inheritance

        inheritance.REPORTER_PRONOUNS = frozenset()
    if args.without_posts:
        import graph_builder.extraction.frames as frames
        import graph_builder.extraction.relations as relations

        frames.post_owner = lambda *_args, **_kwargs: None  # type: ignore[assignment]
        relations.owned_post_frames = lambda _name: []  # type: ignore[assignment]
    gold = load_gold(args.gold)
    if not gold:
        parser.error(f"no gold sentences in {args.gold}/*.jsonl")
    if not args.data.is_dir():
        parser.error(f"corpus folder {args.data} not found (the gold set references ../shared/data)")
    from graph_builder.extraction import parser_model

    spec = parser_model(args.parser)
    run = evaluate(gold, args.data, corpus_extractor(spec.name.value))
    result = report(run, args.bootstrap, args.seed, spec.extractor)
    if args.against:
        other = parser_model(args.against)
        other_run = evaluate(gold, args.data, corpus_extractor(other.name.value))
        result["against"] = report(other_run, args.bootstrap, args.seed, other.extractor)
        result["paired"] = {m: paired_difference(run.scores, other_run.scores, m, args.bootstrap, args.seed)
                            for m in PAIRED_METRICS}
    print(json.dumps(result, indent=2) if args.json else format_report(result))
    if args.against and not args.json:
        print(format_report(result["against"]))  # type: ignore[arg-type]
        print(f"\npaired difference, {spec.extractor} minus {result['against']['extractor']} "  # type: ignore[index]
              "(percentage points, 95% bootstrap interval over sentences):")
        for metric, cell in result["paired"].items():  # type: ignore[attr-defined]
            print(f"  {metric:<22} {100 * cell['value']:+.1f} [{100 * cell['low']:+.1f}, {100 * cell['high']:+.1f}]")
    if args.show_errors:
        kinds = list(ERROR_KINDS) if args.show == "both" else [args.show]
        print(format_errors(run.scores, args.show_errors, kinds))


if __name__ == "__main__":
    main()
