"""Keep instruction files of the workspace's ancestor directories out of a run.

Claude Code walks from its cwd up to (not including) ``/`` and loads ``CLAUDE.md``,
``.claude/CLAUDE.md``, ``.claude/rules/**`` and ``CLAUDE.local.md`` of every directory on the
way. For a workspace below the user's HOME that means ``~/.claude/CLAUDE.md`` and whatever a
parent checkout holds reach the model, although holon moved the user layer into the run. The
CLI's ``claudeMdExcludes`` setting (picomatch globs matched against absolute paths, arrays
merged across settings layers) drops them; the workspace's own files are kept.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

#: Per directory, the instruction files Claude Code 2.1 loads while walking up from its cwd.
_FILES = ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md")
_RULES = ".claude/rules/**"
#: Characters picomatch treats specially (globs, braces, extglobs); wrapped in ``[...]``.
#: Backslash escaping is no option: the CLI turns every ``\`` into ``/`` before matching.
_GLOB_META = re.compile(r"[*?\[\]{}()!+@|]")


def glob_escape(path: str) -> str:
    """``path`` as a picomatch pattern matching exactly itself."""
    return _GLOB_META.sub(lambda match: f"[{match.group(0)}]", path)


def _ancestors(workspace: Path) -> list[Path]:
    """Strict ancestors of the workspace, spelled as given and with symlinks resolved."""
    seen: dict[Path, None] = {}
    for start in (workspace.absolute(), workspace.resolve()):
        for parent in start.parents:
            seen.setdefault(parent, None)
    return list(seen)


def ancestor_excludes(workspace: Path, keep: Path) -> list[str]:
    """``claudeMdExcludes`` patterns for every ancestor's instruction files.

    ``keep`` is the run-local config dir: should it ever sit in an ancestor, its own
    ``CLAUDE.md`` (holon's user layer) must still load.
    """
    kept = {keep.absolute(), keep.resolve()}
    patterns: list[str] = []
    for directory in _ancestors(workspace):
        if directory / ".claude" in kept:
            continue
        base = glob_escape(str(directory).rstrip("/"))
        patterns += [f"{base}/{name}" for name in _FILES]
        patterns.append(f"{base}/{_RULES}")
    return patterns
