"""Pipe threads for the supervisor: split output into lines, feed stdin, and stop on request.

Both poll their pipe with a short timeout instead of blocking in read/write: a grandchild that
keeps the pipe open must never make the supervisor wait forever, and closing a file
descriptor does not wake a thread blocked on it.
"""

from __future__ import annotations

import os
import queue
import selectors
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import IO

#: Longer lines are cut to this size (the rest is dropped) so memory stays bounded.
MAX_LINE_BYTES = 8 * 1024 * 1024
#: Lines queued for the supervising thread at most; a full queue stops the reader, the pipe
#: fills and the engine blocks on write: an engine flooding stdout is slowed to what holon
#: can process instead of growing holon's memory without bound.
QUEUE_LINES = 512
_POLL = 0.1
_CHUNK = 256 * 1024
#: After stop(), keep reading what is already buffered for at most this long.
_DRAIN = 0.5


class LineReader(threading.Thread):
    """Puts ``(kind, line)`` on the queue for every line, then ``(kind, None)`` at the end."""

    def __init__(
        self, stream: IO[bytes], kind: str, out: queue.Queue[tuple[str, str | None]]
    ) -> None:
        super().__init__(name=f"holon-{kind}-reader", daemon=True)
        self.stream = stream
        self.kind = kind
        self.out = out
        self._stop_at: float | None = None
        self._abandoned = threading.Event()

    def abandon(self) -> None:
        """Stop at once, dropping anything the supervisor will no longer consume."""
        self._abandoned.set()
        self.stop()

    def stop(self) -> None:
        """Stop at EOF or once the pipe has been quiet/drained briefly, whichever is first."""
        if self._stop_at is None:
            self._stop_at = time.monotonic() + _DRAIN

    def run(self) -> None:
        buf = bytearray()
        fd = self.stream.fileno()
        try:
            with selectors.DefaultSelector() as sel:
                sel.register(fd, selectors.EVENT_READ)
                while True:
                    stop_at = self._stop_at
                    if not sel.select(0 if stop_at is not None else _POLL):
                        if stop_at is not None:
                            break
                        continue
                    chunk = os.read(fd, _CHUNK)
                    if not chunk:
                        break
                    buf = self._split(buf, chunk)
                    if stop_at is not None and time.monotonic() > stop_at:
                        break
        except OSError:
            pass
        finally:
            if buf:
                self._emit(buf)
            self._put(None)

    def _split(self, buf: bytearray, chunk: bytes) -> bytearray:
        pos = 0
        while (newline := chunk.find(b"\n", pos)) != -1:
            self._append(buf, chunk[pos:newline])
            self._emit(buf)
            buf = bytearray()
            pos = newline + 1
        self._append(buf, chunk[pos:])
        return buf

    @staticmethod
    def _append(buf: bytearray, piece: bytes) -> None:
        room = MAX_LINE_BYTES - len(buf)
        if room > 0:
            buf += piece[:room]

    def _emit(self, buf: bytearray) -> None:
        self._put(buf.decode("utf-8", errors="replace"))

    def _put(self, text: str | None) -> None:
        """Queue a line, waiting while the queue is full (backpressure) unless abandoned."""
        while not self._abandoned.is_set():
            try:
                self.out.put((self.kind, text), timeout=_POLL)
                return
            except queue.Full:
                continue


class StdinWriter(threading.Thread):
    """Writes ``data`` to the child's stdin and closes it (at the end or on stop())."""

    def __init__(self, stream: IO[bytes], data: bytes) -> None:
        super().__init__(name="holon-stdin-writer", daemon=True)
        self.stream = stream
        self.data = memoryview(data)
        self._stopped = threading.Event()

    def stop(self) -> None:
        self._stopped.set()

    def run(self) -> None:
        fd = self.stream.fileno()
        try:
            os.set_blocking(fd, False)
            with selectors.DefaultSelector() as sel:
                sel.register(fd, selectors.EVENT_WRITE)
                while self.data and not self._stopped.is_set():
                    if not sel.select(_POLL):
                        continue
                    try:
                        written = os.write(fd, self.data[:_CHUNK])
                    except BlockingIOError:
                        continue
                    self.data = self.data[written:]
        except OSError:  # the child closed its stdin or exited: nothing more to feed
            pass
        finally:
            self.stream.close()
