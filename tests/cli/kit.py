"""Running holon's real console scripts (``holon``, ``holon-agent``, ``holon-provider``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

BIN = Path(sys.executable).parent


def script(name: str) -> str:
    """The console script installed beside this interpreter (the user's entry point)."""
    path = BIN / name
    assert path.is_file(), f"{name} is not installed in {BIN}"
    return str(path)


def run(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stdout: int | None = subprocess.PIPE,
    stderr: int | None = subprocess.PIPE,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv),
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        text=True,
        timeout=timeout,
        check=False,
    )


def closed_pipe() -> int:
    """The write end of a pipe whose reader is already gone: any write gets EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    return write_end
