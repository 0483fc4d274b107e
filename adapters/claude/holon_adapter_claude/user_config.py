"""The user's own Claude Code config a holon run must ignore (DESIGN section 4).

Data only: the conformance kit (``holon_conformance.suite.canary``) finds this module next to
the adapter, plants a marker-bearing file at each path and fails the run if a marker reaches
the model, the engine's environment, or the file is written. ``"instructions"`` and
``"dotenv"`` ask the kit for a rules file or a ``NAME=marker`` line; any other value is a
``string.Template`` whose ``$marker`` the kit fills in.
"""

from __future__ import annotations

#: Relative to the user's HOME.
HOME: dict[str, str] = {
    ".claude/CLAUDE.md": "instructions",
    "CLAUDE.md": "instructions",
    ".claude/settings.json": '{"env": {"HOLON_CANARY_CLAUDE": "$marker"}}',
}
#: Relative to a directory above the working directory (every ancestor CLAUDE.md is read).
ANCESTORS: dict[str, str] = {"CLAUDE.md": "instructions"}
