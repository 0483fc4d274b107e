"""One cell as one ``holon run`` process, in its own session, stoppable at any moment.

A separate process (not the runner's Python API) gives each run its own signal handling,
its own stop ladder and its own memory: a stop asks ``holon run`` (SIGTERM), which forwards it
to its agent and records a ``cancelled`` manifest; after :data:`GRACE` seconds the whole
session is killed. The child also gets SIGTERM if this process dies (``PR_SET_PDEATHSIG``),
so a killed batch or Ray worker leaves nothing running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path

import psutil

from holon_core.batch.cells import Cell
from holon_core.batch.results import CellResult, from_run_json
from holon_core.process.tree import die_with_parent

#: Seconds a stopped ``holon run`` has to record its cancelled run before it is killed.
GRACE = 30.0
_POLL = 0.2
_STDERR = "holon-run.stderr.log"


def holon_run_argv(cell: Cell, runs_dir: Path, timeout: float | None) -> list[str]:
    task = cell.task
    argv = [sys.executable, "-m", "holon_core", "run", str(task.spec)]
    argv += ["--workspace", str(task.workspace), "--runs-dir", str(runs_dir)]
    # the batch writes every cell's report.html with its own page (holon_core/report)
    argv += ["--engine", cell.engine, "--json", "--quiet", "--no-report"]
    if cell.model:
        argv += ["--model", cell.model]
    if task.context is not None:
        argv += ["--context", str(task.context)]
    if timeout is not None:
        argv += ["--timeout", f"{timeout:g}s"]
    return argv


def run_cell(
    cell: Cell,
    cell_dir: Path,
    *,
    timeout: float | None,
    env: Mapping[str, str],
    cancel: threading.Event,
) -> CellResult:
    """Run ``holon run`` for ``cell`` with its run dir under ``cell_dir``; never raises for
    what the run did (a crash of ``holon run`` itself is a ``batch_error`` result)."""
    cell_dir.mkdir(parents=True, exist_ok=True)
    argv = holon_run_argv(cell, cell_dir, timeout)
    with (
        tempfile.TemporaryFile() as out,
        (cell_dir / _STDERR).open("ab") as err,
    ):
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=dict(env),
                start_new_session=True,  # a Ctrl-C on the terminal reaches only the batch
                preexec_fn=die_with_parent(signal.SIGTERM),  # noqa: PLW1509 (prctl only)
            )
        except OSError as exc:
            return _error(cell, f"cannot start holon run: {exc}")
        code = _wait(proc, cancel)
        out.seek(0)
        raw = out.read(4 * 1024 * 1024)
    try:
        payload = json.loads(raw)
        if not isinstance(payload, dict):
            raise ValueError("not an object")
    except ValueError:
        return _error(cell, f"holon run exited {code} without a result: {_last_line(err.name)}")
    if not (cell_dir / _STDERR).stat().st_size:
        (cell_dir / _STDERR).unlink()
    return from_run_json(cell, payload)


def _last_line(path: str | int) -> str:
    """The end of what ``holon run`` printed on stderr (its error or traceback), or where."""
    try:
        with open(path, "rb") as handle:  # noqa: PTH123 (a file object's name)
            handle.seek(0, 2)
            handle.seek(max(handle.tell() - 2000, 0))
            lines = handle.read().decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return "it printed nothing on stderr"
    return lines[-1][:300] if lines else "it printed nothing on stderr"


def _wait(proc: subprocess.Popen[bytes], cancel: threading.Event) -> int:
    try:
        while not cancel.is_set():
            try:
                return proc.wait(timeout=_POLL)
            except subprocess.TimeoutExpired:
                continue
    except BaseException:  # a KeyboardInterrupt (a Ray cancel): stop the run, then go on
        _stop(proc)
        raise
    return _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> int:
    proc.send_signal(signal.SIGTERM)  # holon run forwards it and records the cancelled run
    try:
        return proc.wait(timeout=GRACE)
    except subprocess.TimeoutExpired:
        kill_session(proc.pid)
        return proc.wait()


def kill_session(pid: int) -> None:
    """SIGKILL every process of the session ``pid`` leads (the run and all it started)."""
    for proc in psutil.process_iter():
        try:
            if os.getsid(proc.pid) == pid:
                proc.kill()
        except (psutil.Error, OSError):
            continue


def _error(cell: Cell, message: str) -> CellResult:
    result = CellResult.empty(cell)
    result.reason, result.error = "batch_error", message
    return result
