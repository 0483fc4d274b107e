"""``holon batch``: load the job, expand the matrix, skip what ``--resume`` may keep, run the
rest through an executor, and write ``results.jsonl`` and ``report.md``.

Layout of the results dir (the same for every executor)::

    job.json                  which job and cells this dir belongs to
    results.jsonl             one line per cell, in the job's cell order
    report.md                 per engine: success rate, median time and tokens; every cell
    report.html               the same with charts and a link to each cell's page (--no-report)
    cells/<cell id>/run-*/    the cell's ``holon run`` dir (output/manifest.json, run.json, ...)
    cells/<cell id>/cell.json the cell's result, written as soon as it ends
    tasks/, workspaces/       inline specs and git clones, made once per job
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from holon_core.batch.cells import Cell, expand, prepare_tasks
from holon_core.batch.holds import Holds
from holon_core.batch.job import Job, load_job
from holon_core.batch.metering import unmetered_refusal
from holon_core.batch.pool import Executor, run_pool
from holon_core.batch.progress import BatchProgress
from holon_core.batch.report import markdown_report
from holon_core.batch.results import RESULTS_FILE, CellResult, read_cell, write_cell, write_results
from holon_core.errors import InputError
from holon_core.telemetry.hooks import Tracing
from holon_core.telemetry.hooks import begin as begin_tracing
from holon_core.telemetry.setting import CONTEXT_VARS
from holon_core.untrusted.files import open_up

JOB_FILE = "job.json"


@dataclass
class BatchOptions:
    job: Path
    executor: Literal["local", "ray"] = "local"
    address: str | None = None
    concurrency: int | None = None
    resume: bool = False
    results: Path | None = None
    progress: bool = True
    report: bool = True  # report.html in the results dir (holon_core/report); --no-report


@dataclass
class BatchOutcome:
    job: Job
    results: list[CellResult]  # every cell that has a result, in cell order
    total: int
    cancelled: bool
    report: Path | None = None

    @property
    def exit_code(self) -> int:
        """0 every cell succeeded; 2 the worst is needs_human; 1 a failure or cells missing."""
        if self.cancelled or len(self.results) < self.total:
            return 1
        outcomes = {r.outcome for r in self.results}
        if outcomes <= {"success"}:
            return 0
        return 2 if outcomes <= {"success", "needs_human"} else 1


def run_batch(
    options: BatchOptions,
    env: Mapping[str, str],
    stream: IO[str],
    cancel: threading.Event,
    *,
    tty: bool = False,
) -> BatchOutcome:
    tracing = begin_tracing(env, "holon batch")  # OTel traces only when asked (telemetry.md)
    job, cells, kept = _plan(options, env)
    cells_dir = job.results / "cells"
    todo = [c for c in cells if c.id not in kept]
    limits = job.data.limits
    concurrency = options.concurrency or limits.concurrency
    if tracing is not None:
        env = {**env, **tracing.child_env()}  # the cells' runs join the batch's span
    holds = Holds()  # engines held back until their announced rate-limit reset
    executor = _executor(options, job, cells_dir, env, concurrency, holds=holds)
    progress = BatchProgress(stream, len(todo), tty=tty, enabled=options.progress)
    fresh: dict[str, CellResult] = {}

    def over_budget() -> bool:
        return limits.max_cost_usd is not None and _spent(kept | fresh) >= limits.max_cost_usd

    def done(cell: Cell, result: CellResult) -> None:
        fresh[cell.id] = result
        write_cell(cells_dir / cell.id, result)
        write_results(job.results / RESULTS_FILE, _ordered(cells, kept | fresh))
        progress.finish(cell, result)

    try:
        run_pool(
            todo,
            executor,
            concurrency=concurrency,
            per_engine=limits.per_engine,
            cancel=cancel,
            on_start=progress.start,
            on_done=done,
            halt=over_budget,
            holds=holds,
        )
    finally:
        progress.close()
        close = getattr(executor, "close", None)
        if close is not None:
            close()
    results = _ordered(cells, kept | fresh)
    if over_budget() and len(results) < len(cells):
        stream.write(
            f"holon batch: the job's cells cost ${_spent(kept | fresh):.4f}, reaching "
            f"limits.max_cost_usd ${limits.max_cost_usd}: {len(cells) - len(results)} cells "
            "were not started (raise the limit and rerun with --resume)\n"
        )
    report = _write_reports(job, results, stream, tracing=tracing, html=options.report)
    return BatchOutcome(job, results, len(cells), cancel.is_set(), report)


def _plan(
    options: BatchOptions, env: Mapping[str, str]
) -> tuple[Job, list[Cell], dict[str, CellResult]]:
    """The job, its cells and (with ``--resume``) the results kept; the rest start afresh."""
    job = load_job(options.job)
    if options.results is not None:
        job.results = options.results.expanduser().absolute()
    refused = unmetered_refusal(job, env)
    if refused is not None:
        raise refused
    _claim(job, options.resume)
    tasks = prepare_tasks(job, dict(env))
    cells = expand(job, tasks)
    _record_job(job, cells)
    cells_dir = job.results / "cells"
    kept = {c.id: r for c in cells if options.resume and (r := read_cell(cells_dir / c.id))}
    for cell in cells:  # a cell killed halfway starts over from nothing
        if cell.id not in kept:
            _remove(cells_dir / cell.id)
    return job, cells, kept


def _write_reports(
    job: Job,
    results: list[CellResult],
    stream: IO[str],
    *,
    tracing: Tracing | None,
    html: bool,
) -> Path | None:
    """results.jsonl and report.md, the batch's span, and report.html when asked."""
    write_results(job.results / RESULTS_FILE, results)
    (job.results / "report.md").write_text(markdown_report(job.name, results), encoding="utf-8")
    if tracing is not None:
        tracing.export_batch(job.name, [r.outcome for r in results], [r.cost_usd for r in results])
    if not html:
        return None
    from holon_core.report.finish import report_finished_batch

    return report_finished_batch(job.results, stream)


