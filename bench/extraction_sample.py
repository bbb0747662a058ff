"""Draw sentences for the extraction gold set, or a fresh sample to read (reproducible: fixed seed).

ding2014 (default): articles are drawn uniformly at random (without replacement) from the lines of
../shared/data/reuters_ding2014/reuters_ding2014.jsonl.gz, skipping empty bodies, then one sentence uniformly from the
article's sentences as `split_sentences` cuts the raw body.
reuters21578: the procedure of tests/data/extraction_gold/reuters21578.SAMPLING.md (eligible articles of
reut2-*.sgm, paragraphs, one sentence per article); `--seed 21578 --n 110` redraws that half's spans.
Prints one JSON object per sentence: the gold-set reference fields (corpus, file, article_id, [line,] start, end,
sha1), empty `relations`, and the `text` for the annotator; `--extract` adds the extractor's `predicted` triples
(to read a fresh sample by hand). The text is research data: write it outside the repository (drop `text` before
committing).
Usage: python bench/extraction_sample.py [--corpus ding2014|reuters21578] [--n 110] [--seed 2014] [--extract]
       [--parser sm|md] > /tmp/sample.jsonl
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
import sys
from pathlib import Path

DING_FILE = "reuters_ding2014/reuters_ding2014.jsonl.gz"
REUTERS_DIR = "reuters21578"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
# A period after one of these words (or a lone initial, or an initialism such as U.S.) does not end a sentence.
ABBREVIATIONS = frozenset({
    "mr", "mrs", "ms", "dr", "prof", "sen", "rep", "gov", "gen", "col", "lt", "sgt", "st", "jr", "sr", "rev",
    "corp", "inc", "co", "ltd", "bros", "no", "vs", "etc", "jan", "feb", "mar", "apr", "aug", "sept", "sep",
    "oct", "nov", "dec", "mt", "ft", "pt", "approx", "dept", "est", "fig", "plc",
})
_BOUNDARY_RE = re.compile(r"[.!?][\"'’”)]*(?=\s+[\"'‘“(]?[A-Z0-9])")
_WORD_BEFORE_RE = re.compile(r"([A-Za-z.]+)\.$")


def _is_abbreviation(text: str, dot: int) -> bool:
    match = _WORD_BEFORE_RE.search(text[max(0, dot - 20):dot + 1])
    if not match:
        return False
    word = match.group(1)
    return word.lower() in ABBREVIATIONS or len(word) == 1 or bool(re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", word))


def _trimmed(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans with surrounding whitespace cut off; spans left empty are dropped."""
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


def split_sentences(body: str) -> list[tuple[int, int]]:
    """Cut a raw body into trimmed sentence spans (start, end) with a simple punctuation regex."""
    spans, start = [], 0
    for match in _BOUNDARY_RE.finditer(body):
        if body[match.start()] == "." and _is_abbreviation(body, match.start()):
            continue
        spans.append((start, match.end()))
        start = match.end()
    spans.append((start, len(body)))
    return _trimmed(body, spans)


# Reuters-21578, as reuters21578.SAMPLING.md describes it.
_REUTERS_RE = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
_NEWID_RE = re.compile(r'NEWID="(\d+)"')
_BODY_RE = re.compile(r"<BODY>(.*?)</BODY>", re.S)
_SIGNOFF_RE = re.compile(r"\s*(?:Reuter|REUTER)?\s*(?:&#3;)?\s*$")
_PARAGRAPH_RE = re.compile(r"\n(?=[ \t]+\S)|\n\s*\n")
_SGML_BOUNDARY_RE = re.compile(r"[.!?][\"')]*(?=\s+[\"'(]?(?:[A-Z]|&lt;))")


def reuters_articles(data: Path) -> list[tuple[str, str, str]]:
    """Eligible Reuters-21578 articles in file order: (file, NEWID, raw body), sign-off left in the body."""
    out = []
    for path in sorted((data / REUTERS_DIR).glob("reut2-*.sgm")):
        for match in _REUTERS_RE.finditer(path.read_bytes().decode("latin-1")):
            body = _BODY_RE.search(match.group(2))
            newid = _NEWID_RE.search(match.group(1))
            if body is None or newid is None:
                continue
            text = _SIGNOFF_RE.sub("", body.group(1))
            if text.strip() and text.strip() != "Blah blah blah.":
                out.append((f"{REUTERS_DIR}/{path.name}", newid.group(1), body.group(1)))
    return out


