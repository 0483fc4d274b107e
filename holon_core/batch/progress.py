"""What ``holon batch`` shows while it runs: one live status line on a terminal, plain lines
(one per ended cell) otherwise, so a CI log stays readable."""

from __future__ import annotations

import threading
import time
from typing import IO

from holon_core.batch.cells import Cell
from holon_core.batch.results import CellResult
from holon_core.runner.streams import write_safely


class BatchProgress:
    def __init__(self, stream: IO[str], total: int, *, tty: bool, enabled: bool = True) -> None:
        self.stream, self.total, self.tty, self.enabled = stream, total, tty, enabled
        self.started = time.monotonic()
        self.running: set[str] = set()
        self.counts = {"success": 0, "failure": 0, "needs_human": 0}
        self.done = 0
        self._lock = threading.Lock()

    def start(self, cell: Cell) -> None:
        with self._lock:
            self.running.add(cell.id)
            self._status()

    def finish(self, cell: Cell, result: CellResult) -> None:
        with self._lock:
            self.running.discard(cell.id)
            self.done += 1
            self.counts[result.outcome] = self.counts.get(result.outcome, 0) + 1
            if self.enabled:
                why = f" ({result.reason})" if result.reason else ""
                retried = f", {result.tries} tries" if result.tries > 1 else ""
                self._write(
                    f"[{self.done}/{self.total}] {cell.id}: {result.outcome}{why}, "
                    f"{result.duration_seconds:.1f}s{retried}\n"
                )
            self._status()

    def close(self) -> None:
        if self.enabled and self.tty:
            write_safely(self.stream, "\r\x1b[K")

    def _status(self) -> None:
        if not (self.enabled and self.tty):
            return
        elapsed = time.monotonic() - self.started
        counts = " ".join(f"{n} {o}" for o, n in self.counts.items() if n)
        line = f"{self.done}/{self.total} done, {len(self.running)} running, {elapsed:.0f}s"
        write_safely(self.stream, f"\r\x1b[K{line}" + (f" ({counts})" if counts else ""))

    def _write(self, text: str) -> None:
        write_safely(self.stream, ("\r\x1b[K" if self.tty else "") + text)
