"""Pipe threads for the supervisor: drain output to a spool, feed stdin, stop on request.

Readers append every chunk read from the engine's pipes to a :class:`Spool` (an unnamed file
in holon's run dir) and do nothing else, so the engine writes at the speed of the disk, not
at the speed holon can parse and redact. The supervising thread reads the spool behind them,
in the order the chunks were read, splits lines for the parser and stores the raw output.

Both threads poll their pipe with a short timeout instead of blocking in read/write: a
grandchild that keeps the pipe open must never make the supervisor wait forever, and closing
a file descriptor does not wake a thread blocked on it.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import fcntl
import os
import selectors
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import IO

#: Longer lines are cut to this size for the parser (the rest of the line is not parsed) so
#: memory stays bounded; the raw evidence log keeps the whole line.
MAX_LINE_BYTES = 8 * 1024 * 1024
#: Bytes asked of each read; the pipe is enlarged to this size where the kernel allows.
CHUNK_BYTES = 1024 * 1024
#: Unprocessed output the spool holds at most; past it the readers wait, the pipe fills and
#: the engine blocks on write: a flood is not throttled below this lead, and holon's disk use
#: stays bounded against an engine printing forever.
SPOOL_MAX_BACKLOG = 256 * 1024 * 1024
_POLL = 0.1
_SPLICE_NONBLOCK = getattr(os, "SPLICE_F_NONBLOCK", 0)
_STDIN_CHUNK = 256 * 1024
#: After stop(), keep reading what is already buffered for at most this long.
_DRAIN = 0.5


def enlarge_pipe(fd: int, size: int = CHUNK_BYTES) -> None:
    """Ask Linux for a larger pipe buffer (fewer wake-ups per MB); harmless where refused."""
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsize is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, setsize, size)


def _unnamed_file(directory: str | None) -> int:
    """A read-write file with no name (gone when closed, even if holon is killed)."""
    where = directory or tempfile.gettempdir()
    tmpfile = getattr(os, "O_TMPFILE", 0)
    if tmpfile:
        with contextlib.suppress(OSError):  # filesystems without O_TMPFILE support
            return os.open(where, tmpfile | os.O_RDWR | os.O_CLOEXEC, 0o600)
    fd, name = tempfile.mkstemp(prefix=".holon-spool-", dir=where)
    Path(name).unlink()
    return fd


class Spool:
    """Both output streams as read: appended by the readers, read back by the consumer.

    Each stream goes to its own unnamed file; a queue of ``[kind, end offset]`` (merged while
    one stream keeps writing) remembers the order of the reads, so the consumer sees stdout
    and stderr interleaved as the pipes delivered them. ``end offset`` None marks EOF.
    """

    def __init__(self, directory: str | None = None, max_backlog: int = SPOOL_MAX_BACKLOG) -> None:
        self.max_backlog = max_backlog
        self._fds = {kind: _unnamed_file(directory) for kind in ("out", "err")}
        self._written = dict.fromkeys(self._fds, 0)
        self._read = dict.fromkeys(self._fds, 0)
        self._order: collections.deque[list[str | int | None]] = collections.deque()
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)
        #: Set whenever there is something new for the consumer.
        self.ready = threading.Event()
        #: When the engine last delivered a byte (silence is measured here, not at the parser).
        self.last_input = time.monotonic()
        #: The first failure storing output (e.g. a full disk); the consumer raises it.
        self.error: OSError | None = None
        self._abandoned = False
        self._splice = hasattr(os, "splice")

    @property
    def backlog(self) -> int:
        """Bytes stored but not yet taken by the consumer."""
        return sum(self._written.values()) - sum(self._read.values())

    def fill(self, kind: str, pipe: int) -> int:
        """Move what the non-blocking ``pipe`` holds into the spool (reader thread): the byte
        count, 0 at EOF (or once abandoned); BlockingIOError when the pipe is empty.

        ``splice`` moves the bytes inside the kernel, one call (and one wait for the GIL) per
        pipeful; where the filesystem cannot take it, read and write.
        """
        if not self._wait_for_room():
            return 0
        if self._splice:
            try:
                moved = os.splice(pipe, self._fds[kind], CHUNK_BYTES, flags=_SPLICE_NONBLOCK)
            except OSError as exc:
                if exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                    raise
                self._splice = False
            else:
                if moved:
                    self._stored(kind, moved)
                return moved
        chunk = os.read(pipe, CHUNK_BYTES)
        self.append(kind, chunk)
        return len(chunk)

    def append(self, kind: str, chunk: bytes) -> None:
        """Store a chunk (reader thread); waits while the backlog is full, unless abandoned."""
        if not self._wait_for_room() or not chunk:
            return
        fd, view = self._fds[kind], memoryview(chunk)
        while view:
            view = view[os.write(fd, view) :]
        self._stored(kind, len(chunk))

    def _wait_for_room(self) -> bool:
        with self._room:
            while self.backlog >= self.max_backlog and not self._abandoned:
                self._room.wait(_POLL)
            return not self._abandoned

    def _stored(self, kind: str, count: int) -> None:
        with self._lock:
            self._written[kind] += count
            last = self._order[-1] if self._order else None
            if last is not None and last[0] == kind and last[1] is not None:
                last[1] = self._written[kind]
            else:
                self._order.append([kind, self._written[kind]])
        self.last_input = time.monotonic()
        self.ready.set()

    def end(self, kind: str) -> None:
        """The stream ``kind`` reached EOF (or its reader stopped)."""
        with self._lock:
            self._order.append([kind, None])
        self.ready.set()

    def take(self, limit: int = CHUNK_BYTES) -> tuple[str, bytes | None] | None:
        """The oldest stored output (consumer thread): ``(kind, bytes)``, ``(kind, None)`` at
        that stream's end, or None when there is nothing new."""
        with self._lock:
            if not self._order:
                return None
            kind, end = self._order[0]
            assert isinstance(kind, str)
            if end is None:
                self._order.popleft()
                return kind, None
            assert isinstance(end, int)
            start = self._read[kind]
        data = os.pread(self._fds[kind], min(limit, end - start), start)
        with self._room:
            # Bytes the file no longer holds (it cannot shrink under holon) count as read.
            self._read[kind] = start + len(data) if data else end
            if self._read[kind] >= self._order[0][1]:  # type: ignore[operator]
                self._order.popleft()
            self._room.notify_all()
        return kind, data

    def abandon(self) -> None:
        """Nobody will consume any more: readers stop waiting for room."""
        with self._room:
            self._abandoned = True
            self._room.notify_all()

    def drop_backlog(self) -> int:
        """Forget everything not yet taken (but keep the EOF marks); returns the bytes lost."""
        with self._room:
            lost = self.backlog
            self._read = dict(self._written)
            self._order = collections.deque(e for e in self._order if e[1] is None)
            self._room.notify_all()
        return lost

    def close(self) -> None:
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()


