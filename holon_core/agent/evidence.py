"""Step 8's sinks: ``evidence/`` files, every line redacted before it is written.

- ``events.ndjson``: holon's normalized events (phases included)
- ``engine.stdout.log`` / ``engine.stderr.log``: the engine's raw output
- ``execution.log``: structlog JSON lines (see :mod:`holon_core.agent.runlog`)
"""

from __future__ import annotations

import json
import threading
import time
from typing import IO, Any

from holon_core.events import Event
from holon_core.files import HeldDir
from holon_core.redact import Redactor


class Evidence:
    """Open evidence files for one run; call :meth:`close` on every path."""

    def __init__(self, output: HeldDir, redact: Redactor, *, started: float) -> None:
        # Opened before the engine starts; every file is created fresh through this
        # descriptor, so a link or hard link the engine plants at a name is never written to.
        self.held = output.subdir("evidence")
        self.dir = self.held.path
        #: The first error writing evidence (e.g. a full disk); later lines are dropped.
        self.write_error: OSError | None = None
        #: Permissions holon had to take back during the run (for the manifest's warnings).
        self.restored: list[str] = []
        self.redact = redact
        self.started = started
        self._seq = 0
        self._files: dict[str, IO[str]] = {}
        self._lock = threading.Lock()  # the run log may write from its attach thread

    def _file(self, name: str) -> IO[str]:
        handle = self._files.get(name)
        if handle is None:
            try:
                handle = self.held.open_new(name)
            except PermissionError:  # the engine took holon's write permission away
                note = self.held.restore_access()
                if note:
                    self.restored.append(note)
                handle = self.held.open_new(name)
            self._files[name] = handle
        return handle

    def write_line(self, name: str, line: str) -> None:
        text = self.redact(line) + "\n"
        with self._lock:
            if self.write_error is not None:
                return
            try:
                self._file(name).write(text)
            except OSError as exc:  # never let a full disk kill the supervisor's pump
                self.write_error = exc

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
        try:
            self.held.write_atomic(name, text)
        except FileNotFoundError as exc:  # the engine deleted evidence/ under holon
            self.write_error = self.write_error or exc

    def close(self) -> None:
        with self._lock:
            for handle in self._files.values():
                try:
                    handle.close()
                except OSError as exc:  # the last buffered bytes did not fit
                    self.write_error = self.write_error or exc
            self._files.clear()
