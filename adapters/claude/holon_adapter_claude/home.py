"""The run-local Claude Code home: config dir, onboarding state and settings, written up front.

Claude Code reads ``$CLAUDE_CONFIG_DIR`` (settings, ``CLAUDE.md``, skills, ``.claude.json``)
instead of ``~/.claude`` when the variable is set. Pointing it into the run directory is what
keeps the user's own instructions, settings and skills out of a run; pre-writing the
onboarding and trust state keeps any first-run dialog from ever waiting on a terminal.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from holon_adapter_claude.excludes import ancestor_excludes

if TYPE_CHECKING:
    from pathlib import Path

#: Onboarding, trust and update state; ``-p`` skips most dialogs, this covers the rest.
_ONBOARDING: dict[str, Any] = {
    "hasCompletedOnboarding": True,
    "lastOnboardingVersion": "2.1.197",
    "bypassPermissionsModeAccepted": True,
    "autoUpdates": False,
    "hasSeenTasksHint": True,
    "numStartups": 1,
}

#: User-level settings for the run: permissions bypassed (the run owns its sandbox). The
#: ancestors' instruction files are excluded per run (see :mod:`holon_adapter_claude.excludes`).
_SETTINGS: dict[str, Any] = {
    "permissions": {"defaultMode": "bypassPermissions"},
}


def config_dir(home: Path) -> Path:
    """``CLAUDE_CONFIG_DIR`` of a run: ``<run-home>/.claude``."""
    return home / ".claude"


def skills_dir(home: Path) -> Path:
    """Where Claude Code discovers user-level skills when ``CLAUDE_CONFIG_DIR`` is set."""
    return config_dir(home) / "skills"


def prepare_home(home: Path, tmp: Path, workspace: Path) -> Path:
    """Create HOME, TMPDIR and the config dir with onboarding state; returns the config dir.

    Idempotent: skill staging may already have created the config dir.
    """
    cfg = config_dir(home)
    cfg.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    state = dict(_ONBOARDING)
    state["projects"] = {
        str(workspace): {
            "hasTrustDialogAccepted": True,
            "hasCompletedProjectOnboarding": True,
            "allowedTools": [],
        }
    }
    _write_json(cfg / ".claude.json", state)
    settings = dict(_SETTINGS)
    settings["claudeMdExcludes"] = ancestor_excludes(workspace, keep=cfg)
    _write_json(cfg / "settings.json", settings)
    return cfg


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
