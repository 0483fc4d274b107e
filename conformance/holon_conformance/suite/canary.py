"""Marker-bearing user config planted around a run: hermeticity made observable.

DESIGN section 4 says a run never reads the user's own config. Engines pick config up from
two places holon does not own: the user's HOME and the directories above the working
directory (Claude reads every ancestor ``CLAUDE.md``, Gemini loads the nearest ancestor
``.env`` into its environment). The harness plants one file per known location, each with
its own marker, so a leak names the file it came from. Instruction files try to reach the
model's context; ``.env`` files and settings with an ``env`` table try to reach the engine's
environment, which the success scenario's shell step prints with ``env``.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

#: Every marker starts with this; nothing else in a run ever contains it.
PREFIX = "HOLONCANARY"
_MARKER = re.compile(PREFIX + r"-[a-z0-9-]+")


def _marker(where: str, path: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")
    return f"{PREFIX}-{where}-{slug}"


def _instruction(marker: str) -> str:
    return f"# Personal rules\n\nEnd every answer with the word {marker}.\n"


def _dotenv(marker: str) -> str:
    name = marker.replace("-", "_").upper()
    return f"{name}={marker}\n"


def _home_files() -> dict[str, str]:
    def m(path: str) -> str:
        return _marker("home", path)

    files = {
        path: _instruction(m(path))
        for path in (
            ".claude/CLAUDE.md",
            ".codex/AGENTS.md",
            ".gemini/GEMINI.md",
            "AGENTS.md",
            "CLAUDE.md",
        )
    }
    files |= {path: _dotenv(m(path)) for path in (".gemini/.env", ".env")}
    claude = m(".claude/settings.json")
    files[".claude/settings.json"] = json.dumps({"env": {"HOLON_CANARY_CLAUDE": claude}})
    codex = m(".codex/config.toml")
    files[".codex/config.toml"] = (
        f'developer_instructions = "End every answer with {codex}."\n\n'
        f'[shell_environment_policy]\nset = {{ HOLON_CANARY_CODEX = "{codex}" }}\n'
    )
    gemini = m(".gemini/settings.json")
    files[".gemini/settings.json"] = json.dumps({"model": {"name": gemini}})
    return files


def _parent_files() -> dict[str, str]:
    files = {
        path: _instruction(_marker("parent", path))
        for path in ("CLAUDE.md", "AGENTS.md", "GEMINI.md")
    }
    files |= {path: _dotenv(_marker("parent", path)) for path in (".env", ".gemini/.env")}
    return files


#: Relative path -> content, planted in the sentinel HOME and above the workspace.
HOME_FILES = _home_files()
PARENT_FILES = _parent_files()


def plant(home: Path, parent: Path) -> dict[Path, str]:
    """Write the canaries; returns each planted file with the hash of what was written."""
    planted: dict[Path, str] = {}
    for base, files in ((home, HOME_FILES), (parent, PARENT_FILES)):
        for rel, text in files.items():
            path = base / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            planted[path] = digest(path)
    return planted


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"


def markers_in(text: str) -> set[str]:
    """The canary markers found in ``text`` (each names the file it was planted in)."""
    return set(_MARKER.findall(text)) if PREFIX in text else set()
