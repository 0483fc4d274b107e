"""A watchdog that kills an engine's processes if holon-agent is killed outright (SIGKILL).

The engine itself dies with the agent (``PR_SET_PDEATHSIG``, see
:func:`holon_core.process_tree.die_with_parent`), but its tool processes would not: the agent
was their subreaper, and a SIGKILLed agent runs no cleanup. So a tiny separate process waits
on a pipe the agent holds open; end-of-file without the agent having stopped it means the
agent is gone, and it SIGKILLs every process in the engine's process group or session or
carrying the run's marker variable, in rounds until none is left.

Limits: Linux only (``/proc``); a tool that left the engine's session *and* cleared its
environment after the agent died is not found (while the agent lives, the subreaper finds
it). The watchdog is started before the engine so the process tree counts it as the agent's
own child, never as an engine orphan.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

from holon_core.process_tree import TREE_MARKER_ENV

_SCRIPT = r"""
import os, signal, sys, time
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
data = b""
while True:
    try:
        got = os.read(0, 256)
    except InterruptedError:
        continue
    if not got:
        break
    data += got
words = data.split()
if len(words) < 2:
    sys.exit(0)
root, marker = int(words[0]), sys.argv[1].encode() + b"=" + words[1]
me = os.getpid()

def members():
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read()
            fields = stat[stat.rindex(b")") + 2:].split()
            if fields[0] in (b"Z", b"X"):
                continue
            if root in (int(fields[2]), int(fields[3])):
                found.append(int(name))
                continue
            with open("/proc/%s/environ" % name, "rb") as f:
                if marker in f.read().split(b"\0"):
                    found.append(int(name))
        except (OSError, ValueError, IndexError):
            continue
    return found

deadline = time.monotonic() + 10
while time.monotonic() < deadline:
    left = members()
    if not left:
        break
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    time.sleep(0.05)
"""


class Watchdog:
    """Started before the engine; :meth:`arm` names it; :meth:`stop` ends the watch."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._fd: int | None = None
        if not sys.platform.startswith("linux"):
            return
        read, write = os.pipe()
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-S", "-I", "-c", _SCRIPT, TREE_MARKER_ENV],
                stdin=read,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={},
                cwd="/",
                close_fds=True,
            )
        except OSError:
            os.close(write)
            return
        finally:
            os.close(read)
        self._fd = write

    def arm(self, engine_pid: int, marker: str) -> None:
        """Tell the watchdog which process tree to kill should the agent die."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.write(self._fd, f"{engine_pid} {marker}\n".encode())

    def stop(self) -> None:
        """The agent cleans up itself: kill the watchdog (it ignores SIGTERM) and reap it."""
        if self._proc is not None:
            with contextlib.suppress(OSError):
                self._proc.kill()
            self._proc.wait()
            self._proc = None
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
