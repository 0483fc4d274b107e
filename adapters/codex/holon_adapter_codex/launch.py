"""The headless ``codex exec --json`` command line and its hermetic environment.

The prompt goes on stdin (``-``), which the core closes after writing it: an open stdin
would be read and appended to the prompt, and argv would cap the prompt's length and show
it in ``ps``. The start-up network calls (plugin sync, apps, analytics) are disabled with
flags as well as in ``config.toml``, so they stay off even if Codex reorders its config
layers. Only one ``-m`` may appear: Codex exits 2 on a duplicate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from holon_adapter_codex.home import prepare_home
from holon_core import LaunchPlan, RunContext, base_env

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

#: A catalog model: Codex picks its tool set from the model name, and only catalog models
#: get ``apply_patch`` (an unknown name falls back to shell-only tools with a warning).
DEFAULT_MODEL = "gpt-5.5"
#: HTTP-level retries (5xx only). Codex's default of 4, times its stream retries, turns one
#: failing endpoint into 30 requests over ~25 s.
DEFAULT_REQUEST_RETRIES = 1
#: Stream reconnects ("Reconnecting... n/N"), which Codex also spends on a 401.
DEFAULT_STREAM_RETRIES = 1
RETRY_CEILING = 10
REQUEST_RETRIES_ENV = "HOLON_CODEX_REQUEST_RETRIES"
STREAM_RETRIES_ENV = "HOLON_CODEX_STREAM_RETRIES"


def _retries(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    return min(int(raw), RETRY_CEILING) if raw.isdigit() else default


def request_retries(env: Mapping[str, str]) -> int:
    return _retries(env, REQUEST_RETRIES_ENV, DEFAULT_REQUEST_RETRIES)


def stream_retries(env: Mapping[str, str]) -> int:
    return _retries(env, STREAM_RETRIES_ENV, DEFAULT_STREAM_RETRIES)


def model_of(run: RunContext) -> str:
    return run.model or DEFAULT_MODEL


def build_argv(binary: Path, run: RunContext) -> list[str]:
    return [
        str(binary),
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--disable",
        "plugins",
        "--disable",
        "remote_plugin",
        "--disable",
        "apps",
        "-c",
        "analytics.enabled=false",
        "-m",
        model_of(run),
        "-C",
        str(run.workspace),
        # Serve mode: continue the thread whose rollout lies in the persistent CODEX_HOME
        # (sessions/); `exec` options go before `resume`, which takes the id and `-`.
        *(["resume", run.resume_session] if run.resume_session else []),
        "-",
    ]


def engine_env(run: RunContext, codex_home: Path) -> dict[str, str]:
    """Only PATH, locale, the named credentials and the run-local homes reach Codex."""
    env = base_env(run)
    env["CODEX_HOME"] = str(codex_home)
    return env


def build_plan(binary: Path, run: RunContext) -> LaunchPlan:
    home = prepare_home(
        run.home,
        run.tmp,
        run.env,
        instructions=run.prompt.system,
        request_retries=request_retries(run.env),
        stream_retries=stream_retries(run.env),
    )
    return LaunchPlan(
        argv=build_argv(binary, run),
        env=engine_env(run, home),
        cwd=run.workspace,
        stdin=run.prompt.user.encode("utf-8"),
        # Codex exits promptly on SIGTERM (143); its tool processes live in their own PTY
        # sessions and are reaped by the core's subreaper, not by waiting here.
        grace_seconds=2.0,
    )
