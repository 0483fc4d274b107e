"""The text of ``holon skills list``: an aligned table, an invalid skill's reason under it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from holon_core.untrusted.quoting import shorten

COLUMNS = ("NAME", "VERSION", "LAYER", "STATUS", "SHA256", "ORIGIN")


def skills_table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per skill (columns padded to the widest cell), each refusal indented below."""
    cells = [_cells(row) for row in rows]
    widths = [max(len(line[i]) for line in [COLUMNS, *cells]) for i in range(len(COLUMNS) - 1)]
    lines = [_join(COLUMNS, widths)]
    for row, line in zip(rows, cells, strict=True):
        lines.append(_join(line, widths))
        if row["error"]:
            reason = shorten(row["error"], 600).replace("\n", "\n    ")  # YAML errors span lines
            lines.append(f"  invalid: {reason}")
            if row["hint"]:
                lines.append(f"  fix: {row['hint']}")
    return lines


def _cells(row: Mapping[str, Any]) -> tuple[str, ...]:
    status = row["status"]
    if status == "shadowed":
        status = f"shadowed by {row['shadowed_by']}"
    digest = row["sha256"][:12] if row["sha256"] else "-"
    return (row["name"], row["version"] or "-", row["layer"], status, digest, row["origin"])


def _join(cells: Sequence[str], widths: Sequence[int]) -> str:
    padded = [cell.ljust(width) for cell, width in zip(cells, widths, strict=False)]
    return "  ".join([*padded, cells[-1]]).rstrip()
