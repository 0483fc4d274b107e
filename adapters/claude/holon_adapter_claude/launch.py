"""The headless ``claude -p`` command line and its hermetic environment.

The prompt goes on stdin (no TTY, no argv length limit, not visible in ``ps``); holon's
system text goes into a run-local file read through ``--append-system-prompt-file``, so it
never lands in the workspace. ``--bare`` is deliberately not used: it drops the Write tool,
skills and ``CLAUDE.md`` and still reports success.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from holon_adapter_claude.home import prepare_home
from holon_adapter_claude.sessions import carry_transcript
from holon_core import LaunchPlan, RunContext, base_env

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

#: Engine retries per model request unless the user says otherwise. The engine's own default
#: (10, exponential up to ~40 s, 401 included) keeps a failing run alive for three minutes.
DEFAULT_MAX_RETRIES = 3
#: Claude Code clamps its retry count at 15.
MAX_RETRIES_CEILING = 15
RETRIES_ENV = "HOLON_CLAUDE_MAX_RETRIES"
SYSTEM_PROMPT_FILE = "claude-system-prompt.md"


def max_retries(env: Mapping[str, str]) -> int:
    """``HOLON_CLAUDE_MAX_RETRIES``, else the engine's ``CLAUDE_CODE_MAX_RETRIES``, else 3."""
    for name in (RETRIES_ENV, "CLAUDE_CODE_MAX_RETRIES"):
        raw = env.get(name, "").strip()
        if raw.isdigit():
            return min(int(raw), MAX_RETRIES_CEILING)
    return DEFAULT_MAX_RETRIES


def engine_env(run: RunContext, config_dir: Path) -> dict[str, str]:
    """Only PATH, locale, the named credentials and the endpoint reach the engine."""
    env = base_env(run)
    env.update(
        {
            "CLAUDE_CONFIG_DIR": str(config_dir),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_MAX_RETRIES": str(max_retries(run.env)),
        }
    )
    if os.geteuid() == 0:
        # Without it, --dangerously-skip-permissions refuses to run as root (exit 1).
        env["IS_SANDBOX"] = "1"
    return env


def build_argv(binary: Path, run: RunContext, system_file: Path | None) -> list[str]:
    argv = [
        str(binary),
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--dangerously-skip-permissions",
    ]
    if run.model:
        argv += ["--model", run.model]
    if run.max_steps is not None:
        argv += ["--max-turns", str(run.max_steps)]
    if system_file is not None:
        argv += ["--append-system-prompt-file", str(system_file)]
    if run.resume_session:
        # Read from $CLAUDE_CONFIG_DIR/projects/<cwd-slug>/: the home persists across turns
        # (RunContext.home_root); build_plan carries the transcript to a turn's new cwd.
        argv += ["--resume", run.resume_session]
    return argv


def build_plan(binary: Path, run: RunContext) -> LaunchPlan:
    config_dir = prepare_home(run.home, run.tmp, run.workspace)
    if run.resume_session:
        carry_transcript(config_dir, run.resume_session, run.workspace)
    system_file: Path | None = None
    if run.prompt.system.strip():
        system_file = run.run_dir / SYSTEM_PROMPT_FILE
        system_file.write_text(run.prompt.system, encoding="utf-8")
    return LaunchPlan(
        argv=build_argv(binary, run, system_file),
        env=engine_env(run, config_dir),
        cwd=run.workspace,
        stdin=run.prompt.user.encode("utf-8"),
        # Claude Code keeps its agent loop going after SIGTERM while a tool runs: do not
        # wait long before SIGKILL.
        grace_seconds=2.0,
    )
