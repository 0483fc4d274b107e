"""``summary.md``: the engine's own when it wrote one, otherwise generated from the run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from holon_core.files import write_atomic
from holon_core.outcome import Decision


def ensure_summary(
    output: Path,
    *,
    goal: str,
    decision: Decision,
    final_text: str,
    figures: dict[str, str],
    written_before: bool,
    redact: Callable[[str], str],
) -> bool:
    """Write a generated summary unless the engine or a skill wrote one during this run.

    Returns True when the summary is holon's own.
    """
    path = output / "summary.md"
    engine_wrote = path.is_file() and not path.is_symlink() and path.stat().st_size > 0
    if engine_wrote and not written_before:
        return False
    lines = [
        "# Summary",
        "",
        f"**Goal:** {goal.strip()}",
        "",
        f"**Outcome:** {decision.outcome} ({decision.reason})",
    ]
    if decision.error:
        lines += ["", f"**Error:** {decision.error}"]
    lines += ["", "## Final answer from the engine", "", final_text.strip() or "_(none)_", ""]
    lines += ["## Figures", ""] + [f"- {key}: {value}" for key, value in figures.items()]
    write_atomic(path, redact("\n".join(lines) + "\n"), output)
    return True
