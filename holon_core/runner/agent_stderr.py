"""Why an agent left no manifest: its exit code and the last line of its stderr.

An agent that never got going (a bad flag, a container runtime that could not start it, such
as podman's ``error setting rlimits``) leaves only stderr behind, and "the agent wrote no
manifest.json" sent the user digging through the run dir for it. The line is untrusted: it is
redacted (the environment's credential values and token shapes) and clipped.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.runner.validate import Problem
from holon_core.untrusted.quoting import shorten
from holon_core.untrusted.redact import Redactor, secret_values

if TYPE_CHECKING:
    from holon_core.runner.report import RunResult

#: Only the end of the log is read: the last line is what says why.
TAIL_BYTES = 4096


def last_line(log: Path, env: Mapping[str, str]) -> str | None:
    """The log's last non-blank line, redacted and clipped; None when there is none."""
    try:
        with log.open("rb") as stream:
            stream.seek(max(0, os.fstat(stream.fileno()).st_size - TAIL_BYTES))
            text = stream.read(TAIL_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    return shorten(Redactor(secret_values(env))(lines[-1]), 300)


def explain_missing_manifest(result: RunResult, log: Path, env: Mapping[str, str]) -> None:
    """Add the agent's exit code and last stderr line to the ``missing_manifest`` problem."""
    line = last_line(log, env)
    if line is None:
        return
    why = f"the agent exited with code {result.agent_exit_code}; its stderr ends: {line} ({log})"
    result.problems = [
        Problem(p.code, f"{p.message}: {why}") if p.code == "missing_manifest" else p
        for p in result.problems
    ]
    result.error = "; ".join(p.message for p in result.problems)
