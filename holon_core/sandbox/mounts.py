"""What the room mounts, and how: an allow list of paths, nothing else exists inside.

The system's programs and libraries, a few files of ``/etc`` (users, names, certificates,
time zone, the linker's cache), the interpreter and holon's own code, and the engine's install
are read-only; the run's input is read-only; the workspace, the output dir and the run-local
home and temp dir are writable. ``/tmp`` is a fresh tmpfs, ``/proc`` the room's own, ``/dev``
a minimal one. The user's home, other repositories, ``/root``, ``/var``, ``/run`` and the
host's ``/tmp`` are not there at all: no deny list, so nothing is forgotten.

Every path keeps its host name inside, so no path in the engine's command, environment or
output needs translating.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

How = Literal["ro", "rw"]

#: Top-level system directories, mounted read-only (or recreated as the symlinks they are).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
#: What of /etc a program needs to run, resolve users, verify TLS and tell the time.
ETC_ENTRIES = (
    "passwd",
    "group",
    "hosts",
    "nsswitch.conf",
    "host.conf",
    "localtime",
    "timezone",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "pki",
    "crypto-policies",
    "alternatives",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "os-release",
    "debian_version",
    "mime.types",
    "gitconfig",
    "bash.bashrc",
    "profile",
    "inputrc",
    "terminfo",
    "environment",
    "login.defs",
)


@dataclass(frozen=True, slots=True)
class Mount:
    path: str
    how: How


def system_args() -> list[str]:
    """bwrap arguments for the system directories and /etc, read-only."""
    args: list[str] = []
    for top in SYSTEM_DIRS:
        if Path(top).is_symlink():
            args += ["--symlink", str(Path(top).readlink()), top]
        elif Path(top).is_dir():
            args += ["--ro-bind", top, top]
    for name in ETC_ENTRIES:
        etc = f"/etc/{name}"
        if Path(etc).exists() or Path(etc).is_symlink():
            args += ["--ro-bind", etc, etc]
    return args


def interpreter_paths() -> list[Path]:
    """The interpreter and holon's packages (the replay engine and the ACP bridge are Python)."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent}
    # sys.path[0] is the script's dir or the cwd: a place, not an install
    for entry in sys.path[1:]:
        if entry and Path(entry).is_dir():
            paths.add(Path(entry))
    return sorted(paths)


def plan(readable: Iterable[Path], writable: Iterable[Path]) -> list[Mount]:
    """The run's mounts, shallow first so a nested one lands on top of its parent's.

    A path both readable and writable is writable; a path under a system directory is left to
    that directory's mount; a path that does not exist is left out.
    """
    chosen: dict[str, How] = {}
    for how, paths in (("ro", readable), ("rw", writable)):
        for path in paths:
            text = str(Path(path).absolute())
            if not Path(text).exists() or (_under_system(text) and how == "ro"):
                continue
            chosen[text] = "rw" if how == "rw" else "ro"
    return [
        Mount(p, how) for p, how in sorted(chosen.items(), key=lambda i: (i[0].count("/"), i[0]))
    ]


def _under_system(path: str) -> bool:
    return any(path == top or path.startswith(top + "/") for top in SYSTEM_DIRS)


def mount_args(mounts: Iterable[Mount]) -> list[str]:
    args: list[str] = []
    for mount in mounts:
        args += ["--bind" if mount.how == "rw" else "--ro-bind", mount.path, mount.path]
    return args