def reuters_sentences(body: str) -> list[tuple[int, int]]:
    """Trimmed sentence spans of a raw Reuters-21578 body: paragraphs (indented lines), then a punctuation regex."""
    text = _SIGNOFF_RE.sub("", body)
    spans = []
    cuts = [0, *(p for m in _PARAGRAPH_RE.finditer(text) for p in (m.start(), m.end())), len(text)]
    for p_start, p_end in zip(cuts[::2], cuts[1::2]):
        start = p_start
        for match in _SGML_BOUNDARY_RE.finditer(text, p_start, p_end):
            if text[match.start()] == "." and _is_abbreviation(text, match.start()):
                continue
            spans.append((start, match.end()))
            start = match.end()
        spans.append((start, p_end))
    return _trimmed(text, spans)


def draw_reuters(data: Path, n: int, seed: int) -> tuple[list[dict[str, object]], list[str]]:
    """n sentences, one per article drawn uniformly among the eligible ones, in file then article order."""
    articles = reuters_articles(data)
    rng = random.Random(seed)
    picks = rng.sample(range(len(articles)), min(n, len(articles)))
    rows: list[dict[str, object]] = []
    raws: list[str] = []
    for index in picks:
        file, newid, body = articles[index]
        spans = reuters_sentences(body)
        start, end = spans[rng.randrange(len(spans))]
        raw = body[start:end]
        raws.append(raw)
        rows.append({"corpus": "reuters21578", "file": file, "article_id": newid, "start": start, "end": end,
                     "sha1": hashlib.sha1(raw.encode("utf-8")).hexdigest(), "relations": [],
                     "text": " ".join(raw.split())})
    # Printed in file then article order; `raw` is the exact span (hard wraps kept) the scorer would read.
    order = sorted(range(len(rows)), key=lambda i: picks[i])
    return [rows[i] for i in order], [raws[i] for i in order]


def draw_ding(data: Path, n: int, seed: int) -> tuple[list[dict[str, object]], list[str]]:
    """n sentences, one per article drawn uniformly from the ding2014 lines (empty bodies passed over), by line."""
    path = data / DING_FILE
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        total = sum(1 for _ in handle)
    rng = random.Random(seed)
    # A few spare draws stand in for articles with an empty body; the draw order is kept.
    drawn = rng.sample(range(1, total + 1), min(total, n + 20))
    wanted = set(drawn)
    records: dict[int, dict[str, str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            if number in wanted:
                records[number] = json.loads(raw)
    rows: list[dict[str, object]] = []
    raws: list[str] = []
    for number in drawn:
        record = records[number]
        spans = split_sentences(record["body"])
        if not spans:
            continue
        start, end = rng.choice(spans)
        raw = record["body"][start:end]
        raws.append(raw)
        rows.append({"corpus": "reuters_ding2014", "file": DING_FILE, "article_id": record["file"], "line": number,
                     "start": start, "end": end, "sha1": hashlib.sha1(raw.encode("utf-8")).hexdigest(),
                     "relations": [], "text": " ".join(raw.split())})
        if len(rows) == n:
            break
    order = sorted(range(len(rows)), key=lambda i: rows[i]["line"])  # type: ignore[arg-type, return-value]
    return [rows[i] for i in order], [raws[i] for i in order]


def add_predictions(rows: list[dict[str, object]], raws: list[str], parser: str = "sm") -> None:
    """Clean each drawn span as the scorer does, run the corpus extractor (with the named parser) on it and store
    its triples."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("extraction_eval", Path(__file__).with_name("extraction_eval.py"))
    assert spec is not None and spec.loader is not None
    scorer = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = scorer  # its dataclasses look their module up there
    spec.loader.exec_module(scorer)
    extract, prepare_sentence = scorer.corpus_extractor(parser), scorer.prepare_sentence
    keys = ("subject", "predicate", "object", "subject_type", "object_type", "negated")
    for row, raw in zip(rows, raws, strict=True):
        row["clean"] = prepare_sentence(raw, str(row["corpus"]))
        row["predicted"] = [{k: t[k] for k in keys} for t in extract(str(row["clean"]))]


def main() -> None:
    """Draw the sample and print it as JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--corpus", choices=("ding2014", "reuters21578"), default="ding2014")
    parser.add_argument("--n", type=int, default=110)
    parser.add_argument("--seed", type=int, default=2014)
    parser.add_argument("--extract", action="store_true", help="add the extractor's triples of each sentence")
    parser.add_argument("--parser", default="sm", help="the extractor's spaCy pipeline for --extract (sm, md)")
    args = parser.parse_args()
    if args.corpus == "ding2014":
        if not (args.data / DING_FILE).is_file():
            parser.error(f"{args.data / DING_FILE} not found")
        rows, raws = draw_ding(args.data, args.n, args.seed)
    else:
        if not (args.data / REUTERS_DIR).is_dir():
            parser.error(f"{args.data / REUTERS_DIR} not found")
        rows, raws = draw_reuters(args.data, args.n, args.seed)
    if args.extract:
        add_predictions(rows, raws, args.parser)
    for row in rows:
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
