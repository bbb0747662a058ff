"""The one table of configuration variables (docs/configuration.md) matches Settings and docker-compose.yml, both ways."""

from __future__ import annotations

from service.settings import Settings
from tests.deploy.deployfiles import compose_text, interpolations, readme_config_table, service_environment

COMPOSE_ONLY = "read by Compose"
PASSED_THROUGH = "yours, if set"


def _code(value: object) -> str:
    return "unset" if value is None else f"`{value}`"


def settings_rows() -> dict[str, list[str]]:
    """The table's EGQA_* rows, made from Settings and the egqa service's compose environment."""
    env = service_environment("egqa")
    rows = {}
    for name, field in Settings.model_fields.items():
        var = f"EGQA_{name.upper()}"
        in_compose = PASSED_THROUGH if env.get(var, "") is None else _code(env.get(var))
        rows[var] = [_code(field.default), in_compose, field.description or ""]
    return rows


def _render(rows: dict[str, list[str]]) -> str:
    return "\n".join(f"| `{var}` | {' | '.join(cells)} |" for var, cells in rows.items())


def test_every_setting_has_its_row_and_every_egqa_row_is_a_setting() -> None:
    table = readme_config_table()
    documented = {var: cells for var, cells in table.items() if var.startswith("EGQA_")}
    expected = settings_rows()
    assert documented == expected, f"docs/configuration.md's EGQA_* rows are stale; they should read:\n{_render(expected)}"


def test_compose_variables_are_documented_with_their_defaults_and_only_those() -> None:
    table = readme_config_table()
    documented = {var: cells for var, cells in table.items() if not var.startswith("EGQA_")}
    used = interpolations(compose_text())
    assert set(documented) == set(used)
    for var, cells in documented.items():
        assert cells[0] == _code(used[var]), var
        assert cells[1] == COMPOSE_ONLY, var
        assert cells[2], f"{var} has no meaning"
