"""What a Ray worker does with one cell: unpack the task, ``holon run`` it, pack the run dir.

Kept free of Ray imports so it is tested and type-checked like the rest; ``ray_executor``
wraps :func:`run_on_worker` as the remote task. The run's credentials come from the
worker's own environment (the one ``ray start`` was given on that node): nothing secret is
in the task's arguments, its runtime env, Ray's dashboard or its logs.
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from holon_core.batch.cells import Cell, Task
from holon_core.batch.holds import Holds
from holon_core.batch.holon_run import run_cell
from holon_core.batch.results import CellResult
from holon_core.batch.retry import with_retries
from holon_core.untrusted.files import open_up

#: Names inside a task bundle.
SPEC, CONTEXT, WORKSPACE = "spec.yaml", "context", "workspace"


def pack_task(task: Task) -> bytes:
    """The task's spec, context and workspace (dirty files, ``.git`` and all) as a tar."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
        tar.add(task.spec, arcname=SPEC, recursive=False)
        if task.context is not None:
            tar.add(task.context, arcname=CONTEXT)
        elif (task.spec.parent / "context").is_dir():  # holon run's default, made explicit
            tar.add(task.spec.parent / "context", arcname=CONTEXT)
        tar.add(task.workspace, arcname=WORKSPACE)
    return buffer.getvalue()


def pack_dir(root: Path) -> bytes:
    buffer = io.BytesIO()
    open_up(root)  # an engine may have left a dir unreadable
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
        tar.add(root, arcname=".")
    return buffer.getvalue()


def unpack(data: bytes, dest: Path) -> None:
    """Extract ``data`` into ``dest``; a member that would land outside (or link outside) is
    skipped, not followed: the run dir holds what an engine wrote."""
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(dest, filter=_skip_unsafe)


def _skip_unsafe(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
    try:
        return tarfile.data_filter(member, path)
    except tarfile.FilterError:
        return None


def run_on_worker(
    bundle: bytes | None,
    cell: Cell,
    *,
    timeout: float | None,
    retries: int,
    backoff: float,
    shared_cell_dir: str | None,
    max_cost_usd: str | None = None,
    trace_env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Run one cell here; return its result, the packed cell dir and where it ran.

    With ``shared_cell_dir`` (a filesystem every node sees) the task's own paths are used and
    the run dir is written in place: nothing travels but the result.
    """
    scratch = Path(tempfile.mkdtemp(prefix=f"holon-batch-{cell.id}-"))
    try:
        if bundle is not None:
            unpack(bundle, scratch / "task")
            base = scratch / "task"
            context = base / CONTEXT
            task = Task(
                cell.task.id, base / SPEC, base / WORKSPACE, context if context.is_dir() else None
            )
            cell = replace(cell, task=task)
        cell_dir = Path(shared_cell_dir) if shared_cell_dir else scratch / "cell"
        never = threading.Event()  # a Ray cancel interrupts this task; see RayExecutor.run

        env = {**os.environ, **(trace_env or {})}  # the batch's span: the run is its child
        if max_cost_usd is not None:  # holon batch --max-cost: each cell's budget
            env["HOLON_MAX_COST_USD"] = max_cost_usd

        def once(_try: int) -> CellResult:
            return run_cell(cell, cell_dir, timeout=timeout, env=env, cancel=never)

        holds = Holds()  # a rate-limited try waits for the reset its API announced
        result = with_retries(
            once, retries=retries, backoff=backoff, cancel=never, holds=holds, engine=cell.engine
        )
        archive = None if shared_cell_dir else pack_dir(cell_dir)
        return {
            "result": result.to_dict(),
            "archive": archive,
            "cell_dir": str(cell_dir),
            "pid": os.getpid(),
        }
    finally:
        open_up(scratch)
        shutil.rmtree(scratch, ignore_errors=True)
