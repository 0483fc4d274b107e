"""The user's own Gemini CLI config a holon run must ignore (DESIGN section 4).

Data only: the conformance kit (``holon_conformance.suite.canary``) finds this module next to
the adapter, plants a marker-bearing file at each path and fails the run if a marker reaches
the model, the engine's environment, or the file is written. ``"instructions"`` and
``"dotenv"`` ask the kit for a rules file or a ``NAME=marker`` line; any other value is a
``string.Template`` whose ``$marker`` the kit fills in.
"""

from __future__ import annotations

#: Relative to the user's HOME (``.env``: the CLI loads the nearest one up to HOME).
HOME: dict[str, str] = {
    ".gemini/GEMINI.md": "instructions",
    ".gemini/.env": "dotenv",
    ".env": "dotenv",
    ".gemini/settings.json": '{"model": {"name": "$marker"}}',
}
#: Relative to a directory above the working directory (the nearest ancestor .env is loaded).
ANCESTORS: dict[str, str] = {
    "GEMINI.md": "instructions",
    ".env": "dotenv",
    ".gemini/.env": "dotenv",
}
