"""Turn the Reuters headlines (2007-2011) into a corpus egqa extracts, to measure whether more news helps the graphs.

Reads ../shared/data/reuters_headlines/reuters_headlines_2007_2011.jsonl.gz (`id`, `date`, `ts`, `title`) and writes
JSON Lines in the corpus shape (`id`, `date`, `title` empty, `text` the headline as a sentence, `split` TRAIN: the
headlines cover the graph-induction period only). Cleaning: update and repeat markers go (`UPDATE 1-`, `RPT-`,
`REFILE-`, `CORRECTED-`, `EXCLUSIVE-`), and so do trailing source tags (`-paper`, `--filing`, `: report`);
non-event items are dropped and counted by kind (tables, diaries, market updates, fact boxes, timelines, briefs,
polls, previews). The output is research data: write it outside the repository (default out/headlines/).
Usage: python bench/headlines.py [--out out/headlines/headlines.jsonl.gz]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "reuters_headlines" / "reuters_headlines_2007_2011.jsonl.gz"
_MARKERS = re.compile(r"^(?:(?:UPDATE|RPT|REFILE|CORRECTED|CORRECTION|EXCLUSIVE|URGENT|FEATURE|ANALYSIS|WRAPUP)"
                      r"(?:\s*\d+)?\s*-\s*)+", re.IGNORECASE)
_SOURCE_TAG = re.compile(r"\s*(?:-{1,2}\s*|:\s*)(?:paper|papers|report|reports|source|sources|filing|sources say|"
                         r"newspaper|media|agency|statement|document|official|officials|TV|radio|trade|traders|"
                         r"dealers|analysts)\s*$", re.IGNORECASE)
# A desk's section prefix: "EMERGING MARKETS-Latam stocks climb" (three capitals at least, so "US-China" stays).
_SECTION = re.compile(r"^[A-Z][A-Z &/+]{2,}-\s*(?=[A-Z0-9])")
_NON_EVENTS = {
    "table": re.compile(r"^TABLE\s*-", re.IGNORECASE),
    "diary": re.compile(r"^(?:DIARY|CALENDAR)\b", re.IGNORECASE),
    "market update": re.compile(r"^(?:Stock Market Update|NY Money|Money Markets|.*Closing (?:Prices|Rates))",
                                re.IGNORECASE),
    "fact box": re.compile(r"^(?:FACTBOX|TIMELINE|Q\+A|BIOGRAPHY|KEY FACTS|INSTANT VIEW|SCENARIOS|GRAPHIC)\b",
                           re.IGNORECASE),
    "brief": re.compile(r"^(?:BRIEF|BUZZ|RESEARCH ALERT|PRESS DIGEST|REUTERS POLL|POLL|PREVIEW|CORRECTED TABLE)\b",
                        re.IGNORECASE),
}


def clean(title: str) -> tuple[str | None, str | None]:
    """The headline as a sentence, or None with the kind of non-event item it is."""
    for kind, pattern in _NON_EVENTS.items():
        if pattern.match(title):
            return None, kind
    text = _SOURCE_TAG.sub("", _SECTION.sub("", _MARKERS.sub("", title.strip()))).strip(" -:;")
    if len(text.split()) < 3:
        return None, "too short"
    return (text if text[-1] in ".?!" else text + "."), None


def main() -> None:
    """Write the corpus and print what was kept and dropped."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=Path("out/headlines/headlines.jsonl.gz"))
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    dropped: Counter[str] = Counter()
    kept = 0
    with gzip.open(args.source, "rt", encoding="utf-8") as source, gzip.open(args.out, "wt", encoding="utf-8") as out:
        for line in source:
            record = json.loads(line)
            text, why = clean(str(record.get("title", "")))
            if text is None:
                dropped[why or "?"] += 1
                continue
            out.write(json.dumps({"id": f"h{record['id']}", "date": record["date"], "title": "", "text": text,
                                  "split": "TRAIN"}) + "\n")
            kept += 1
    print(f"kept {kept:,} headlines; dropped {sum(dropped.values()):,}: {dict(dropped.most_common())}")
    print(f"corpus: {args.out}")


if __name__ == "__main__":
    main()
