"""Draw the sentences of the ding2014 half of the extraction gold set (reproducible: fixed seed).

Articles are drawn uniformly at random (without replacement) from the lines of
../shared/data/reuters_ding2014/reuters_ding2014.jsonl.gz, skipping empty bodies, then one sentence uniformly from the article's
sentences as `split_sentences` cuts the raw body. Prints one JSON object per sentence: the gold-set reference
fields (corpus, file, article_id, line, start, end, sha1), empty `relations`, and the `text` for the
annotator. The text is research data: write it outside the repository (drop `text` before committing).
Usage: python bench/extraction_sample.py [--n 110] [--seed 2014] > /tmp/ding_sample.jsonl
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


def split_sentences(body: str) -> list[tuple[int, int]]:
    """Cut a raw body into trimmed sentence spans (start, end) with a simple punctuation regex."""
    spans, start = [], 0
    for match in _BOUNDARY_RE.finditer(body):
        if body[match.start()] == "." and _is_abbreviation(body, match.start()):
            continue
        spans.append((start, match.end()))
        start = match.end()
    spans.append((start, len(body)))
    out = []
    for s, e in spans:
        while s < e and body[s].isspace():
            s += 1
        while e > s and body[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


def main() -> None:
    """Draw the sample and print it as JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--n", type=int, default=110)
    parser.add_argument("--seed", type=int, default=2014)
    args = parser.parse_args()
    path = args.data / DING_FILE
    if not path.is_file():
        parser.error(f"{path} not found")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        total = sum(1 for _ in handle)
    rng = random.Random(args.seed)
    # A few spare draws stand in for articles with an empty body; the draw order is kept.
    drawn = rng.sample(range(1, total + 1), min(total, args.n + 20))
    wanted = set(drawn)
    records: dict[int, dict[str, str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            if number in wanted:
                records[number] = json.loads(raw)
    rows = []
    for number in drawn:
        record = records[number]
        spans = split_sentences(record["body"])
        if not spans:
            continue
        start, end = rng.choice(spans)
        raw = record["body"][start:end]
        rows.append({"corpus": "reuters_ding2014", "file": DING_FILE, "article_id": record["file"], "line": number,
                     "start": start, "end": end, "sha1": hashlib.sha1(raw.encode("utf-8")).hexdigest(),
                     "relations": [], "text": " ".join(raw.split())})
        if len(rows) == args.n:
            break
    for row in sorted(rows, key=lambda r: r["line"]):
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
