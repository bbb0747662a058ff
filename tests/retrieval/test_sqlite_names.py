"""Names that end with a question's name, found in SQLite through the index of last words, not a scan."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from pathlib import Path

from retrieval.backends.sqlite import _LAST_WORD, SQLiteStore
from tests.retrieval.rows import triple

MAR4 = dt.date(1987, 3, 4)


def test_suffix_lookup_reads_the_last_word_index(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db", create=True)
    store.close()
    with sqlite3.connect(tmp_path / "s.db") as conn:
        plan = conn.execute(f"EXPLAIN QUERY PLAN SELECT arg FROM arg_types WHERE {_LAST_WORD} = ? AND arg LIKE ?",
                            ("obama", "% obama")).fetchall()
    assert "arg_types_last" in str(plan)


def test_suffix_matches_equal_a_reference_on_random_names(tmp_path: Path) -> None:
    rng = random.Random(5)
    words = ["new", "york", "bell", "atlantic", "obama", "x", "a_b", "10%", "co"]
    names = sorted({" ".join(rng.choice(words) for _ in range(rng.randint(1, 4))) for _ in range(300)})
    store = SQLiteStore(tmp_path / "s.db", create=True)
    store.add_triples([triple(i, MAR4, name, "paris") for i, name in enumerate(names)])
    for asked in ["york", "new york", "bell atlantic", "a_b", "10%", "co", "x x", "atlantic co"]:
        got = {m.name for m in store.names_for(asked, limit=10_000) if m.how == "suffix"}
        assert got == {n for n in names if n.endswith(" " + asked)}, asked
    store.close()
