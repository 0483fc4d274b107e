"""The environment and command line ``holon-agent`` is started with: the contract only.

The agent gets a run-local ``HOME`` and ``TMPDIR``, the ``HOLON_*`` settings, ``PATH`` and
locale, the managed engine directory (resolved with the user's real ``HOME``, which the agent
no longer sees), exactly the credential and endpoint variables the selected adapter names, and
the OpenTelemetry settings (``OTEL_*``, ``TRACEPARENT``): the agent's spans join the caller's
trace.
Nothing else from the user's environment passes, just as with a container runner.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from holon_core.engine.binaries import managed_engine_dir
from holon_core.errors import InputError

#: Overrides the agent command (shell words), e.g. a container runner or another RFC-0002 agent.
AGENT_CMD_ENV = "HOLON_AGENT_CMD"
#: How the agent takes its paths: ``flags`` (holon-agent; the default) or ``env`` (an RFC-0002
#: v0.1 entrypoint that reads ``HOLON_INPUT_DIR`` etc. and takes no flags).
AGENT_PATHS_ENV = "HOLON_AGENT_PATHS"
AGENT_PATHS = ("flags", "env")
#: Each flag the runner passes and the variable that carries the same value.
_FLAG_VARS = {
    "--input": "HOLON_INPUT_DIR",
    "--workspace": "HOLON_WORKSPACE_DIR",
    "--output": "HOLON_OUTPUT_DIR",
    "--state": "HOLON_STATE_DIR",
    "--engine": "HOLON_ENGINE",
    "--model": "HOLON_MODEL",
    "--skill": None,  # skills are in the input dir too; no variable names them
}
_BASICS = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH", "VIRTUAL_ENV")
_PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")
#: The CA settings the model gateway inside holon-agent trusts upstream (docs/gateway.md).
_TRUST = ("SSL_CERT_FILE", "SSL_CERT_DIR")
#: The W3C trace context; with the ``OTEL_*`` variables, how the agent's spans join a trace.
_TRACE_CONTEXT = ("TRACEPARENT", "TRACESTATE")
#: Runner-only settings that mean nothing to the agent.
_RUNNER_ONLY = (AGENT_CMD_ENV, "HOLON_RUNS_DIR")


def agent_command(env: Mapping[str, str]) -> list[str]:
    override = env.get(AGENT_CMD_ENV, "").strip()
    if override:
        return shlex.split(override)
    return [sys.executable, "-m", "holon_core.agent"]


def agent_invocation(
    argv: Sequence[str], env: Mapping[str, str]
) -> tuple[list[str], dict[str, str]]:
    """The command line and environment the agent is really started with.

    Every path and setting passed as a flag is also set in the environment (flags win in
    holon-agent, so the two never disagree). With ``HOLON_AGENT_PATHS=env`` the flags are
    left off: a v0.1 entrypoint takes no arguments. The knob itself never reaches the agent.
    """
    child = dict(env)
    mode = child.pop(AGENT_PATHS_ENV, "") or "flags"
    if mode not in AGENT_PATHS:
        raise InputError(
            f"{AGENT_PATHS_ENV}={mode!r} is not one of {', '.join(AGENT_PATHS)}",
            hint="use flags for holon-agent, env for an agent that reads HOLON_INPUT_DIR etc.",
        )
    start = next((i for i, word in enumerate(argv) if word in _FLAG_VARS), len(argv))
    command, flags = list(argv[:start]), list(argv[start:])
    for flag, value in zip(flags[::2], flags[1::2], strict=False):
        variable = _FLAG_VARS.get(flag)
        if variable:
            child[variable] = value
    return (command if mode == "env" else [*command, *flags]), child


def agent_env(
    env: Mapping[str, str],
    *,
    home: Path,
    tmp: Path,
    engine_vars: tuple[str, ...],
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Build the agent's environment from scratch out of ``env`` (the user's)."""
    out = {name: env[name] for name in (*_BASICS, *_PROXIES, *_TRUST) if env.get(name)}
    out.setdefault("PATH", os.defpath)
    for name, value in env.items():
        holon = name.startswith("HOLON_") and name not in _RUNNER_ONLY
        if holon or name.startswith("OTEL_") or name in _TRACE_CONTEXT:  # docs/telemetry.md
            out[name] = value
    for name in engine_vars:
        if env.get(name):
            out[name] = env[name]
    out["HOLON_ENGINES_DIR"] = str(managed_engine_dir(env).expanduser().absolute())
    out["HOME"] = str(home)
    out["TMPDIR"] = str(tmp)
    out.update(extra or {})
    return out
