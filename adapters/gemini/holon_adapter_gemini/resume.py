"""Continuing a Gemini CLI session: ``--resume <uuid>``, or ``--session-file`` from another cwd.

Gemini CLI 0.61 keeps a session's chat log under ``$GEMINI_CLI_HOME/.gemini/tmp/<project>/
chats/`` and ``--resume <uuid>`` searches only the project dir of the current cwd (``No previous
sessions found for this project``, exit 42, otherwise). Serve mode keeps the home across turns;
when a turn runs in another directory (a per-turn worktree), the log is imported with
``--session-file``, which starts a new session id holding the earlier conversation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from holon_adapter_gemini.session_log import find_session_log

if TYPE_CHECKING:
    from pathlib import Path

#: The CLI writes the project's root path into this file of each project dir.
_PROJECT_ROOT_FILE = ".project_root"


def resume_args(home: Path, session_id: str, cwd: Path) -> list[str]:
    """The flags that continue ``session_id`` from ``cwd``."""
    log = find_session_log(home, session_id)
    if log is None or _project_root(log.parent.parent) in (str(cwd), str(cwd.resolve())):
        return ["--resume", session_id]  # no log at all: the engine says so and fails
    return ["--session-file", str(log)]


def _project_root(project_dir: Path) -> str | None:
    try:
        return (project_dir / _PROJECT_ROOT_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
