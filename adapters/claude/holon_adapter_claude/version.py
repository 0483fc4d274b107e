"""The engine version without starting the engine.

``claude --version`` loads a ~200 MB native binary (~0.1 s, more on a busy machine) on the
preflight and probe paths. An npm install carries the version in the package's
``package.json`` next to the binary; only when that is absent (native installer, wrappers)
do we ask the binary itself.
"""

from __future__ import annotations

import json
from pathlib import Path

PACKAGE = "@anthropic-ai/claude-code"


def package_version(binary: Path) -> str | None:
    """Version from the npm package that owns ``binary``, or None when it is not one."""
    try:
        real = binary.resolve(strict=True)
    except OSError:
        return None
    for parent in list(real.parents)[:3]:
        manifest = parent / "package.json"
        if not manifest.is_file():
            continue
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if isinstance(data, dict) and data.get("name") == PACKAGE:
            version = data.get("version")
            return version if isinstance(version, str) and version else None
        return None
    return None
