"""Reading an engine's output: stdout lines (and stderr) into normalized events and a report."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from holon_core.engine.report import EngineReport

if TYPE_CHECKING:
    from holon_core.engine.events import Event


class EventParser(ABC):
    """Turns an engine's stdout lines into normalized events, accumulating an EngineReport."""

    def __init__(self) -> None:
        self.report = EngineReport()

    @abstractmethod
    def feed(self, line: str) -> list[Event]:
        """Parse one stdout line (without its newline)."""

    def feed_stderr(self, line: str) -> list[Event]:
        from holon_core.engine.events import Event

        return [Event(type="stderr", text=line)] if line.strip() else []

    def finish(self, exit_code: int | None) -> EngineReport:
        """Called once after the engine exited; may read session logs to fill gaps."""
        return self.report


class JsonLinesParser(EventParser):
    """A parser for engines that print one JSON object per line (every CLI holon drives).

    Blank lines are skipped, a line that is not JSON becomes an ``unparsed`` message event,
    and each JSON object goes to :meth:`handle`.
    """

    def feed(self, line: str) -> list[Event]:
        from holon_core.engine.events import Event

        if not line.strip():
            return []
        try:
            raw = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested past json's limit
            return [Event(type="message", text=line, data={"unparsed": True})]
        return self.handle(raw) if isinstance(raw, dict) else []

    @abstractmethod
    def handle(self, raw: dict[str, Any]) -> list[Event]:
        """Turn one JSON object from the engine into events, updating ``self.report``."""
