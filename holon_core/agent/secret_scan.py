"""Find credentials the engine put into its results, without altering those results.

``diff.patch`` and the engine's own output files are never redacted (that would corrupt
them); a passed credential found there makes the run ``needs_human`` instead, naming where.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from holon_core.redact import Redactor

#: Larger files are scanned up to this many bytes.
SCAN_LIMIT = 64 * 1024 * 1024


def scan_patch(redact: Redactor, patch: Path, workspace: Path, binary: Iterable[str]) -> list[str]:
    """Workspace files whose added lines (text) or new content (binary) hold a credential."""
    flagged: list[str] = []
    current = ""
    with patch.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.startswith("diff --git "):
                current = line.rsplit(" b/", 1)[-1].strip()
            elif line.startswith("+") and current not in flagged and redact.find(line):
                flagged.append(current)
    for rel in binary:  # a GIT binary patch is base85: look at the file itself
        if rel not in flagged and _file_has_secret(redact, workspace / rel):
            flagged.append(rel)
    return flagged


def scan_outputs(redact: Redactor, output: Path, names: Iterable[str]) -> list[str]:
    """The engine's own files in the output dir that hold a credential, as ``output/NAME``."""
    return [f"output/{name}" for name in names if _file_has_secret(redact, output / name)]


def _file_has_secret(redact: Redactor, path: Path) -> bool:
    if path.is_symlink() or not path.is_file():
        return False
    with path.open("rb") as handle:
        return redact.find_bytes(handle.read(SCAN_LIMIT))
