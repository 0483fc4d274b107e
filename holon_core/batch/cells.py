"""The job's matrix expanded into cells: one cell is one ``holon run``.

Tasks are made concrete first (an inline spec written to a file, a git workspace cloned at
its ref into the results dir), once per job, so every cell of a task sees the same files.
Cell ids are stable (``<task>.<engine>[.<model>].<attempt>``): ``--resume`` and the results
table rely on them.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from holon_core.batch.job import GitSource, Job, TaskEntry
from holon_core.errors import InputError

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class Task:
    id: str
    spec: Path
    workspace: Path
    context: Path | None


@dataclass(frozen=True)
class Cell:
    id: str
    task: Task
    engine: str
    model: str | None
    attempt: int

    def describe(self) -> dict[str, Any]:
        """The cell's identity as JSON (what a Ray worker receives, and results.jsonl keeps)."""
        data = asdict(self)
        data["task"] = {k: (str(v) if v is not None else None) for k, v in data["task"].items()}
        return data


def expand(job: Job, tasks: list[Task]) -> list[Cell]:
    """Task-major order: every engine, model and attempt of the first task, then the next."""
    matrix = job.data.matrix
    cells = []
    for task in tasks:
        for engine in matrix.engines:
            for model in matrix.models:
                for attempt in range(1, matrix.attempts + 1):
                    cells.append(
                        Cell(cell_id(task.id, engine, model, attempt), task, engine, model, attempt)
                    )
    return cells


def engine_cell_ids(job: Job, engine: str) -> list[str]:
    """The ids of ``engine``'s cells, in cell order, before any task is prepared."""
    matrix = job.data.matrix
    return [
        cell_id(entry.id, engine, model, attempt)
        for entry in job.data.tasks
        for model in matrix.models
        for attempt in range(1, matrix.attempts + 1)
    ]


def cell_id(task: str, engine: str, model: str | None, attempt: int) -> str:
    parts = [task, engine] + ([_UNSAFE.sub("_", model)] if model else [])
    return ".".join([*parts, str(attempt)])


def prepare_tasks(job: Job, env: dict[str, str] | None = None) -> list[Task]:
    """Concrete paths for every task; git workspaces are cloned under ``<results>/workspaces``."""
    return [_prepare(job, entry, env) for entry in job.data.tasks]


def _prepare(job: Job, entry: TaskEntry, env: dict[str, str] | None) -> Task:
    where = f"{job.path}: task {entry.id}"
    if isinstance(entry.spec, dict):
        spec = job.results / "tasks" / entry.id / "spec.yaml"
        spec.parent.mkdir(parents=True, exist_ok=True)
        spec.write_text(yaml.safe_dump(entry.spec, sort_keys=False), encoding="utf-8")
        if entry.context is None:
            context: Path | None = None
        else:
            context = job.resolve(entry.context)
    else:
        spec = job.resolve(entry.spec)
        if not spec.is_file():
            raise InputError(f"{where}: spec {spec} is not a file", hint="fix tasks[].spec")
        context = job.resolve(entry.context) if entry.context else None
    if context is not None and not context.is_dir():
        raise InputError(
            f"{where}: context {context} is not a directory", hint="fix tasks[].context"
        )
    if isinstance(entry.workspace, GitSource):
        workspace = _clone(entry.workspace, job.results / "workspaces" / entry.id, where, env)
    else:
        workspace = job.resolve(entry.workspace)
        if not workspace.is_dir():
            raise InputError(
                f"{where}: workspace {workspace} is not a directory",
                hint="fix tasks[].workspace, or give {git: URL, ref: REF}",
            )
    return Task(entry.id, spec, workspace, context)


def _clone(source: GitSource, dest: Path, where: str, env: dict[str, str] | None) -> Path:
    """Clone once; a resumed job reuses the clone (checked out at the same ref)."""
    env = dict(os.environ if env is None else env)
    env.setdefault("GIT_TERMINAL_PROMPT", "0")  # never ask for a password on a terminal
    if not (dest / ".git").is_dir():
        dest.parent.mkdir(parents=True, exist_ok=True)
        _git(["clone", "--quiet", "--no-checkout", "--", source.git, str(dest)], None, where, env)
    _git(["checkout", "--quiet", "--force", "--detach", source.ref], dest, where, env)
    return dest


def _git(args: list[str], cwd: Path | None, where: str, env: dict[str, str]) -> None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
        )
    except OSError as exc:
        raise InputError(f"{where}: cannot run git: {exc}", hint="install git") from None
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
        raise InputError(
            f"{where}: git {args[0]} failed: {tail[0]}",
            hint="check tasks[].workspace.git and .ref (the URL must be reachable, the ref exist)",
        )
