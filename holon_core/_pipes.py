"""Pipe threads for the supervisor: read output in large chunks, feed stdin, stop on request.

Readers hand whole chunks (up to :data:`CHUNK_BYTES`) to the supervising thread, which writes
them raw to evidence and splits lines for the parser there: no per-line work happens between
the pipe and the queue, so a chatty engine is read at the speed holon can store its output.

Both threads poll their pipe with a short timeout instead of blocking in read/write: a
grandchild that keeps the pipe open must never make the supervisor wait forever, and closing
a file descriptor does not wake a thread blocked on it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import queue
import selectors
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import IO

#: Longer lines are cut to this size for the parser (the rest of the line is not parsed) so
#: memory stays bounded; the raw evidence log keeps the whole line.
MAX_LINE_BYTES = 8 * 1024 * 1024
#: Bytes asked of each read; the pipe is enlarged to this size where the kernel allows.
CHUNK_BYTES = 1024 * 1024
#: Chunks queued for the supervising thread at most (so at most this many MiB in memory); a
#: full queue stops the reader, the pipe fills and the engine blocks on write: an engine
#: flooding stdout is slowed to what holon can store instead of growing holon's memory.
QUEUE_CHUNKS = 16
_POLL = 0.1
_STDIN_CHUNK = 256 * 1024
#: After stop(), keep reading what is already buffered for at most this long.
_DRAIN = 0.5


def enlarge_pipe(fd: int, size: int = CHUNK_BYTES) -> None:
    """Ask Linux for a larger pipe buffer (fewer wake-ups per MB); harmless where refused."""
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsize is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, setsize, size)


class ChunkReader(threading.Thread):
    """Puts ``(kind, chunk)`` on the queue for every read, then ``(kind, None)`` at the end."""

    def __init__(
        self, stream: IO[bytes], kind: str, out: queue.Queue[tuple[str, bytes | None]]
    ) -> None:
        super().__init__(name=f"holon-{kind}-reader", daemon=True)
        self.stream = stream
        self.kind = kind
        self.out = out
        self._stop_at: float | None = None
        self._abandoned = threading.Event()
        enlarge_pipe(stream.fileno())

    def abandon(self) -> None:
        """Stop at once, dropping anything the supervisor will no longer consume."""
        self._abandoned.set()
        self.stop()

    def stop(self) -> None:
        """Stop at EOF or once the pipe has been quiet/drained briefly, whichever is first."""
        if self._stop_at is None:
            self._stop_at = time.monotonic() + _DRAIN

    def run(self) -> None:
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
                    chunk = os.read(fd, CHUNK_BYTES)
                    if not chunk:
                        break
                    self._put(chunk)
                    if stop_at is not None and time.monotonic() > stop_at:
                        break
        except OSError:
            pass
        finally:
            self._put(None)

    def _put(self, chunk: bytes | None) -> None:
        """Queue a chunk, waiting while the queue is full (backpressure) unless abandoned."""
        while not self._abandoned.is_set():
            try:
                self.out.put((self.kind, chunk), timeout=_POLL)
                return
            except queue.Full:
                continue


class LineSplitter:
    """Turns a stream of chunks into decoded lines (for the parser), cut at MAX_LINE_BYTES."""

    def __init__(self) -> None:
        self._partial = bytearray()

    def feed(self, chunk: bytes) -> list[str]:
        pieces = chunk.split(b"\n")
        if len(pieces) == 1:
            self._append(chunk)
            return []
        self._append(pieces[0])
        first = self._partial.decode("utf-8", errors="replace")
        self._partial = bytearray()
        self._append(pieces[-1])
        middle = b"\n".join(pieces[1:-1])
        lines = [first]
        if len(pieces) > 2:
            if len(middle) > MAX_LINE_BYTES:  # only then can one line be over the cap
                lines += [p[:MAX_LINE_BYTES].decode("utf-8", "replace") for p in pieces[1:-1]]
            else:  # one decode for the whole block: the common, fast path
                lines += middle.decode("utf-8", errors="replace").split("\n")
        return lines

    def flush(self) -> list[str]:
        """The last line when the stream ended without a newline."""
        if not self._partial:
            return []
        line = self._partial.decode("utf-8", errors="replace")
        self._partial = bytearray()
        return [line]

    def _append(self, piece: bytes) -> None:
        room = MAX_LINE_BYTES - len(self._partial)
        if room > 0:
            self._partial += piece[:room]


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
                        written = os.write(fd, self.data[:_STDIN_CHUNK])
                    except BlockingIOError:
                        continue
                    self.data = self.data[written:]
        except OSError:  # the child closed its stdin or exited: nothing more to feed
            pass
        finally:
            self.stream.close()
