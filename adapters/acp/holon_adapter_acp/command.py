"""Which agent the generic ``acp`` engine starts, and which credentials it hands on.

``HOLON_ACP_COMMAND`` (shell words, e.g. ``npx -y @scope/agent --acp``) or ``engine.command``
in the spec (a string of shell words or a list of words); the variable wins, as the
``HOLON_*`` variables do over the spec everywhere. ``HOLON_ACP_PASS_ENV`` names the variables
(comma or space separated) the agent needs, typically its API key: they are passed into its
environment, satisfy the credential check and are redacted from everything holon writes.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from holon_core import InputError

COMMAND_ENV = "HOLON_ACP_COMMAND"
PASS_ENV = "HOLON_ACP_PASS_ENV"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def pass_env_names(env: Mapping[str, str]) -> tuple[str, ...]:
    """The names in ``HOLON_ACP_PASS_ENV``; a malformed one is refused at launch."""
    return tuple(name for name in re.split(r"[\s,]+", env.get(PASS_ENV, "")) if name)


def bad_pass_env_names(env: Mapping[str, str]) -> list[str]:
    return [name for name in pass_env_names(env) if not _NAME.match(name)]


def agent_command(env: Mapping[str, str], spec_command: Any) -> list[str]:
    """The agent's argv; :class:`InputError` naming both sources when neither gives one."""
    raw = env.get(COMMAND_ENV, "").strip()
    source = COMMAND_ENV
    if not raw and spec_command is not None:
        source = "engine.command in the spec"
        if isinstance(spec_command, list) and all(isinstance(w, str) for w in spec_command):
            return _checked(list(spec_command), source)
        if not isinstance(spec_command, str):
            raise InputError(
                f"{source} must be a string of shell words or a list of words, "
                f"not {type(spec_command).__name__}",
                hint='e.g. engine: {name: acp, command: "my-agent --acp"}',
            )
        raw = spec_command
    if not raw:
        raise InputError(
            f"engine acp needs the ACP agent's command: set {COMMAND_ENV} or engine.command in "
            "the spec",
            hint=f'e.g. export {COMMAND_ENV}="gemini --acp" (see docs/acp.md for registry agents)',
        )
    try:
        words = shlex.split(raw)
    except ValueError as exc:
        raise InputError(
            f"{source} is not valid shell words ({exc}): {raw[:200]}",
            hint="quote it as you would on a shell command line",
        ) from None
    return _checked(words, source)


def _checked(words: list[str], source: str) -> list[str]:
    if not words or not words[0].strip():
        raise InputError(f"{source} is empty", hint="name the agent's program and its arguments")
    return words
