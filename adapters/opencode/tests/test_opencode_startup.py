"""What holon prepares in the run-local home so OpenCode's start skips work (``startup.py``).

No engine here: that OpenCode then skips the install and reads the models file is shown by
the end-to-end runs (behind a dead proxy) and measured by ``bench/opencode_overhead.py``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from holon_adapter_opencode import OpenCodeAdapter
from holon_adapter_opencode.home import DEFAULT_MODEL, config, write_home
from holon_adapter_opencode.startup import MODELS_FROM, PLUGIN_SDK

if TYPE_CHECKING:
    from pathlib import Path


def test_home_holds_the_plugin_sdk_as_installed_and_the_anthropic_models(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = write_home(home, config(DEFAULT_MODEL, "http://127.0.0.1:1", None), None)
    config_dir = home / ".config" / "opencode"
    assert (config_dir / "node_modules").is_dir()
    lock = json.loads((config_dir / "package-lock.json").read_text())
    assert PLUGIN_SDK in lock["packages"][""]["dependencies"]
    models_path = env["OPENCODE_MODELS_PATH"]
    assert models_path == str(home / ".cache" / "opencode" / "models.json")
    models = json.loads((home / ".cache" / "opencode" / "models.json").read_text())
    assert list(models) == ["anthropic"]
    assert models["anthropic"]["npm"] == "@ai-sdk/anthropic"
    # The default model keeps its prices (cost reporting) and limits.
    default = models["anthropic"]["models"][DEFAULT_MODEL.partition("/")[2]]
    assert default["cost"]["output"] > 0 and default["limit"]["context"] > 0


def test_another_provider_keeps_the_bundled_models(tmp_path: Path) -> None:
    env = write_home(tmp_path, config("openrouter/some-model", None, None), None)
    assert "OPENCODE_MODELS_PATH" not in env
    assert not (tmp_path / ".cache" / "opencode" / "models.json").exists()


def test_the_shipped_models_come_from_the_pinned_version() -> None:
    package = OpenCodeAdapter.engine_package
    assert package is not None
    assert package.version == MODELS_FROM, (
        "the pin moved: run adapters/opencode/scripts/models_snapshot.py, then set MODELS_FROM"
    )
