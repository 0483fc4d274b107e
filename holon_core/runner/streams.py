"""Writing to stdout/stderr that may have been closed under us (``holon run ... | head -1``).

A broken pipe must never turn into a traceback, a crash that leaves the agent running, or
exit code 120 from Python's final flush: the failed stream is pointed at /dev/null and the
run carries on (``run.json`` still records the result).
"""

from __future__ import annotations

import contextlib
import io
import os
from typing import IO


def write_safely(stream: IO[str], text: str) -> bool:
    """Write and flush ``text``; False (and the stream silenced) when that failed."""
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):
        silence(stream)
        return False
    return True


def silence(stream: IO[str]) -> None:
    """Point the stream's file descriptor at /dev/null so later writes and flushes succeed."""
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        fd = stream.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)
