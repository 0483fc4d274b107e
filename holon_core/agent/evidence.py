"""Step 8's sinks: ``evidence/`` files, every line redacted before it is written.

- ``events.ndjson``: holon's normalized events (phases included)
- ``engine.stdout.log`` / ``engine.stderr.log``: the engine's raw output, written in blocks
  and events capped per event and in total (see :mod:`holon_core.agent.evidence_stream`)
- ``execution.log``: structlog JSON lines (see :mod:`holon_core.agent.runlog`)
"""

from __future__ import annotations

import json
import threading
import time
from typing import IO, Any

from holon_core.agent.evidence_stream import EventBudget, RawLog, line_stream, redact_across
from holon_core.engine.events import Event
from holon_core.untrusted.files import HeldDir
from holon_core.untrusted.redact import KeyLines, Redactor

#: Pending events are written once they pass about this many characters (or a phase starts).
_EVENTS_BLOCK = 256 * 1024
#: What an event's JSON adds to its text, for that estimate.
_EVENT_OVERHEAD = 100


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
        self.events = EventBudget()
        self._pending: list[Event] = []  # events not yet written (one write per block)
        self._pending_chars = 0
        self._raw: dict[str, RawLog] = {}
        #: Per output stream, its last line event: not written before the stream's next line.
        self._held: dict[str, Event] = {}
        #: Per output stream, whether its lines are inside a printed private key.
        self._keys: dict[str, KeyLines] = {}

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
        self._write(name, self.redact(line) + "\n")

    def _write(self, name: str, text: str) -> None:
        with self._lock:
            if self.write_error is not None:
                return
            try:
                self._file(name).write(text)
            except OSError as exc:  # never let a full disk kill the supervisor's pump
                self.write_error = exc

    def event(self, event: Event) -> Event:
        """Number and time ``event`` and queue it for ``events.ndjson``.

        An event holding one line of the engine's output is not written before that stream's
        next line (nor anything after it, so the file keeps its order): a secret printed
        across the two lines is then redacted in both (:func:`redact_across`), which
        redacting each event alone would miss. A phase, the end, or a full block (the other
        stream kept printing) writes it anyway.
        """
        self._seq += 1
        event.seq = self._seq
        event.ts = time.monotonic() - self.started
        self.events.cap(event)
        stream = line_stream(event)
        if stream is not None:
            if event.text is not None:
                event.text = self._keys.setdefault(stream, KeyLines())(event.text)
            previous = self._held.pop(stream, None)
            if previous is not None:
                redact_across(previous, event, self.redact)
            self._held[stream] = event
        self._pending.append(event)
        self._pending_chars += len(event.text or "") + _EVENT_OVERHEAD
        if event.type == "phase" or self._pending_chars > _EVENTS_BLOCK:
            self._held.clear()
            self.flush_events()
        return event

    def flush_events(self) -> None:
        """Write the pending events up to the first one held: one redaction and one write."""
        held = [event.seq for event in self._held.values()]
        pending = self._pending
        stop = next((i for i, e in enumerate(pending) if e.seq in held), len(pending))
        if not stop:
            return
        block = pending[:stop]
        del pending[:stop]
        self._pending_chars = sum(len(e.text or "") + _EVENT_OVERHEAD for e in self._pending)
        lines = [line for event in block for line in self.events.lines(event)]
        if not lines:
            return
        text = "\n".join(lines)
        redacted = self.redact(text)
        if redacted.count("\n") != text.count("\n"):
            # A match ran from one event into the next (a key's BEGIN in one tool output,
            # its END in another): redacted together, the events between would become one
            # line. Each line is redacted alone instead, as every event is meant to be.
            redacted = "\n".join(self.redact(line) for line in lines)
        self._write("events.ndjson", redacted + "\n")

    def output(self, stream: str, chunk: bytes) -> None:
        """A chunk of the engine's raw ``stream`` (after its lines became events)."""
        self.flush_events()
        log = self._raw.setdefault(stream, RawLog())
        text = log.feed(chunk, self.redact)
        if text:
            self._write(f"engine.{stream}.log", text)

    def _finish_streams(self) -> None:
        self._held.clear()
        self.flush_events()
        for stream, log in self._raw.items():
            text = log.finish(self.redact)
            if text:
                self._write(f"engine.{stream}.log", text)
        self._raw.clear()

    def phase(self, name: str, **data: Any) -> None:
        self.event(Event(type="phase", text=name, data=data))

    def write_json(self, name: str, payload: Any) -> None:
        text = self.redact(json.dumps(payload, indent=2, default=str)) + "\n"
        try:
            self.held.write_atomic(name, text)
        except FileNotFoundError as exc:  # the engine deleted evidence/ under holon
            self.write_error = self.write_error or exc

    def close(self) -> None:
        self._finish_streams()
        with self._lock:
            for handle in self._files.values():
                try:
                    handle.close()
                except OSError as exc:  # the last buffered bytes did not fit
                    self.write_error = self.write_error or exc
            self._files.clear()
