"""The run's structured log: structlog JSON into ``evidence/execution.log``, short lines on
stderr, with the run and engine bound.

structlog is attached lazily: importing it costs about 40 ms, so the few lines logged before
the engine starts are buffered, and :meth:`RunLog.attach` runs on a helper thread while the
engine works. That keeps the import off holon's start-up overhead without losing a line.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import MutableMapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from holon_core.agent.evidence import Evidence

_HIDDEN = ("event", "timestamp", "level", "run", "engine")


class RunLog:
    def __init__(self, evidence: Evidence, **context: Any) -> None:
        self._evidence = evidence
        self._context = dict(context)
        self._pending: list[tuple[str, str, dict[str, Any]]] = []
        self._logger: Any = None
        self._lock = threading.Lock()

    def bind(self, **context: Any) -> None:
        with self._lock:
            self._context.update(context)
            if self._logger is not None:
                self._logger = self._logger.bind(**context)

    def info(self, event: str, **fields: Any) -> None:
        self._emit("info", event, fields)

    def warning(self, event: str, **fields: Any) -> None:
        self._emit("warning", event, fields)

    def error(self, event: str, **fields: Any) -> None:
        self._emit("error", event, fields)

    def _emit(self, level: str, event: str, fields: dict[str, Any]) -> None:
        with self._lock:
            logger = self._logger
            if logger is None:
                stamp = datetime.now(UTC).isoformat()
                self._pending.append(
                    (level, event, {**self._context, **fields, "timestamp": stamp})
                )
                return
        getattr(logger, level)(event, **fields)

    def attach(self) -> None:
        """Import and configure structlog, then flush what was buffered. Idempotent."""
        import structlog

        with self._lock:
            if self._logger is not None:
                return
            # this run's own logger, not structlog's global configuration: serve may run
            # turns side by side, and each turn's lines belong in its own evidence
            base = structlog.wrap_logger(
                structlog.ReturnLogger(),
                processors=[structlog.processors.add_log_level, _timestamp, self._to_sinks],
            )
            for level, event, fields in self._pending:
                getattr(base, level)(event, **fields)
            self._pending.clear()
            self._logger = base.bind(**self._context)

    def attach_in_background(self) -> threading.Thread:
        thread = threading.Thread(target=self.attach, name="holon-runlog", daemon=True)
        thread.start()
        return thread

    def _to_sinks(self, _: Any, __: str, event_dict: MutableMapping[str, Any]) -> str:
        line = json.dumps(event_dict, default=str)
        self._evidence.write_line("execution.log", line)
        human = " ".join(f"{k}={v}" for k, v in event_dict.items() if k not in _HIDDEN)
        level = event_dict.get("level", "info")
        prefix = "holon" if level == "info" else f"holon {level}"
        text = f"[{prefix}] {event_dict.get('event', '')} {human}".rstrip()
        sys.stderr.write(self._evidence.redact(text) + "\n")
        return line


def _timestamp(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    event_dict.setdefault("timestamp", datetime.now(UTC).isoformat())
    return event_dict
