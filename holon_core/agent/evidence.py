"""Step 8's sinks: ``evidence/`` files, every line redacted before it is written.

- ``events.ndjson``: holon's normalized events (phases included)
- ``engine.stdout.log`` / ``engine.stderr.log``: the engine's raw output
- ``execution.log``: structlog JSON lines (run, engine and phase bound)
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import MutableMapping
from pathlib import Path
from typing import IO, Any

import structlog

from holon_core.events import Event
from holon_core.redact import Redactor


class Evidence:
    """Open evidence files for one run; call :meth:`close` on every path."""

    def __init__(self, output: Path, redact: Redactor, *, started: float) -> None:
        self.dir = output / "evidence"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.redact = redact
        self.started = started
        self._seq = 0
        self._files: dict[str, IO[str]] = {}
        self.events: list[Event] = []

    def _file(self, name: str) -> IO[str]:
        handle = self._files.get(name)
        if handle is None:
            handle = (self.dir / name).open("w", encoding="utf-8", buffering=1)
            self._files[name] = handle
        return handle

    def write_line(self, name: str, line: str) -> None:
        self._file(name).write(self.redact(line) + "\n")

    def event(self, event: Event) -> Event:
        self._seq += 1
        event.seq = self._seq
        event.ts = time.monotonic() - self.started
        self.events.append(event)
        self.write_line("events.ndjson", event.to_json())
        return event

    def phase(self, name: str, **data: Any) -> None:
        self.event(Event(type="phase", text=name, data=data))

    def write_json(self, name: str, payload: Any) -> None:
        path = self.dir / name
        path.write_text(self.redact(json.dumps(payload, indent=2, default=str)) + "\n", "utf-8")

    def close(self) -> None:
        for handle in self._files.values():
            handle.close()
        self._files.clear()


def configure_logging(evidence: Evidence | None, *, run_id: str, engine: str) -> Any:
    """A structlog logger writing JSON into evidence and short lines to stderr."""
    redact = evidence.redact if evidence else Redactor()

    def to_sinks(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> str:
        line = json.dumps(event_dict, default=str)
        if evidence is not None:
            evidence.write_line("execution.log", line)
        human = " ".join(
            f"{k}={v}"
            for k, v in event_dict.items()
            if k not in ("event", "timestamp", "level", "run", "engine")
        )
        level = event_dict.get("level", "info")
        prefix = "holon" if level == "info" else f"holon {level}"
        sys.stderr.write(
            redact(f"[{prefix}] {event_dict.get('event', '')} {human}".rstrip()) + "\n"
        )
        return line

    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            to_sinks,
        ],
        logger_factory=structlog.ReturnLoggerFactory(),
        cache_logger_on_first_use=False,
    )
    return structlog.get_logger().bind(run=run_id, engine=engine)
