"""bench/question_sets.py: the sets it asks, and a comparison of two runs counted by hand."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.bench.scripts import load_script

sets = load_script("question_sets")


def _answers(folder: Path, name: str, rights: list[bool], evidence: list[int]) -> None:
    folder.mkdir(exist_ok=True)
    answers = [{"id": f"q{k}", "text": f"Question {k}.", "expected": k % 2 == 0, "right": r, "evidence": e,
                "score": 0.5 if e else 0.0} for k, (r, e) in enumerate(zip(rights, evidence, strict=True))]
    totals = {"questions": len(answers), "right": sum(rights), "true_right": sum(r for a, r in zip(answers, rights,
              strict=True) if a["expected"]), "true_with_evidence": sum(1 for a in answers if a["expected"] and
              a["evidence"]), "unread": 0}
    (folder / f"{name}.json").write_bytes(orjson.dumps({"totals": totals, "answers": answers}))


def test_every_blind_set_comes_first_then_ours() -> None:
    files = sets.question_files()
    names = [p.stem for p in files]
    assert names[0].startswith("written_blind") and names[-1].startswith("people_ask")
    assert sum(n.startswith("written_blind") for n in names) == 9
    headlines = [p.stem for p in sets.question_files(sets.HEADLINES)]
    assert headlines[0].startswith("written_blind") and headlines[-1].startswith("people_ask")
    assert len(headlines) == len(names) - 1  # set 7 was written as headlines


def test_two_runs_are_compared_set_by_set_and_summed_over_the_blind_sets(tmp_path: Path) -> None:
    _answers(tmp_path / "a", "written_blind_1-combined", [True, False, True], [1, 0, 0])
    _answers(tmp_path / "b", "written_blind_1-combined", [True, True, True], [1, 0, 2])
    _answers(tmp_path / "a", "people_ask-combined", [True], [1])
    _answers(tmp_path / "b", "people_ask-combined", [True], [1])
    lines = sets.compare(tmp_path / "a", tmp_path / "b")
    assert lines[0].startswith("people_ask-combined") and "right 1 -> 1 of 1" in lines[0]
    assert "right 2 -> 3 of 3" in lines[1] and "true finding evidence 1 -> 2" in lines[1]
    changed = [line.split()[0] for line in lines if line.startswith("    ")]
    assert changed == ["q1", "q2"]  # q1's answer, q2's evidence
    assert lines[-1] == "blind sets, combined: 2 -> 3 right of 3 (1 sets)"
