"""The version read from the npm package matches what the real binary says about itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from holon_adapter_claude.adapter import ClaudeAdapter

from holon_core.engine.binaries import npm_package_version, read_engine_version

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.engine("claude")
def test_package_version_matches_the_binary(claude_binary: Path) -> None:
    assert ClaudeAdapter().version_of(claude_binary) == read_engine_version(claude_binary)


def test_binary_outside_the_npm_package_falls_back(tmp_path: Path) -> None:
    wrapper = tmp_path / "claude"
    wrapper.write_text("#!/bin/sh\necho 9.9.9\n")
    wrapper.chmod(0o755)
    (tmp_path / "package.json").write_text('{"name": "something-else", "version": "1.0.0"}')
    assert npm_package_version(wrapper, "@anthropic-ai/claude-code") is None
    assert npm_package_version(tmp_path / "missing", "@anthropic-ai/claude-code") is None
    assert ClaudeAdapter().version_of(wrapper) == "9.9.9"
