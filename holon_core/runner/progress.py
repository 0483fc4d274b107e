"""Live progress while the agent runs, read from its ``evidence/events.ndjson``.

The runner follows the contract's own record rather than scraping the agent's stderr, so a
container runner would show the same thing. On a terminal one status line (phase, tool
count, elapsed time) is redrawn in place above scrolling tool lines; without a terminal (CI)
every interesting event is one plain, timestamped line. ``TERM=dumb`` or a non-empty
``NO_COLOR`` asks for the plain lines on a terminal too: no cursor movement, no escape
codes. The full detail stays in evidence/.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from holon_core.runner.streams import write_safely
from holon_core.untrusted.files import read_regular

#: The engine can put anything at the event log's name: open without following a link or
#: blocking on a FIFO, read only a regular file, and at most this much per tick.
_MAX_READ = 1 << 20
_SPINNER = "|/-\\"
_WIDTH = 100


class EventTail:
    """Yields the complete lines appended to a file since the last call (it may not exist yet)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0
        self._partial = b""

    def read(self) -> list[dict[str, Any]]:
        chunk = read_regular(self.path, _MAX_READ - 1, offset=self._offset)
        if chunk is None:  # missing yet, or a link/FIFO planted there: nothing to show
            return []
        self._offset += len(chunk)
        data = self._partial + chunk
        lines = data.split(b"\n")
        self._partial = lines.pop()
        events = []
        for line in lines:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                events.append(event)
        return events


def describe(event: dict[str, Any]) -> str | None:
    """One short line for an event worth showing, or None."""
    kind, data = event.get("type"), event.get("data") or {}
    if kind == "phase":
        return f"phase {event.get('text')}"
    if kind == "tool_call":
        detail = data.get("command") or data.get("path") or data.get("file_path") or ""
        return _clip(f"tool {event.get('tool') or '?'} {detail}".rstrip())
    if kind == "tool_result" and event.get("status") == "error":
        code = data.get("exit_code")
        return "tool failed" + (f" (exit {code})" if code is not None else "")
    if kind == "message" and event.get("text"):
        return _clip("say: " + str(event["text"]).strip().splitlines()[0])
    if kind == "retry":
        return _clip(f"engine retrying: {event.get('text') or ''}".rstrip(": "))
    if kind == "error":
        return _clip(f"engine error: {event.get('text') or ''}")
    if kind == "result":
        return f"engine finished ({event.get('status') or 'ok'})"
    return None


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _WIDTH else text[: _WIDTH - 3] + "..."


def plain_requested(env: Mapping[str, str]) -> bool:
    """The user asked for output without escape codes (``TERM=dumb``, ``NO_COLOR``)."""
    return env.get("TERM") == "dumb" or bool(env.get("NO_COLOR"))


class Progress:
    """Renders events to ``stream``: live status line on a TTY, plain lines otherwise."""

    def __init__(
        self,
        stream: IO[str],
        *,
        tty: bool,
        enabled: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.stream = stream
        self.tty = tty and not plain_requested(os.environ if env is None else env)
        self.enabled = enabled
        self.phase = "starting"
        self.tools = 0
        self._ticks = 0
        self._status_shown = False

    def event(self, event: dict[str, Any], elapsed: float) -> None:
        if event.get("type") == "phase":
            self.phase = str(event.get("text"))
        elif event.get("type") == "session":
            self.phase = "engine running"
        elif event.get("type") == "tool_call":
            self.tools += 1
        line = describe(event)
        if not self.enabled or line is None:
            return
        if self.tty and event.get("type") in ("phase", "message"):
            return  # shown in the status line / kept out of the scrolling log on a terminal
        self._clear()
        self._write(f"[{elapsed:6.1f}s] {line}\n")

    def tick(self, elapsed: float) -> None:
        if not (self.enabled and self.tty):
            return
        self._ticks += 1
        spin = _SPINNER[self._ticks % len(_SPINNER)]
        tools = f"{self.tools} tool call{'s' if self.tools != 1 else ''}"
        self._status_shown = self._write(f"\r\x1b[K{spin} {elapsed:6.1f}s  {self.phase}  {tools}")

    def finish(self) -> None:
        self._clear()

    def _clear(self) -> None:
        if self._status_shown:
            self._status_shown = False
            self._write("\r\x1b[K")

    def _write(self, text: str) -> bool:
        """A closed or broken stream (``holon run 2>&1 | head``) ends progress, not the run."""
        if not self.enabled:
            return False
        if not write_safely(self.stream, text):
            self.enabled = False
            return False
        return True
