"""The run-local ``CODEX_HOME``: provider config and instructions, written before launch.

Codex refuses to start when ``CODEX_HOME`` does not exist, and otherwise reads
``~/.codex`` — the user's config, instructions and skills. Pointing it into the run
directory keeps all of that out of a run. The model provider lives in a run-local
``config.toml`` rather than on the command line so that the endpoint (possibly carrying a
gateway token in its query) never shows up in ``ps`` and the argv stays short.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

#: The provider id holon writes; Codex's built-in ``openai`` provider is left untouched.
PROVIDER_ID = "holon"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Codex reads the key from the variable the provider names; the first one set wins.
KEY_VARIABLES = ("OPENAI_API_KEY", "CODEX_API_KEY")
INSTRUCTIONS_FILE = "AGENTS.md"


def codex_home(home: Path) -> Path:
    """``CODEX_HOME`` of a run: ``<run-home>/.codex``."""
    return home / ".codex"


def skills_dir(home: Path) -> Path:
    """Where Codex discovers user skills: ``$CODEX_HOME/skills/<name>/SKILL.md``."""
    return codex_home(home) / "skills"


def base_url(env: Mapping[str, str]) -> str:
    """``OPENAI_BASE_URL`` when set (gateways, the scripted test server), else OpenAI's."""
    return (env.get("OPENAI_BASE_URL") or "").strip() or DEFAULT_BASE_URL


def key_variable(env: Mapping[str, str]) -> str:
    for name in KEY_VARIABLES:
        if env.get(name):
            return name
    return KEY_VARIABLES[0]


def _toml_string(value: str) -> str:
    # A JSON string with ASCII escapes is a valid TOML basic string.
    return json.dumps(value, ensure_ascii=True)


def config_toml(env: Mapping[str, str], request_retries: int, stream_retries: int) -> str:
    """The whole ``config.toml`` of a run: one provider, retries capped, telemetry off."""
    lines = [
        "# Written by holon for this run only; the user's ~/.codex is never read.",
        f"model_provider = {_toml_string(PROVIDER_ID)}",
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        "check_for_update_on_startup = false",
        "",
        "[analytics]",
        "enabled = false",
        "",
        "[features]",
        "plugins = false",
        "remote_plugin = false",
        "apps = false",
        "",
        f"[model_providers.{PROVIDER_ID}]",
        f"name = {_toml_string(PROVIDER_ID)}",
        f"base_url = {_toml_string(base_url(env))}",
        f"env_key = {_toml_string(key_variable(env))}",
        'wire_api = "responses"',
        f"request_max_retries = {request_retries}",
        f"stream_max_retries = {stream_retries}",
        "",
    ]
    return "\n".join(lines)


def prepare_home(
    home: Path,
    tmp: Path,
    env: Mapping[str, str],
    *,
    instructions: str,
    request_retries: int,
    stream_retries: int,
) -> Path:
    """Create HOME, TMPDIR and ``CODEX_HOME`` with its config; returns ``CODEX_HOME``.

    Idempotent: skill staging may already have created ``CODEX_HOME/skills``. The system
    text goes to ``$CODEX_HOME/AGENTS.md`` (Codex's global instructions), never into the
    workspace, where it would show up in ``diff.patch``.
    """
    root = codex_home(home)
    root.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    (root / "config.toml").write_text(
        config_toml(env, request_retries, stream_retries), encoding="utf-8"
    )
    agents = root / INSTRUCTIONS_FILE
    if instructions.strip():
        agents.write_text(instructions, encoding="utf-8")
    elif agents.exists():
        agents.unlink()
    return root