def _executor(
    options: BatchOptions,
    job: Job,
    cells_dir: Path,
    env: Mapping[str, str],
    concurrency: int,
    *,
    holds: Holds,
) -> Executor:
    if options.executor == "ray":
        from holon_core.batch.ray_executor import RayExecutor

        cost = env.get("HOLON_MAX_COST_USD")  # holon batch --max-cost: per cell
        trace = {name: env[name] for name in CONTEXT_VARS if name in env}  # the batch's span
        return RayExecutor(
            job,
            cells_dir,
            address=options.address,
            concurrency=concurrency,
            max_cost_usd=cost,
            trace_env=trace,
        )
    if options.address is not None:
        raise InputError("--address is for the ray executor", hint="add --executor ray")
    from holon_core.batch.local import LocalExecutor

    return LocalExecutor(cells_dir, job.data.limits, env, holds)


def _spent(known: Mapping[str, CellResult]) -> float:
    """What the job's cells cost so far (cells whose cost is unknown count nothing)."""
    return sum(r.cost_usd or 0.0 for r in known.values())


def _ordered(cells: list[Cell], known: Mapping[str, CellResult]) -> list[CellResult]:
    return [known[c.id] for c in cells if c.id in known]


def _claim(job: Job, resume: bool) -> None:
    """A results dir belongs to one job; reusing it needs ``--resume``."""
    marker = job.results / JOB_FILE
    if marker.exists() and not resume:
        raise InputError(
            f"{job.results} already holds the results of a job",
            hint="pass --resume to continue it, or --results DIR for a fresh one",
        )
    if job.results.exists() and not marker.exists() and any(job.results.iterdir()):
        raise InputError(
            f"{job.results} is not empty and is not a holon batch results dir",
            hint="choose another --results DIR (or results: in the job file)",
        )
    job.results.mkdir(parents=True, exist_ok=True)


def _record_job(job: Job, cells: list[Cell]) -> None:
    data = {"job": str(job.path), "name": job.name, "cells": [c.id for c in cells]}
    (job.results / JOB_FILE).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _remove(path: Path) -> None:
    if path.is_symlink():
        path.unlink()
    elif path.exists():
        open_up(path)
        shutil.rmtree(path)
