"""What the room mounts, and how: an allow list of paths, nothing else exists inside.

The system's programs and libraries, a few files of ``/etc`` (users, names, certificates,
time zone, the linker's cache), the interpreter and holon's own code, and the engine's install
are read-only; the run's input is read-only; the workspace, the output dir and the run-local
home and temp dir are writable. ``/tmp`` is a fresh tmpfs, ``/proc`` the room's own, ``/dev``
a minimal one. The user's home, other repositories, ``/root``, ``/var``, ``/run`` and the
host's ``/tmp`` are not there at all: no deny list, so nothing is forgotten.

Every path keeps its host name inside, so no path in the engine's command, environment or
output needs translating; the one exception is the git objects a snapshot borrows from the
user's repository, which the room sees under ``/run/holon-git`` (at their own name, the
original workspace's path would exist in the room).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

How = Literal["ro", "rw", "link"]

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
    #: For ``how == "link"``: where the symlink points (a program reached through a link).
    target: str | None = None
    #: Where the room sees ``path`` when not at its own name (the git objects a snapshot
    #: borrows: at their own name they would recreate the original workspace's path inside).
    inside: str | None = None


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
    # every link on the way to the interpreter (a venv's python -> a tools dir's -> the real
    # one): each becomes the same link in the room
    hop = Path(sys.executable)
    for _ in range(16):
        if not hop.is_symlink():
            break
        target = hop.readlink()
        hop = target if target.is_absolute() else hop.parent / target
        paths.add(hop)
    # sys.path[0] is the script's dir or the cwd: a place, not an install
    for entry in sys.path[1:]:
        if entry and Path(entry).is_dir():
            paths.add(Path(entry))
    return sorted(paths)


def plan(readable: Iterable[Path], writable: Iterable[Path]) -> list[Mount]:
    """The run's mounts, shallow first so a nested one lands on top of its parent's.

    A path both readable and writable is writable; a path under a system directory, or under
    a directory already mounted as (or more) writable, is left to that mount; a path that does
    not exist is left out. A readable symlink outside those becomes the same symlink in the
    room, with its target mounted.
    """
    chosen: dict[str, Mount] = {}
    homes = _homes()
    for how, paths in (("ro", readable), ("rw", writable)):
        for path in paths:
            text = str(Path(path).absolute())
            if not Path(text).exists() or (_under_system(text) and how == "ro"):
                continue
            if how == "ro" and any(_within(home, text) for home in homes):
                continue  # an install path that would bring a whole home (or /) with it
            if how == "ro" and Path(text).is_symlink():
                real = os.path.realpath(text)
                chosen[text] = Mount(text, "link", str(Path(text).readlink()))
                if real not in chosen:
                    chosen[real] = Mount(real, "ro")
                continue
            chosen[text] = Mount(text, "rw" if how == "rw" else "ro")
    kept = [m for m in chosen.values() if not _covered(m, chosen)]
    return sorted(kept, key=lambda m: (m.path.count("/"), m.path))


def _covered(mount: Mount, chosen: dict[str, Mount]) -> bool:
    """An ancestor already mounts it with the same access or more."""
    for other in chosen.values():
        if other.path == mount.path or other.how == "link":
            continue
        if _within(mount.path, other.path) and (other.how == "rw" or mount.how != "rw"):
            return True
    return False


def _homes() -> set[str]:
    """The user's home as the password database and ``HOME`` name it (holon-agent's own
    ``HOME`` may be a run-local one)."""
    import pwd

    homes = {os.environ.get("HOME", "")}
    with contextlib.suppress(KeyError):
        homes.add(pwd.getpwuid(os.getuid()).pw_dir)
    return {str(Path(h).absolute()) for h in homes if h}


def _within(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _under_system(path: str) -> bool:
    return any(path == top or path.startswith(top + "/") for top in SYSTEM_DIRS)


def mount_args(mounts: Iterable[Mount]) -> list[str]:
    args: list[str] = []
    for mount in mounts:
        if mount.how == "link" and mount.target is not None:
            args += ["--symlink", mount.target, mount.path]
        else:
            flag = "--bind" if mount.how == "rw" else "--ro-bind"
            args += [flag, mount.path, mount.inside or mount.path]
    return args
