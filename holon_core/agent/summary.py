"""``summary.md``: the engine's own when it wrote one, otherwise generated from the run."""

from __future__ import annotations

import stat
from collections.abc import Callable

from holon_core.record.outcome import Decision
from holon_core.untrusted.files import HeldDir


def ensure_summary(
    output: HeldDir,
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
    found = output.lstat("summary.md")
    engine_wrote = found is not None and stat.S_ISREG(found.st_mode) and found.st_size > 0
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
    output.write_atomic("summary.md", redact("\n".join(lines) + "\n"))
    return True
