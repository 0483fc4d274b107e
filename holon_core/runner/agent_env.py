"""The environment and command line ``holon-agent`` is started with: the contract only.

The agent gets a run-local ``HOME`` and ``TMPDIR``, the ``HOLON_*`` settings, ``PATH`` and
locale, the managed engine directory (resolved with the user's real ``HOME``, which the agent
no longer sees), and exactly the credential and endpoint variables the selected adapter names.
Nothing else from the user's environment passes, just as with a container runner.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path

from holon_core.engines import managed_engine_dir

#: Overrides the agent command (shell words), e.g. a container runner or a stand-in agent.
AGENT_CMD_ENV = "HOLON_AGENT_CMD"
_BASICS = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH", "VIRTUAL_ENV")
_PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")
#: Runner-only settings that mean nothing to the agent.
_RUNNER_ONLY = (AGENT_CMD_ENV, "HOLON_RUNS_DIR")


def agent_command(env: Mapping[str, str]) -> list[str]:
    override = env.get(AGENT_CMD_ENV, "").strip()
    if override:
        return shlex.split(override)
    return [sys.executable, "-m", "holon_core.agent"]


def agent_env(
    env: Mapping[str, str],
    *,
    home: Path,
    tmp: Path,
    engine_vars: tuple[str, ...],
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Build the agent's environment from scratch out of ``env`` (the user's)."""
    out = {name: env[name] for name in (*_BASICS, *_PROXIES) if env.get(name)}
    out.setdefault("PATH", os.defpath)
    for name, value in env.items():
        if name.startswith("HOLON_") and name not in _RUNNER_ONLY:
            out[name] = value
    for name in engine_vars:
        if env.get(name):
            out[name] = env[name]
    out["HOLON_ENGINES_DIR"] = str(managed_engine_dir(env).expanduser().absolute())
    out["HOME"] = str(home)
    out["TMPDIR"] = str(tmp)
    out.update(extra or {})
    return out
