"""Keeping the real key out of reach of the engine's process tree, in the process holding it.

Three steps, each closing one way in (docs/gateway.md, "The key stays out of the engine"):

- drop the key variables from ``os.environ``, so no later child inherits them;
- overwrite their values in the process's *initial* environment block: ``/proc/<pid>/environ``
  shows that block as the process was started, whatever ``unsetenv`` did since, and every
  process that may read it (root, or the same user while this one is dumpable) would find
  the key there; the block is written through ``/proc/self/mem``, which a process may always
  do to itself;
- become non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``): a process of the same non-root user
  can then read neither this one's environment nor its memory, where the key still is.

Cheap to import (no HTTP stack): ``holon run`` uses it too.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

_PR_SET_DUMPABLE = 4
#: 1-based fields of /proc/<pid>/stat: where the initial environment block starts and ends.
_ENV_START, _ENV_END = 50, 51


def harden_process(names: tuple[str, ...]) -> list[str]:
    """Drop ``names`` from the environment (the initial block too), become non-dumpable.

    Returns what could not be done, for the record.
    """
    present = {name for name in names if name in os.environ}
    for name in names:
        os.environ.pop(name, None)
    missing = []
    problem = scrub_initial_environ(present)
    if problem is not None:
        missing.append(problem)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
            missing.append(f"prctl(PR_SET_DUMPABLE) failed: errno {ctypes.get_errno()}")
    except (OSError, AttributeError) as exc:
        missing.append(f"prctl is not available here ({exc})")
    return missing


def scrub_initial_environ(names: set[str]) -> str | None:
    """Overwrite the values of ``names`` in this process's initial environment block with
    ``*`` (same length, so nothing else moves); None, or why it could not be done."""
    if not names:
        return None
    try:
        stat = Path("/proc/self/stat").read_bytes()
        fields = stat[stat.rindex(b")") + 2 :].split()  # field 3 (state) comes first
        start, end = int(fields[_ENV_START - 3]), int(fields[_ENV_END - 3])
        with Path("/proc/self/mem").open("r+b", buffering=0) as mem:
            mem.seek(start)
            block = mem.read(end - start)
            offset = 0
            for entry in block.split(b"\0"):
                name, sep, value = entry.partition(b"=")
                if sep and value and name.decode("utf-8", "replace") in names:
                    mem.seek(start + offset + len(name) + 1)
                    mem.write(b"*" * len(value))
                offset += len(entry) + 1
    except (OSError, ValueError, IndexError) as exc:
        return f"the key could not be scrubbed from the initial environment ({exc})"
    return None
