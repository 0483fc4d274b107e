"""What an engine's event stream told holon: the signals the outcome rule reads.

Filled by the adapter's parser (:mod:`holon_core.engine.parser`) while the engine runs, read
by the outcome rule (:mod:`holon_core.record.outcome`) and the manifest afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from holon_core.engine.events import Event, ToolOutcome


#: Characters of a command line kept in the manifest.
COMMAND_CHARS = 200


@dataclass(slots=True)
class EngineReport:
    """What the event stream told us; the outcome rule reads these signals."""

    terminal_seen: bool = False
    is_error: bool | None = None
    reason: str | None = None
    error: str | None = None
    session_id: str | None = None
    model: str | None = None
    engine_version: str | None = None
    turns: int | None = None
    usage: dict[str, int] = field(default_factory=dict)
    cost_usd: float | None = None
    cost_source: Literal["reported", "estimated", "unavailable"] = "unavailable"
    final_text: str = ""
    tool_calls: int = 0
    tool_failures: int = 0
    #: Finished tool calls in order (parsers add them with :meth:`record_tool_result`).
    tool_log: list[ToolOutcome] = field(default_factory=list)
    #: Events the parser could build only after the engine exited (e.g. Gemini's exit codes,
    #: read from its session log); the agent appends them to ``events.ndjson``.
    late_events: list[Event] = field(default_factory=list)
    #: Skill names the engine listed or loaded; None when the stream cannot tell.
    skills_seen: set[str] | None = None
    #: False when the stream shows only loaded skills, not the listing: a skill missing from
    #: ``skills_seen`` is then unknown (``seen_by_engine: null``), not unseen.
    skills_listing_visible: bool = True
    #: An outcome the engine itself declared (replay scripts may ask for needs_human).
    declared_outcome: Literal["success", "failure", "needs_human"] | None = None
    #: Set by a parser to make the supervisor stop the engine now (e.g. a 401 being retried).
    abort_reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def record_tool_result(self, outcome: ToolOutcome) -> None:
        """Count one finished tool call; ``tool_failures`` follows ``outcome.ok``."""
        if not outcome.ok:
            self.tool_failures += 1
        self.tool_log.append(outcome)

    def amend_tool_result(self, tool_id: str, *, ok: bool, exit_code: int | None) -> bool:
        """Correct a recorded result with later evidence; True when its verdict changed."""
        for outcome in self.tool_log:
            if outcome.tool_id == tool_id:
                changed = outcome.ok != ok
                if changed:
                    self.tool_failures += -1 if ok else 1
                outcome.ok, outcome.exit_code = ok, exit_code
                return changed
        return False

    def tool_summary(self) -> dict[str, Any]:
        """``metadata.tools`` of the manifest: counts, and the failed commands (first 10)."""
        commands = [t for t in self.tool_log if t.command is not None]
        failed = [t for t in commands if not t.ok]
        summary: dict[str, Any] = {
            "calls": self.tool_calls,
            "failed": self.tool_failures,
            "commands": len(commands),
            "commands_failed": len(failed),
            "last_failed": bool(self.tool_log) and not self.tool_log[-1].ok,
        }
        if failed:
            summary["failed_commands"] = [
                {"command": (t.command or "")[:COMMAND_CHARS], "exit_code": t.exit_code}
                | ({"error": t.error} if t.error else {})
                for t in failed[:10]
            ]
        return summary
