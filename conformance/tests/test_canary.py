"""The canary kit plants what the installed adapters declare, and refuses a contradiction."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from holon_conformance.suite import canary


def _module(**tables: dict[str, str]) -> Any:
    return SimpleNamespace(**tables)


def test_every_installed_adapter_with_a_declaration_is_planted() -> None:
    declared = canary.declarations()
    assert len(declared) >= 4, f"adapters with a user_config module: {sorted(declared)}"
    for module in declared.values():
        assert set(module.HOME) <= set(canary.HOME_FILES)
        assert set(module.ANCESTORS) <= set(canary.PARENT_FILES)


def test_kinds_and_templates_become_marker_bearing_files() -> None:
    one = _module(HOME={"a/rules.md": "instructions", ".env": "dotenv"})
    two = _module(HOME={"a/rules.md": "instructions", "s.json": '{"x": "$marker"}'})
    files = canary.collect({"one": one, "two": two}, "HOME", "home")
    assert sorted(files) == [".env", "a/rules.md", "s.json"]
    assert canary.markers_in(files["a/rules.md"]) == {"HOLONCANARY-home-a-rules-md"}
    assert files[".env"] == "HOLONCANARY_HOME_ENV=HOLONCANARY-home-env\n"
    assert files["s.json"] == '{"x": "HOLONCANARY-home-s-json"}'


def test_two_adapters_declaring_one_path_differently_is_an_error() -> None:
    one = _module(ANCESTORS={".env": "dotenv"})
    two = _module(ANCESTORS={".env": "instructions"})
    with pytest.raises(ValueError, match=r"'one' and 'two' declare ANCESTORS file '.env'"):
        canary.collect({"one": one, "two": two}, "ANCESTORS", "parent")
