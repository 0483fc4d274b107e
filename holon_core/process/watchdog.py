"""A watchdog that kills an engine's processes if holon-agent is killed outright (SIGKILL).

The engine itself dies with the agent (``PR_SET_PDEATHSIG``, see
:func:`holon_core.process.reaper.die_with_parent`), but its tool processes would not: the agent
was their subreaper, and a SIGKILLed agent runs no cleanup. So a watchdog (a forked copy of
the agent) waits on a pipe the agent holds open; end-of-file without the agent having stopped
it means the agent is gone, and it SIGKILLs every process in the engine's process group or
session or carrying the run's marker variable, in rounds until none is left. One watchdog can
watch many runs in turn (serve mode's turns): each arms it for its engine and disarms it when
its tree is gone.

Limits: Linux only (``/proc``); a tool that left the engine's session *and* cleared its
environment after the agent died is not found (while the agent lives, the subreaper finds
it). The watchdog is started before the engine so the process tree counts it as the agent's
own child, never as an engine orphan.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

from holon_core.process.proc_scan import TREE_MARKER_ENV

#: How long the watchdog keeps sweeping for processes forked while it was killing.
_SWEEP_SECONDS = 10.0


class Watchdog:
    """Started before the engine; :meth:`arm` names it; :meth:`stop` ends the watch.

    A forked copy of the agent rather than a new interpreter (about 40 ms of CPU less per
    run). Between fork and exit the child only makes system calls on objects it creates: it
    takes no lock another thread of the agent could hold.
    """

    def __init__(self) -> None:
        self._pid: int | None = None
        self._fd: int | None = None
        self._owner = os.getpid()
        if not sys.platform.startswith("linux"):
            return
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            return
        if pid == 0:  # the watchdog
            try:
                _watch(read)
            finally:
                os._exit(0)
        os.close(read)
        self._pid, self._fd = pid, write

    @property
    def pid(self) -> int | None:
        """The watchdog process (None where there is none: not Linux, or the fork failed)."""
        return self._pid

    def arm(self, engine_pid: int, marker: str) -> None:
        """Tell the watchdog which process tree to kill should the agent die."""
        self._send(f"{engine_pid} {marker}\n")

    def disarm(self) -> None:
        """The armed tree is gone: there is nothing to kill should the agent die now."""
        self._send("-\n")

    def alive(self) -> bool:
        """Whether this process's watchdog still runs (it is never another process's)."""
        if self._pid is None or self._owner != os.getpid():
            return False
        try:
            return os.waitpid(self._pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False

    def _send(self, line: str) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.write(self._fd, line.encode())  # one short write: never interleaved

    def stop(self) -> None:
        """The agent cleans up itself: kill the watchdog (it ignores SIGTERM) and reap it."""
        if self._pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self._pid, 0)
            self._pid = None
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


def _watch(read: int) -> None:
    """The watchdog's life: wait for end-of-file, then kill the last tree armed, if any."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.dup2(read, 3)
    os.closerange(4, os.sysconf("SC_OPEN_MAX"))
    pending, armed = b"", None
    while True:
        try:
            got = os.read(3, 256)
        except InterruptedError:
            continue
        if not got:
            break
        *lines, pending = (pending + got).split(b"\n")
        for line in lines:  # "<engine pid> <marker>" arms, "-" disarms
            words = line.split()
            armed = words if len(words) == 2 else None
    if armed is None:
        return
    root, marker = int(armed[0]), f"{TREE_MARKER_ENV}=".encode() + armed[1]
    deadline = time.monotonic() + _SWEEP_SECONDS
    while time.monotonic() < deadline:
        left = _members(root, marker)
        if not left:
            return
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)


def _members(root: int, marker: bytes) -> list[int]:
    """Live processes in ``root``'s process group or session, or carrying ``marker``."""
    me, found = os.getpid(), []
    with os.scandir("/proc") as entries:
        names = [entry.name for entry in entries]
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            stat = _read(f"/proc/{name}/stat")
            fields = stat[stat.rindex(b")") + 2 :].split()
            if fields[0] in (b"Z", b"X"):
                continue
            if root in (int(fields[2]), int(fields[3])) or marker in _read(
                f"/proc/{name}/environ"
            ).split(b"\0"):
                found.append(int(name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _read(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
