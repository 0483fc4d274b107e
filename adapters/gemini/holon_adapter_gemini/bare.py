"""Gemini CLI run bare, without holon: the measured recipe of engines.md section 2.

The conformance kit (``holon_conformance.direct``) finds this module next to the adapter and
uses it so benchmarks and tests drive the bare CLI exactly like each other.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

#: Where the CLI discovers user skills, relative to HOME (engines.md section 7).
SKILL_DIR = ".gemini/skills"
MODEL = "gemini-2.5-flash"
_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"maxAttempts": 1, "enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}


def bare_launch(
    binary: str, prompt: str, home: Path, endpoint: dict[str, str], retries: int
) -> tuple[list[str], dict[str, str]]:
    """argv and the variables to add to a clean environment (``endpoint``: the adapter's).

    Retries are capped by the settings file (``general.maxAttempts``), not by ``retries``.
    """
    config = home / ".gemini"
    config.mkdir(exist_ok=True)
    (config / "settings.json").write_text(json.dumps(_SETTINGS, indent=2), "utf-8")
    env = {**endpoint, "GEMINI_CLI_HOME": str(home), "GEMINI_CLI_NO_RELAUNCH": "1"}
    argv = [binary, "-p", prompt, "--output-format", "stream-json", "--yolo"]
    return [*argv, "-m", MODEL], env
