"""The predicate format is read and written in one module; nothing else spells its regular expressions."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_builder.predicates import halves, is_negated, is_normalised, parse, predicate_of


@pytest.mark.parametrize("text", ["(visit.1,visit.in.2)", "NEG__want__(buy.1,buy.from.2)", "(fall.1,fall.to.2)"])
def test_parse_and_write_back(text: str) -> None:
    parsed = parse(text)
    assert parsed is not None and parsed.text() == text


def test_the_parts_of_a_predicate() -> None:
    parsed = parse("NEG__want__(buy.1,buy.from.2)")
    assert parsed is not None
    assert (parsed.prefixes, parsed.left, parsed.left_slot, parsed.right, parsed.right_slot, parsed.common()) == (
        ("NEG", "want"), ("buy",), "1", ("buy", "from"), "2", 1)
    assert halves("(shop.1,shop.in.2)#person#location".split("#")[0]) == ("", ["shop"], ["shop", "in"])
    assert predicate_of("(shop.1,shop.in.2)#person#location") == "(shop.1,shop.in.2)"
    assert is_negated("NEG__(win.1,win.2)") and is_negated("want__NEG__(win.1,win.2)") and not is_negated("(a.1,a.2)")


@pytest.mark.parametrize("text", ["be find in", "(a.1,b.x)", "((a.1,b.2)", "p(__(a.1,b.2)", "x(a.1,b.2)", "(.1,a.2)"])
def test_strict_parse_refuses_other_shapes(text: str) -> None:
    assert parse(text) is None


def test_a_clients_normalised_predicate() -> None:
    assert is_normalised("(visit.1,visit.2)") and is_normalised("NEG__want__(buy.1,buy.2)")
    assert not is_normalised("(visit.1, visit.2)") and not is_normalised("(visit.1,visit.2)#person#location")
    assert not is_normalised("was fined by")


def test_no_other_module_spells_the_format() -> None:
    root = Path(__file__).resolve().parents[2]
    spelled = [str(path.relative_to(root)) for package in ("graph_builder", "retrieval", "service", "benchmark")
               for path in (root / package).rglob("*.py")
               if path.name != "predicates.py" and r"\((?P<left>" in path.read_text(encoding="utf-8")]
    assert spelled == []
