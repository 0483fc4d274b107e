"""holon's overhead on Codex: the same scripted task, bare ``codex exec`` vs ``holon-agent``.

Same flags, provider config, model, retry caps and a fresh run-local CODEX_HOME on both
sides (see ``bench/_overhead.py`` for the method). Usage:
``uv run --frozen --no-sync python -m bench.codex_overhead [RUNS]``.
"""

from __future__ import annotations

import os
from pathlib import Path

from holon_adapter_codex import CodexAdapter
from holon_adapter_codex.home import prepare_home
from holon_adapter_codex.launch import (
    DEFAULT_MODEL,
    DEFAULT_REQUEST_RETRIES,
    DEFAULT_STREAM_RETRIES,
)
from holon_conformance.provider import ScriptedProvider

from bench._overhead import GOAL, compare, timed
from holon_core.testing import Task
from holon_core.testing.agent_run import agent_env


def bare_run(binary: Path, server: ScriptedProvider, task: Task) -> float:
    home = task.root / "home"
    endpoint = server.engine_env("codex")
    codex_home = prepare_home(
        home,
        home / "tmp",
        endpoint,
        instructions="",
        request_retries=DEFAULT_REQUEST_RETRIES,
        stream_retries=DEFAULT_STREAM_RETRIES,
    )
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "TMPDIR": str(home / "tmp")}
    env.update({"LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1"})
    env.update({"CODEX_HOME": str(codex_home), **endpoint})
    argv = [str(binary), "exec", "--json", "--skip-git-repo-check"]
    argv += ["--dangerously-bypass-approvals-and-sandbox", "--disable", "plugins"]
    argv += ["--disable", "remote_plugin", "--disable", "apps", "-c", "analytics.enabled=false"]
    argv += ["-m", DEFAULT_MODEL, "-C", str(task.workspace), "-"]
    elapsed, done = timed(argv, env=env, cwd=task.workspace, stdin=GOAL.encode())
    if done.returncode != 0 or b"turn.completed" not in done.stdout:
        raise SystemExit(f"bare codex failed: {done.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    binary = CodexAdapter().locate_binary(agent_env())
    if binary is None:
        raise SystemExit("codex is not installed: run `holon engines install codex`")
    compare("codex", binary, bare_run, {"HOLON_MODEL": DEFAULT_MODEL})


if __name__ == "__main__":
    main()
