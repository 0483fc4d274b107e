"""Where a report goes and how it is written: beside the record, atomically, never through
a link someone planted at its name (the engine can write its output dir)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from holon_core.errors import InputError
from holon_core.report import run_page
from holon_core.report.load import cell_output_dir, kind_of, load_batch, load_run, load_task
from holon_core.untrusted.files import HeldDir
from holon_core.untrusted.json_files import obj

REPORT_NAME = "report.html"


def write_report(path: Path, out: Path | None = None) -> Path:
    """The report of whatever record ``path`` is (run dir, output dir, batch results dir)."""
    path = path.expanduser().absolute()
    if kind_of(path) == "batch":
        return write_batch_report(path, out)
    return write_run_report(path, out)


def write_run_report(
    path: Path, out: Path | None = None, *, verdict: dict[str, Any] | None = None
) -> Path:
    """One run's page; by default ``report.html`` in its output dir, beside manifest.json.

    ``verdict``: ``holon run``'s result object, when the caller has it before ``run.json``.
    """
    record = load_run(path)
    if verdict is not None:  # before run.json exists: the run dir is the verdict's
        record.verdict = verdict
        run_dir = obj(verdict.get("paths")).get("run_dir")
        if record.run_dir is None and isinstance(run_dir, str):
            record.run_dir = Path(run_dir)
            record.task = load_task(record.run_dir)
    target = _target(out, record.output_dir)
    _write(target, run_page.render(record, target.parent))
    return target


def write_batch_report(results_dir: Path, out: Path | None = None) -> Path:
    """The batch page in the results dir, and each cell's run page beside its record."""
    from holon_core.report import batch_page  # the batch package: only for a batch's page

    batch = load_batch(results_dir)
    pages: dict[str, Path] = {}
    for row in batch.rows:
        output_dir = cell_output_dir(results_dir, row)
        cell = row.get("cell")
        if output_dir is None or not isinstance(cell, str) or not output_dir.is_dir():
            continue
        try:
            pages[cell] = write_run_report(output_dir)
        except (OSError, InputError):
            continue  # a cell whose dir cannot be written is shown without a link
    target = _target(out, results_dir)
    _write(target, batch_page.render(batch, target.parent, pages))
    return target


def _target(out: Path | None, default_dir: Path) -> Path:
    """Where the page goes. ``--out`` may name an existing file only when it is a page holon
    wrote: a typo must not replace a user's file (beside the record, ``report.html`` is
    holon's name, replaced whatever the engine put there)."""
    if out is None:
        return default_dir / REPORT_NAME
    out = out.expanduser().absolute()
    if out.is_dir():
        out = out / REPORT_NAME
    if (out.exists() or out.is_symlink()) and not _holon_page(out):
        raise InputError(
            f"--out {out} exists and is not a report holon wrote; it is left as it is",
            hint="give --out a new file name, a directory, or a report holon wrote earlier",
        )
    return out


def _holon_page(path: Path) -> bool:
    """Whether ``path`` is a regular file that starts as every page holon writes does."""
    from holon_core.report.page import PAGE_START
    from holon_core.untrusted.files import read_regular

    head = read_regular(path, len(PAGE_START))
    return head is not None and head[: len(PAGE_START)] == PAGE_START.encode()


def _write(target: Path, html: str) -> None:
    try:
        held = HeldDir.open(target.parent)
    except OSError as exc:
        raise InputError(
            f"cannot write the report to {target}: {exc.strerror or exc}",
            hint="give --out a file in a directory that exists and you can write",
        ) from exc
    try:
        held.write_atomic(target.name, html)
    except OSError as exc:
        raise InputError(
            f"cannot write the report to {target}: {exc.strerror or exc}",
            hint="give --out a file in a directory you can write",
        ) from exc
    finally:
        held.close()
