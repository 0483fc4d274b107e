"""Where Claude Code keeps a session's transcript, and carrying it to a turn's new cwd.

``claude --resume <id>`` looks for ``<id>.jsonl`` only under
``$CLAUDE_CONFIG_DIR/projects/<slug of the cwd>/``. Serve mode keeps the config dir across
turns, but a turn may run in another directory (a per-turn worktree): the transcript is then
copied from the project dir of the turn that wrote it last, so the session continues.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

#: Claude Code 2.1 cuts a project dir name at 200 characters and appends a hash of the path.
_SLUG_LIMIT = 200
_NOT_ALNUM = re.compile(r"[^a-zA-Z0-9]")


def _path_hash(text: str) -> str:
    """The engine's 32-bit string hash over UTF-16 code units, as unsigned base 36."""
    value = 0
    data = text.encode("utf-16-le")
    for index in range(0, len(data), 2):
        value = (value * 31 + int.from_bytes(data[index : index + 2], "little")) & 0xFFFFFFFF
    if value >= 1 << 31:
        value -= 1 << 32
    return _base36(abs(value))


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if number == 0:
            return out


def project_slug(cwd: Path) -> str:
    """The name of the project dir Claude Code uses for ``cwd`` (its real path)."""
    text = str(cwd.resolve())
    slug = _NOT_ALNUM.sub("-", text)
    if len(slug) <= _SLUG_LIMIT:
        return slug
    return f"{slug[:_SLUG_LIMIT]}-{_path_hash(text)}"


def carry_transcript(config_dir: Path, session_id: str, cwd: Path) -> bool:
    """Make ``<session_id>.jsonl`` visible from ``cwd``; True when it had to be copied.

    The newest copy under ``projects/`` wins (a session that moved between dirs has
    several). Nothing happens when the cwd's project dir already holds it or when no copy
    exists (the engine then says "No conversation found", which fails the turn).
    """
    projects = config_dir / "projects"
    target = projects / project_slug(cwd)
    name = f"{session_id}.jsonl"
    if (target / name).is_file() or "/" in session_id or session_id.startswith("."):
        return False
    copies = [p for p in projects.glob(f"*/{name}") if p.is_file() and not p.is_symlink()]
    if not copies:
        return False
    newest = max(copies, key=lambda p: p.stat().st_mtime_ns)
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(newest, target / name)
    extras = newest.parent / session_id  # the session's own files (large tool results)
    if extras.is_dir() and not extras.is_symlink():
        shutil.copytree(extras, target / session_id, symlinks=True, dirs_exist_ok=True)
    return True
