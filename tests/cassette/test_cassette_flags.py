"""The replay flags as a user types them: a bad ``--cassette-mode`` or a mode without
``--cassette`` is a usage error (exit 1, naming the fix) before anything runs."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--goal", "x", "--cassette-mode", "loose"], "not a mode"),
        (["run", "--goal", "x", "--cassette-mode", "lenient"], "needs --cassette DIR"),
        (["solve", "1", "--cassette-mode", "lenient"], "needs --cassette DIR"),
    ],
)
def test_holon_usage_errors(argv, message, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "holon_core", *argv, "--workspace", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 1 and message in done.stderr, done.stderr


def test_holon_agent_takes_only_the_two_modes(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "holon_core.agent", "--cassette-mode", "loose"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 1 and "strict" in done.stderr and "lenient" in done.stderr
