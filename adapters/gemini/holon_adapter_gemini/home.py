"""The run-local Gemini CLI home: forced settings and the system instruction file.

Gemini CLI merges settings from system defaults, the user file, the workspace's
``.gemini/settings.json`` and a system file. ``GEMINI_CLI_HOME`` moves the user layer into
the run directory, so the user's ``~/.gemini`` is never read. The two system layers are
pointed at paths inside the run directory that do not exist: ``/etc/gemini-cli`` is then not
read either, and the CLI stays quiet (it refuses, with a warning, any system file below a
world-writable directory such as ``/tmp``, so we cannot ship our keys through that layer).

No ``.env`` file is loaded. The CLI walks from the workspace up to ``/`` looking for
``.gemini/.env`` and ``.env`` (plus the home's), so a workspace below the user's HOME would pick
up e.g. ``~/.gemini/.env``. It only searches ``.gemini/.env`` files when the folder is trusted
and, with ``advanced.ignoreLocalEnv``, only the home's plain ``.env``. Folder trust is therefore
left on, with no trusted folder on record, and the launch passes ``--skip-trust``: the CLI
applies that flag after it has loaded settings and env files (untrusted: nothing found) but
before it builds the run's config (trusted: ``--yolo``, the workspace's ``GEMINI.md`` and
skills work). Its API-key check would load env files again, trusted this time;
``security.auth.useExternal`` skips that check (the key is still read from the environment,
and holon refuses to start without one). The price: settings load untrusted, so a
workspace's own ``.gemini/settings.json`` is ignored, and so are the workspace's own ``.env``
files (the CLI offers no way to tell them from an ancestor's). ``context.env`` in the spec
is how a task passes variables.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

#: Passed on the command line: trust that takes effect only after env files were looked up.
SKIP_TRUST_FLAG = "--skip-trust"
#: Would make the CLI trust the folder while it looks for env files; never passed on.
TRUST_ENV = "GEMINI_CLI_TRUST_WORKSPACE"
#: Attempts for the main chat model (the CLI default is 10, with 5-30 s backoff).
DEFAULT_MAX_ATTEMPTS = 3
#: The CLI accepts 1..10.
MAX_ATTEMPTS_RANGE = (1, 10)
MAX_ATTEMPTS_ENV = "HOLON_GEMINI_MAX_ATTEMPTS"


def max_attempts(env: Mapping[str, str]) -> int:
    """Attempts per model request: ``HOLON_GEMINI_MAX_ATTEMPTS`` clamped to 1..10, else 3."""
    raw = env.get(MAX_ATTEMPTS_ENV, "").strip()
    try:
        value = int(raw) if raw else DEFAULT_MAX_ATTEMPTS
    except ValueError:
        value = DEFAULT_MAX_ATTEMPTS
    low, high = MAX_ATTEMPTS_RANGE
    return max(low, min(high, value))


def forced_settings(attempts: int, max_turns: int | None) -> dict[str, Any]:
    """Settings that make a headless run never prompt, never phone home and fail in bounded time."""
    settings: dict[str, Any] = {
        # Without an auth type the CLI exits 41 in headless mode.
        "security": {
            # useExternal: skip the auth check that re-reads env files once trust is on.
            "auth": {"selectedType": "gemini-api-key", "useExternal": True},
            "folderTrust": {"enabled": True},
        },
        # With the folder untrusted while settings load (see ENV_ISOLATION), only the home's
        # ``.env`` would still be read, and the home is the run-local one, without any.
        "advanced": {"ignoreLocalEnv": True},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {
            "maxAttempts": attempts,
            "enableAutoUpdate": False,
            "enableAutoUpdateNotification": False,
        },
    }
    if max_turns is not None:
        # Counted per model request in the non-interactive loop; exceeding it exits 53.
        settings["model"] = {"maxSessionTurns": max_turns}
    return settings


def write_home(
    home: Path, run_dir: Path, settings: dict[str, Any], system_text: str
) -> dict[str, str]:
    """Create the run-local home and return the environment variables that point at it."""
    gemini_dir = home / ".gemini"
    gemini_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(settings, indent=2) + "\n"
    (gemini_dir / "settings.json").write_text(text, encoding="utf-8")
    absent = run_dir / "gemini-absent"  # never created: see the module docstring
    instructions = gemini_dir / "GEMINI.md"
    if system_text.strip():
        instructions.write_text(system_text.rstrip() + "\n", encoding="utf-8")
    elif instructions.exists():
        instructions.unlink()
    return {
        "GEMINI_CLI_HOME": str(home),
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(absent / "system-settings.json"),
        "GEMINI_CLI_SYSTEM_DEFAULTS_PATH": str(absent / "system-defaults.json"),
        "GEMINI_CLI_TRUSTED_FOLDERS_PATH": str(absent / "trusted-folders.json"),
    }
