"""bench/extraction_blind.py: the recorded verdicts are well formed, and its precision matches hand-computed values."""

from __future__ import annotations

import json

from tests.bench.scripts import BENCH, load_script

blind = load_script("extraction_blind")


def test_precision_and_its_interval_by_hand() -> None:
    # two sentences: 1 of 2 stated, 2 of 2 stated -> 3/4
    p, lo, hi = blind.precision_interval([(2, 1), (2, 2)], n_boot=400)
    assert p == 0.75
    assert 0.5 <= lo <= 0.75 <= hi <= 1.0
    assert blind.precision_interval([(3, 3)], n_boot=50) == (1.0, 1.0, 1.0)  # one sentence: nothing to resample


def test_recorded_counts_per_version_and_sentence() -> None:
    triples = [{"sentence": 0, "stated": True, "in": ["v3", "v4"]},
               {"sentence": 0, "stated": False, "in": ["v3"]},
               {"sentence": 1, "stated": True, "in": ["v4"]}]
    assert sorted(blind.recorded(triples, "v3")) == [(2, 1)]
    assert sorted(blind.recorded(triples, "v4")) == [(1, 1), (1, 1)]


def test_the_verdicts_file_holds_no_sentence_text_and_reproduces_the_readme_figures() -> None:
    data = json.loads((BENCH / "data" / "extraction_blind.json").read_text())
    assert data["format"] == "egqa.extraction-blind.v1"
    final = next(r for r in data["reads"] if r["name"] == "s8")
    for sample in final["samples"]:
        assert set(sample) == {"corpus", "seed", "n", "triples"}
        for t in sample["triples"]:
            assert set(t) == {"sentence", "subject", "predicate", "object", "types", "stated", "in"}
    v3 = [c for s in final["samples"] for c in blind.recorded(s["triples"], "v3")]
    v4 = [c for s in final["samples"] for c in blind.recorded(s["triples"], "v4")]
    assert (sum(b for _, b in v3), sum(a for a, _ in v3)) == (47, 61)
    assert (sum(b for _, b in v4), sum(a for a, _ in v4)) == (47, 58)


def test_wilson_interval_by_hand() -> None:
    p, lo, hi = blind.wilson_interval(30, 40)
    assert p == 0.75
    assert (round(lo, 3), round(hi, 3)) == (0.598, 0.858)  # the textbook 95% Wilson interval of 30/40
    assert blind.wilson_interval(10, 10)[2] == 1.0 and blind.wilson_interval(0, 10)[1] == 0.0


def test_the_parser_read_holds_both_parsers_and_reproduces_the_docs_figures() -> None:
    data = json.loads((BENCH / "data" / "extraction_blind.json").read_text())
    read = next(r for r in data["reads"] if r["name"] == "s9")
    assert read["versions"] == ["sm", "md"]
    (sample,) = read["samples"]
    assert (sample["corpus"], sample["seed"], sample["n"]) == ("ding2014", 3131, 80)
    counts = {}
    for version in read["versions"]:
        per = blind.recorded(sample["triples"], version)
        counts[version] = (sum(b for _, b in per), sum(a for a, _ in per))
    assert counts == {"sm": (41, 50), "md": (46, 56)}
    assert all(set(t["in"]) <= {"sm", "md"} and t["in"] for t in sample["triples"])


def test_the_v11_read_reproduces_the_docs_figures() -> None:
    data = json.loads((BENCH / "data" / "extraction_blind.json").read_text())
    read = next(r for r in data["reads"] if r["name"] == "s13")
    (sample,) = read["samples"]
    assert (sample["corpus"], sample["seed"], sample["n"]) == ("ding2014", 7171, 200)
    per = blind.recorded(sample["triples"], "v11")
    assert (sum(b for _, b in per), sum(a for a, _ in per)) == (111, 148)


def test_the_v11_change_reads_give_the_docs_figures() -> None:
    """Both annotators of what v11 changed: the v10 triples it restates under a controller, by rule, and kept ones."""
    counts = {}
    for name in ("d4-annotator1", "d4-annotator2"):
        triples = _diff_read(name)
        for t in triples:
            assert set(t) == {"group", "rule_set", "triple", "v11", "stated"}
        counts[name] = _stated_by_rule(triples, ("M", "I", "K"))
    assert counts == {"d4-annotator1": {"M": (4, 40), "I": (5, 30), "K": (30, 40)},
                      "d4-annotator2": {"M": (4, 40), "I": (6, 30), "K": (29, 40)}}


def test_the_post_read_gives_the_docs_figures() -> None:
    counts = _stated_by_rule(_diff_read("d5"), ("R", "F", "K"))
    assert counts == {"R": (4, 30), "F": (25, 30), "K": (26, 30)}


def test_the_purpose_clause_read_gives_the_docs_figures() -> None:
    """Both annotators of a trial rule not adopted: purpose clauses under the verb they hang on, and kept triples."""
    one, two = _diff_read("d6-annotator1"), _diff_read("d6-annotator2")
    for t in [*one, *two]:
        assert set(t) == {"group", "rule_set", "triple", "trial", "stated"}
    counts = {"d6-annotator1": _stated_by_rule(one, ("P", "K")), "d6-annotator2": _stated_by_rule(two, ("P", "K"))}
    assert counts == {"d6-annotator1": {"P": (18, 40), "K": (24, 30)}, "d6-annotator2": {"P": (17, 40), "K": (24, 30)}}
    assert [t["triple"] for t in one] == [t["triple"] for t in two]
    assert sum(a["stated"] == b["stated"] for a, b in zip(one, two)) == 69


def _diff_read(name: str) -> list[dict[str, object]]:
    """The verdicts of one read of bench/data/extraction_diff_reads.json."""
    data = json.loads((BENCH / "data" / "extraction_diff_reads.json").read_text())
    return next(r for r in data["reads"] if r["name"] == name)["triples"]  # type: ignore[no-any-return]


def _stated_by_rule(triples: list[dict[str, object]], rules: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """Per rule set: (triples read as stated, triples read)."""
    return {rule: (sum(bool(t["stated"]) for t in triples if t["rule_set"] == rule),
                   sum(t["rule_set"] == rule for t in triples)) for rule in rules}


def test_the_v20_read_gives_the_docs_figures() -> None:
    """What v20 added, kept and removed on the slice, read once: 71 of 100, 38 of 60 and 24 of 45 stated."""
    read = _diff_read("d9-annotator1")
    assert all(set(t) == {"group", "rule_set", "triple", "stated"} and t["rule_set"] == "v20" for t in read)
    counts = {g: (sum(bool(t["stated"]) for t in read if t["group"] == g), sum(t["group"] == g for t in read))
              for g in ("added", "kept", "removed")}
    assert counts == {"added": (71, 100), "kept": (38, 60), "removed": (24, 45)}


def test_the_v23_read_gives_the_docs_figures() -> None:
    """What v23's direction adverbs added, beside triples both versions give, read once: 52 of 80 and 30 of 40."""
    read = _diff_read("d10-annotator1")
    assert all(set(t) == {"group", "rule_set", "triple", "stated"} and t["rule_set"] == "v23" for t in read)
    counts = {g: (sum(bool(t["stated"]) for t in read if t["group"] == g), sum(t["group"] == g for t in read))
              for g in ("added", "kept")}
    assert counts == {"added": (52, 80), "kept": (30, 40)}
    assert all(any(f".{adverb}" in str(t["triple"]) for adverb in ("away", "back", "ahead", "out", "forward"))
               for t in read if t["group"] == "added")
