"""The demo's closing line: why the graph measures tie on a small corpus, counted from the run's own scores."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from service.demo import why_measures_tie


def test_the_demo_says_how_few_propositions_meet_an_edge(tmp_path: Path) -> None:
    scores = tmp_path / "scores.jsonl"
    rows = [{"id": "a", "binc": 1.0, "lin": 1.0, "exact": 1.0},  # scored by its own predicate
            {"id": "b", "binc": 0.4, "lin": 0.2, "exact": 0.0},  # scored through an edge
            {"id": "c", "binc": 0.0, "lin": 0.0, "exact": 0.0}]
    scores.write_bytes(b"\n".join(orjson.dumps(r) for r in rows))
    tied = {"binc": {"ap_norm": 0.136}, "lin": {"ap_norm": 0.136}, "exact": {"ap_norm": 0.1}}
    line = why_measures_tie(tied, scores, ["binc", "lin", "exact"])
    assert line.startswith("Why the measures tie: the graphs score 2 of the 3 test propositions above 0, 1 of them "
                           "through an entailment edge")
    assert line.endswith("(docs/results.md).") and "\n" not in line
    apart = {**tied, "lin": {"ap_norm": 0.2}}
    assert why_measures_tie(apart, scores, ["binc", "lin", "exact"]).startswith("Why the measures barely differ:")


def test_the_demo_replaces_an_extraction_of_other_settings_in_its_folder(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """`make demo` after an upgrade of the extractor finds its folder holding the old extraction: it extracts again
    (and says so) instead of stopping on the refusal `egqa extract` gives without --overwrite."""
    from graph_builder import pipeline
    from service import demo

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(orjson.dumps({"id": "a1", "date": "2012-01-02", "title": "Acme buys Widget",
                                    "body": "Acme Corp bought Widget Inc on Monday."}).decode() + "\n")
    out = tmp_path / "demo"
    (out / "triples").mkdir(parents=True)
    (out / "triples" / pipeline.MANIFEST).write_bytes(orjson.dumps({"extractor": "egqa.spacy-dep.v1"}))
    said: list[str] = []

    class Stop(Exception):
        pass

    def no_graphs(*args: object, **kwargs: object) -> None:
        raise Stop

    bars: list[tuple[str, int | None]] = []
    counted: list[int] = []

    def progress(name: str, total: int | None):  # noqa: ANN202 - the demo's bar factory
        bars.append((name, total))
        return counted.append

    monkeypatch.setattr(demo, "build_graphs", no_graphs)
    with pytest.raises(Stop):
        demo.run_demo(corpus, out, say=said.append, progress_factory=progress)
    assert any("held an extraction by another extractor" in line for line in said)
    # Reading shows its total (records counted first), then extraction its own (articles).
    assert bars == [("read", 1), ("extract", 1)] and sum(counted) == 2
    assert orjson.loads((out / "triples" / pipeline.MANIFEST).read_bytes())["extractor"] != "egqa.spacy-dep.v1"
