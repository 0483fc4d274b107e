"""Step 8's sinks: ``evidence/`` files, every line redacted before it is written.

- ``events.ndjson``: holon's normalized events (phases included)
- ``engine.stdout.log`` / ``engine.stderr.log``: the engine's raw output
- ``execution.log``: structlog JSON lines (see :mod:`holon_core.agent.runlog`)
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import IO, Any

from holon_core.events import Event
from holon_core.files import write_atomic
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
        self._lock = threading.Lock()  # the run log may write from its attach thread

    def _file(self, name: str) -> IO[str]:
        handle = self._files.get(name)
        if handle is None:
            handle = (self.dir / name).open("w", encoding="utf-8", buffering=1)
            self._files[name] = handle
        return handle

    def write_line(self, name: str, line: str) -> None:
        text = self.redact(line) + "\n"
        with self._lock:
            self._file(name).write(text)

    def event(self, event: Event) -> Event:
        self._seq += 1
        event.seq = self._seq
        event.ts = time.monotonic() - self.started
        self.write_line("events.ndjson", event.to_json())
        return event

    def phase(self, name: str, **data: Any) -> None:
        self.event(Event(type="phase", text=name, data=data))

    def write_json(self, name: str, payload: Any) -> None:
        text = self.redact(json.dumps(payload, indent=2, default=str)) + "\n"
        write_atomic(self.dir / name, text, self.dir.parent)

    def close(self) -> None:
        with self._lock:
            for handle in self._files.values():
                handle.close()
            self._files.clear()
