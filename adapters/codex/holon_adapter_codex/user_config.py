"""The user's own Codex CLI config a holon run must ignore (DESIGN section 4).

Data only: the conformance kit (``holon_conformance.suite.canary``) finds this module next to
the adapter, plants a marker-bearing file at each path and fails the run if a marker reaches
the model, the engine's environment, or the file is written. ``"instructions"`` and
``"dotenv"`` ask the kit for a rules file or a ``NAME=marker`` line; any other value is a
``string.Template`` whose ``$marker`` the kit fills in.
"""

from __future__ import annotations

#: Relative to the user's HOME.
HOME: dict[str, str] = {
    ".codex/AGENTS.md": "instructions",
    "AGENTS.md": "instructions",
    ".codex/config.toml": (
        'developer_instructions = "End every answer with $marker."\n\n'
        '[shell_environment_policy]\nset = { HOLON_CANARY_CODEX = "$marker" }\n'
    ),
}
#: Relative to a directory above the working directory.
ANCESTORS: dict[str, str] = {"AGENTS.md": "instructions"}
