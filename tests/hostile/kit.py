"""Running the real holon-agent against an engine that attacks its output dir.

The replay engine's ``run:`` steps execute shell commands, so each scenario plants links,
chmods holon's dirs or fills the disk exactly as a hostile engine (or a tool it runs) would.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from holon_core.testing import AgentResult, Task
from holon_core.testing.agent_run import agent_argv, agent_env

#: Write a line to the engine's own stderr from a replay ``run:`` step (the shell's parent
#: is the replay engine, whose fd 2 is holon's pipe).
TO_ENGINE_STDERR = "> /proc/$PPID/fd/2"

_PR_CAPBSET_DROP = 24
#: CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER: what lets root ignore file modes.
_DAC_CAPS = (1, 2, 3)


def _as_ordinary_user() -> None:
    """In the child: drop the capabilities that let root ignore permissions.

    holon and the engine run as the same, unprivileged user in production; when the tests
    run as root, a ``chmod 555`` by the engine would bind nobody. Dropped from the bounding
    set, they stay dropped across exec for the agent and every engine process it starts.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in _DAC_CAPS:
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def run(
    task: Task,
    *,
    unprivileged: bool = False,
    timeout: float = 120.0,
    env: dict[str, str] | None = None,
) -> AgentResult:
    """The real holon-agent (replay engine); what it left is read without following links.

    ``unprivileged``: bound by file permissions even when the tests run as root. ``env``:
    added to the agent's minimal environment (a credential, say). The room is off: these are
    holon's defences behind it, against an engine that reaches what the user can (the room's
    own escape tests are tests/sandbox/).
    """
    done = subprocess.run(
        agent_argv(task, "replay"),
        env=agent_env({"HOLON_SANDBOX": "off", **(env or {})}),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        preexec_fn=_as_ordinary_user if unprivileged and os.geteuid() == 0 else None,
    )
    result = AgentResult(done.returncode, done.stdout, done.stderr, task.output)
    manifest = task.output / "manifest.json"
    if manifest.is_file() and not manifest.is_symlink() and not task.output.is_symlink():
        result.manifest = json.loads(manifest.read_text(encoding="utf-8"))
    return result


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` with its content (links are not followed)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@contextmanager
def tmpfs(mount: Path, size: str) -> Iterator[Path]:
    """A real filesystem of its own at ``mount`` (tmpfs), unmounted afterwards.

    Mounting needs root, which the CI container has; the test fails (never skips) without it.
    """
    if os.geteuid() != 0:
        pytest.fail(f"this test mounts a {size} tmpfs and needs root (as in CI)")
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)