class ChunkReader(threading.Thread):
    """Appends every read of its pipe to the spool, then marks the stream's end there."""

    def __init__(self, stream: IO[bytes], kind: str, spool: Spool) -> None:
        super().__init__(name=f"holon-{kind}-reader", daemon=True)
        self.stream = stream
        self.kind = kind
        self.spool = spool
        self._stop_at: float | None = None
        #: True once the pipe reached EOF (every writer closed it).
        self.eof = False
        enlarge_pipe(stream.fileno())

    def stop(self) -> None:
        """Stop at EOF or once the pipe has been quiet/drained briefly, whichever is first."""
        if self._stop_at is None:
            self._stop_at = time.monotonic() + _DRAIN

    def run(self) -> None:
        fd = self.stream.fileno()
        try:
            os.set_blocking(fd, False)  # our read end only: the engine's end is unchanged
            with selectors.DefaultSelector() as sel:
                sel.register(fd, selectors.EVENT_READ)
                while True:
                    stop_at = self._stop_at
                    try:
                        moved = self.spool.fill(self.kind, fd)
                    except BlockingIOError:  # nothing to read now
                        if stop_at is not None:
                            break
                        sel.select(_POLL)
                        continue
                    if not moved:
                        self.eof = True
                        break
                    if stop_at is not None and time.monotonic() > stop_at:
                        break
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):  # the spool's disk
                self.spool.error = self.spool.error or exc
        finally:
            self.spool.end(self.kind)


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
