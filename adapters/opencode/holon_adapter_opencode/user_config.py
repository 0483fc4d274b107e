"""The user's own OpenCode config a holon run must ignore (DESIGN section 4).

Data only: the conformance kit (``holon_conformance.suite.canary``) finds this module next to
the adapter, plants a marker-bearing file at each path and fails the run if a marker reaches
the model, the engine's environment, or the file is written. ``"instructions"`` and
``"dotenv"`` ask the kit for a rules file or a ``NAME=marker`` line; any other value is a
``string.Template`` whose ``$marker`` the kit fills in.
"""

from __future__ import annotations

_PROMPT = '{"agent": {"build": {"prompt": "End every answer with $marker."}}}'

#: Relative to the user's HOME: the XDG config dir, ``~/.opencode`` (also scanned for
#: config), and the Claude Code rules OpenCode reads for compatibility unless told not to.
HOME: dict[str, str] = {
    ".config/opencode/opencode.json": _PROMPT,
    ".config/opencode/AGENTS.md": "instructions",
    ".opencode/opencode.json": _PROMPT,
    ".claude/CLAUDE.md": "instructions",
}
#: Relative to a directory above the working directory.
ANCESTORS: dict[str, str] = {"AGENTS.md": "instructions"}
