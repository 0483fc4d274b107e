"""What a run's own processes did, from strace: files they created, environments they got.

A snapshot of the shared ``/tmp`` cannot tell the run's writes from those of every other
process on the machine. Tracing the run's process tree (``strace -f``, file-creating calls
and ``execve`` only, filtered in the kernel with ``--seccomp-bpf``) attributes each created
path and each program's environment to the run, so other processes cause no noise.
Without a working ``strace`` the harness falls back to the snapshot (see :mod:`harness`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

#: Calls that can create a path (their last quoted path argument is the new one).
_CREATING = (
    "open,openat,openat2,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,"
    "symlink,symlinkat,mknod,mknodat"
)
_LINE = re.compile(r"^(?P<call>\w+)\((?P<args>.*)\)\s+=\s+(?P<ret>-?\d+)")
_QUOTED = re.compile(r'(?:(?P<fd>\d+|AT_FDCWD)<(?P<dir>[^>]*)>,\s*)?"(?P<path>(?:[^"\\]|\\.)*)"')
_EXIT = re.compile(r"^\+\+\+ (?:exited with (?P<code>\d+)|killed by SIG(?P<sig>\w+))")


@functools.cache
def strace_binary() -> str | None:
    """``strace`` if it is installed and may trace our children here (ptrace allowed)."""
    found = shutil.which("strace")
    if found is None:
        return None
    try:
        done = subprocess.run(
            [found, "-f", "-q", "--seccomp-bpf", "-e", "trace=execve", "-o", os.devnull, "true"],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return found if done.returncode == 0 else None


def traced_argv(argv: list[str], prefix: Path) -> list[str]:
    """``argv`` under ``strace -ff``: one log per process, ``prefix.<pid>``."""
    binary = strace_binary()
    assert binary is not None
    calls = f"trace={_CREATING},execve,execveat"
    # -y: dir fds as paths; -s: whole env strings; -v: execve's envp unabbreviated; -I2:
    # SIGTERM makes strace detach and exit (with -o and a command it ignores it by default,
    # and :func:`detach_when_done` would wait for every daemon the run left traced).
    opts = ["-ff", "-q", "-y", "-v", "-s", "65536", "--seccomp-bpf", "-z", "-I2", "-e", calls]
    return [binary, *opts, "-o", str(prefix), "--", *argv]


def agent_pid(tracer: int, argv: list[str], timeout: float = 10.0) -> int | None:
    """The traced command's pid: the tracer's child running ``argv``. (Not merely its first
    child: with ``--seccomp-bpf`` strace first forks short-lived children to probe the kernel,
    and taking one for the agent would stop the trace in mid-run.)"""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(tracer).children():
                with contextlib.suppress(psutil.Error):
                    if child.cmdline() == argv:
                        return child.pid
        time.sleep(0.01)
    return None


def detach_when_done(tracer: int, agent: int | None) -> None:
    """Once the agent has exited, stop tracing: strace would otherwise wait for every
    process the run left behind (those are the leftover check's business)."""
    if agent is None or _alive(agent):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(tracer, signal.SIGTERM)  # strace detaches from the rest and exits


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@dataclass
class Trace:
    """Parsed strace logs of one run."""

    #: pid -> absolute paths it created (or opened with O_CREAT).
    created: dict[int, list[str]] = field(default_factory=dict)
    #: (pid, program, argv, environment) per successful execve.
    execs: list[tuple[int, str, list[str], dict[str, str]]] = field(default_factory=list)
    exit_codes: dict[int, int] = field(default_factory=dict)

    def created_under(self, base: Path, exclude: Path) -> list[str]:
        """Created paths inside ``base`` but not inside ``exclude``."""
        out = set()
        for paths in self.created.values():
            for path in paths:
                p = Path(path)
                if p.is_relative_to(base) and p != base and not p.is_relative_to(exclude):
                    out.add(path)
        return sorted(out)


def interpreter_roots() -> tuple[Path, ...]:
    """Where this interpreter imports from: its prefixes and the directories on ``sys.path``
    (the agent runs on the same interpreter, so the same installation and sources)."""
    found = {Path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    found |= {Path(p) for p in sys.path if p and Path(p).is_dir()}
    tmp = Path(tempfile.gettempdir())
    return tuple(sorted(p.resolve() for p in found if p.resolve() != tmp.resolve()))


_CACHE_NAME = re.compile(r"^(?P<module>[^.]+)\.[\w-]+(?:\.opt-\d+)?\.pyc(?:\.\d+)?$")


def is_own_bytecode(path: str, roots: tuple[Path, ...]) -> bool:
    """``path`` is bytecode the interpreter caches for one of its own modules (importing it for
    the first time): ``__pycache__/<module>.<tag>.pyc`` (or the ``.pyc.<id>`` it renames into
    place), or that ``__pycache__`` dir, beside the module's source, inside ``roots``.

    Such a write lands in the installation or source tree, wherever that lives (a CI clone
    under /tmp): it is no temp file of the run. A ``.pyc`` anywhere else still counts.
    """
    p = Path(path)
    if p.name == "__pycache__":
        source_dir, module = p.parent, None
    elif p.parent.name == "__pycache__" and (m := _CACHE_NAME.match(p.name)):
        source_dir, module = p.parent.parent, m.group("module")
    else:
        return False
    source_dir = source_dir.resolve()
    if not any(source_dir.is_relative_to(root) for root in roots):
        return False
    if module is None:
        return any(source_dir.glob("*.py"))
    return (source_dir / f"{module}.py").is_file()


def read_trace(prefix: Path) -> Trace:
    trace = Trace()
    for log in sorted(prefix.parent.glob(f"{prefix.name}.*")):
        try:
            pid = int(log.suffix[1:])
        except ValueError:
            continue
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            if m := _EXIT.match(line):
                code = m.group("code")
                sig = m.group("sig") or ""
                trace.exit_codes[pid] = (
                    int(code) if code is not None else -getattr(signal, f"SIG{sig}", 0)
                )
            elif m := _LINE.match(line):
                _parse_call(trace, pid, m.group("call"), m.group("args"))
    return trace


def _unescape(text: str) -> str:
    raw = text.encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1", "replace").decode("utf-8", "replace")


def _parse_call(trace: Trace, pid: int, call: str, args: str) -> None:
    if call in ("execve", "execveat"):
        head, _, env_part = args.rpartition("], [")
        strings = [_unescape(m.group("path")) for m in _QUOTED.finditer(head)]
        env = {}
        for m in _QUOTED.finditer(env_part):
            name, _, value = _unescape(m.group("path")).partition("=")
            env[name] = value
        program = strings[0] if strings else "?"
        trace.execs.append((pid, program, strings[1:], env))
        return
    if call.startswith("open") and "O_CREAT" not in args and call != "creat":
        return
    found = list(_QUOTED.finditer(args))
    if not found:
        return
    last = found[-1]
    path = _unescape(last.group("path"))
    if not path.startswith("/"):
        if last.group("dir") is None:
            return  # mkdir/rename relative to the cwd: strace does not print the cwd
        path = str(Path(_unescape(last.group("dir"))) / path)
    trace.created.setdefault(pid, []).append(os.path.normpath(path))
