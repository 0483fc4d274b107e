"""``HOLON_PLUGINS`` loads plugin modules by import path: how the broken adapters get in."""

from __future__ import annotations

import pytest
from holon_conformance.suite.broken_expected import TARGETS

from holon_core.errors import PluginError
from holon_core.hooks.manager import load_plugins


def test_holon_plugins_registers_modules_by_import_path() -> None:
    plugins = load_plugins({"HOLON_PLUGINS": "holon_conformance.suite.broken"})
    assert set(TARGETS) <= set(plugins.engine_names())
    assert plugins.engine_owner("broken-prompts") == "holon_conformance.suite.broken"


def test_without_holon_plugins_the_broken_adapters_stay_out() -> None:
    assert not set(TARGETS) & set(load_plugins({}).engine_names())


def test_disable_blocks_a_module_and_a_bad_path_is_a_clear_error() -> None:
    env = {
        "HOLON_PLUGINS": "holon_conformance.suite.broken",
        "HOLON_DISABLE_PLUGINS": "holon_conformance.suite.broken",
    }
    assert "broken-prompts" not in load_plugins(env).engine_names()
    with pytest.raises(PluginError, match="no_such_module"):
        load_plugins({"HOLON_PLUGINS": "no_such_module"})
