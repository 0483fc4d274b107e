"""``holon engines list|install``, run as a real command."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from holon_core.hooks.manager import load_plugins

pytestmark = pytest.mark.usefixtures("no_leftover_processes")


def holon(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "holon_core.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
        check=False,
    )


def declared_engines() -> set[str]:
    plugins = load_plugins()
    return {n for n in plugins.engine_names() if plugins.get_engine(n).engine_package}


def test_the_installed_adapters_declare_the_engines():
    assert {"claude", "codex", "gemini"} <= declared_engines()


def test_list_json_shows_the_installed_pinned_engines():
    done = holon("engines", "list", "--json")
    assert done.returncode == 0, done.stderr
    engines = {e["name"]: e for e in json.loads(done.stdout)}
    assert set(engines) == declared_engines()
    for name, entry in engines.items():
        assert entry["source"] != "missing", f"{name} missing: run `holon engines install`"
        assert entry["installed"] == entry["pinned"], entry


def test_list_shows_missing_engines_with_the_fix(tmp_path):
    done = holon(
        "engines",
        "list",
        env={"HOLON_ENGINES_DIR": str(tmp_path), "PATH": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("missing") == len(declared_engines())
    assert "holon engines install" in done.stdout


def test_install_without_node_is_a_clear_error(tmp_path):
    done = holon(
        "engines",
        "install",
        "claude",
        "--force",
        env={"HOLON_ENGINES_DIR": str(tmp_path / "engines"), "PATH": str(tmp_path)},
    )
    assert done.returncode == 1
    assert "node not found" in done.stderr
    assert "Node.js 20" in done.stderr
    assert not (tmp_path / "engines").exists()


def test_install_is_a_no_op_when_the_lock_is_already_installed():
    done = holon("engines", "install", "all")
    assert done.returncode == 0, done.stderr
    assert "already up to date" in done.stdout
