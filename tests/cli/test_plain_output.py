"""``TERM=dumb`` and ``NO_COLOR`` give plain output on a terminal: no escape codes at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.runner.kit import base_env, make_workspace, write_task

from .kit import script


def holon_run_on_a_terminal(tmp_path: Path, env: dict[str, str]) -> str:
    ws = make_workspace(tmp_path / "ws", "plain")
    steps: list[dict[str, Any]] = [
        {"write": {"path": "a.txt", "content": "a\n"}},
        {"sleep": 1},
        {"say": "done"},
    ]
    spec = write_task(tmp_path / "task", steps)
    child = pexpect.spawn(
        script("holon"),
        ["run", str(spec), "--workspace", str(ws), "--engine", "replay"],
        env={**base_env(tmp_path), **env},
        encoding="utf-8",
        timeout=120,
    )
    try:
        child.expect(pexpect.EOF)
        output = str(child.before)
    finally:
        child.close()
    assert child.exitstatus == 0, output
    return output


@pytest.mark.parametrize(
    "env", [{"TERM": "dumb"}, {"TERM": "xterm-256color", "NO_COLOR": "1"}], ids=["dumb", "no-color"]
)
def test_plain_output_on_request(tmp_path: Path, env: dict[str, str]) -> None:
    output = holon_run_on_a_terminal(tmp_path, env)
    assert "\x1b" not in output and "\r\x1b[K" not in output
    assert "tool write a.txt" in output and "holon run: success" in output


def test_a_capable_terminal_gets_the_live_line(tmp_path: Path) -> None:
    """The control: the same run on an ordinary terminal does redraw its status line."""
    output = holon_run_on_a_terminal(tmp_path, {"TERM": "xterm-256color", "NO_COLOR": ""})
    assert "\r\x1b[K" in output
