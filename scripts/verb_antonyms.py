"""Write graph_builder/data/verb_antonyms.tsv: the one-word verb antonyms of WordNet 3.0.

    python scripts/verb_antonyms.py        # needs the `benchmark` extra and Debian's WordNet (see benchmark/wordnet.py)

The scorers read the file (graph_builder/graphs/antonyms.py), so serving needs neither NLTK nor WordNet.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmark.wordnet import open_wordnet  # noqa: E402
from graph_builder.graphs.antonyms import ANTONYMS_FILE  # noqa: E402

HEADER = """# One-word verbs that WordNet 3.0 lists as antonyms, one pair a line (written by scripts/verb_antonyms.py).
# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. THIS SOFTWARE AND DATABASE IS PROVIDED
# "AS IS" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED.
# Permission to use, copy, modify and distribute this software and database and its documentation for any purpose
# and without fee or royalty is hereby granted, provided that this copyright notice appears on ALL copies.
"""


def main() -> None:
    pairs = open_wordnet().verb_antonyms()
    ANTONYMS_FILE.write_text(HEADER + "".join(f"{a}\t{b}\n" for a, b in pairs), encoding="utf-8")
    print(f"{len(pairs)} pairs -> {ANTONYMS_FILE}")


if __name__ == "__main__":
    main()
