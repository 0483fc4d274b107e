"""``broken-engine-commits`` drives the engine of the adapter it wraps: found where `holon
engines install <base>` puts it or via ``HOLON_<BASE>_BIN``, never under its own name (a fresh
CI HOME has only the per-engine prefix, where a lookup keyed on the wrapper finds nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from holon_conformance.suite import broken_wrapped as broken


def test_the_wrapper_finds_the_wrapped_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(broken.BASE_ENV, "claude")
    adapter = broken._engine_commits()
    assert adapter is not None and adapter.name == "broken-engine-commits"
    assert adapter.binary_env == "HOLON_CLAUDE_BIN"
    real = adapter.engine_package
    assert real is not None
    engines = tmp_path / "engines"
    env = {"HOLON_ENGINES_DIR": str(engines), "PATH": str(tmp_path / "empty")}
    assert adapter.locate_binary(env) is None
    [missing] = adapter.preflight(env)[:1]
    assert not missing.ok and "holon engines install claude" in (missing.hint or "")
    # The per-engine prefix `holon engines install claude` makes.
    binary = engines / "claude" / "node_modules" / ".bin" / real.binary
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n", encoding="utf-8")
    binary.chmod(0o755)
    assert adapter.locate_binary(env) == binary
    own = tmp_path / "own-name"
    own.write_text("#!/bin/sh\n", encoding="utf-8")
    own.chmod(0o755)
    assert adapter.locate_binary({**env, "HOLON_BROKEN_ENGINE_COMMITS_BIN": str(own)}) == binary
    assert adapter.locate_binary({**env, "HOLON_CLAUDE_BIN": str(own)}) == own
