"""Turn the Reuters headlines (2007-2011) into a corpus egqa extracts, to measure whether more news helps the graphs.

Reads ../shared/data/reuters_headlines/reuters_headlines_2007_2011.jsonl.gz (`id`, `date`, `ts`, `title`) and writes
JSON Lines in the corpus shape (`id`, `date`, `title` empty, `text` the headline as a sentence, `split` TRAIN: the
headlines cover the graph-induction period only), cleaned as the extractor reads an article's title
(`graph_builder.headlines.clean_headline`: markers, labels and sources go, "X to buy Y" reads "X will buy Y"); items
that state no event are dropped and counted by kind (tables, diaries, market updates, fact boxes, timelines, briefs,
polls, previews, headlines in capitals). The output is research data: write it outside the repository (default out/headlines/).
Usage: python bench/headlines.py [--out out/headlines/headlines.jsonl.gz]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graph_builder.headlines import clean_headline  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "reuters_headlines" / "reuters_headlines_2007_2011.jsonl.gz"


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
            text, why = clean_headline(str(record.get("title", "")))
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
