"""Run-dir bookkeeping: which runs under the runs dir are finished, running or orphaned.

``holon run`` writes :data:`RUNNER_FILE` into each run dir as soon as it exists (its pid and
that process's start time); ``run.json`` appears when the run is recorded. A run dir with
neither a finished record nor a live runner was left by a killed ``holon run`` (or one from
before this file existed): it is orphaned, and ``holon runs clean`` may remove it. Nothing
here follows a symbolic link: a link in the runs dir is not a run, and removal deletes links
inside a run dir, never what they point to.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import psutil

from holon_core.untrusted.files import open_up, read_regular

RUNNER_FILE = "runner.json"
_MAX_RUNNER = 4096
#: The runner's verdict (``RunLayout.record``): its presence means the run finished.
RECORD_FILE = "run.json"
#: A run dir this young without a runner file may be one being created right now.
_GRACE_SECONDS = 60.0
State = Literal["finished", "running", "orphaned"]


def record_runner(root: Path) -> None:
    """Write this process's pid and start time into the fresh run dir ``root``."""
    me = psutil.Process()
    data = {
        "owner": "holon run",
        "pid": me.pid,
        "started": me.create_time(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(root / RUNNER_FILE, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle)


@dataclass(frozen=True)
class RunInfo:
    id: str
    path: Path
    created: float  # epoch seconds
    state: State
    pid: int | None
    size_bytes: int

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "path": str(self.path),
            "created": datetime.fromtimestamp(self.created, UTC).isoformat(timespec="seconds"),
            "state": self.state,
            "pid": self.pid,
            "size_bytes": self.size_bytes,
        }


def list_runs(runs_dir: Path) -> list[RunInfo]:
    """Every run dir right under ``runs_dir`` (real directories named ``run-*``), oldest first."""
    try:
        entries = list(os.scandir(runs_dir))
    except FileNotFoundError:
        return []
    runs = [
        _inspect(Path(entry.path))
        for entry in entries
        if entry.name.startswith("run-") and entry.is_dir(follow_symlinks=False)
    ]
    return sorted(runs, key=lambda run: (run.created, run.id))


def _inspect(path: Path) -> RunInfo:
    runner = _read_runner(path / RUNNER_FILE)
    mtime = path.lstat().st_mtime
    created = mtime
    pid = None
    state: State = "orphaned"
    if runner is not None:
        pid, started, created = runner
        if _same_process(pid, started):
            state = "running"
    elif time.time() - mtime < _GRACE_SECONDS:
        state = "running"  # being created this instant, or a runner from before runner.json
    if _is_file(path / RECORD_FILE):
        state = "finished"
    return RunInfo(path.name, path, created, state, pid, _size(path))


def _read_runner(path: Path) -> tuple[int, float, float] | None:
    raw = read_regular(path, _MAX_RUNNER)  # the engine may have planted a FIFO or a link
    if raw is None or len(raw) > _MAX_RUNNER:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
        pid, started = int(data["pid"]), float(data["started"])
        created = datetime.fromisoformat(str(data["created"])).timestamp()
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return pid, started, created


def _same_process(pid: int, started: float) -> bool:
    """Is ``pid`` still the process that wrote the file (not a reused pid)?"""
    try:
        proc = psutil.Process(pid)
        return proc.status() != psutil.STATUS_ZOMBIE and abs(proc.create_time() - started) < 1.0
    except psutil.Error:
        return False


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _size(root: Path) -> int:
    """Bytes under ``root``, links counted as themselves (never followed)."""
    total = 0
    stack = [root]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                total += info.st_size
                if stat.S_ISDIR(info.st_mode):
                    stack.append(Path(entry.path))
    return total


def removable(run: RunInfo, older_than: float | None, now: float | None = None) -> bool:
    """A run ``holon runs clean`` may delete: never a running one."""
    if run.state == "running":
        return False
    age = (time.time() if now is None else now) - run.created
    return older_than is None or age >= older_than


def remove_run(run: RunInfo) -> None:
    """Delete one run dir; read-only dirs an engine left are made writable, links unlinked."""
    if not stat.S_ISDIR(run.path.lstat().st_mode):
        raise OSError(f"{run.path} is not a directory")
    open_up(run.path)  # an engine may have taken the owner's rwx
    shutil.rmtree(run.path)
