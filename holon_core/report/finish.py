"""The reports ``holon run``, ``holon solve`` and ``holon batch`` write when they finish.

A report is a view of the record, never part of the verdict: when it cannot be written the
run's outcome stands and a warning says why.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from holon_core.runner.report import RunResult


def report_finished_run(result: RunResult) -> Path | None:
    """``report.html`` in the run's output dir; its path, or None with a warning added."""
    from holon_core.report.write import write_run_report

    try:
        return write_run_report(result.output_dir, verdict=result.to_dict())
    except Exception as exc:  # a bug or a full disk in the view must not change the verdict
        result.warnings.append(f"report.html was not written: {exc}")
        return None


def report_finished_batch(results_dir: Path, stream: IO[str]) -> Path | None:
    """``report.html`` in the results dir (and each cell's); None with a warning on ``stream``."""
    from holon_core.report.write import write_batch_report

    try:
        return write_batch_report(results_dir)
    except Exception as exc:  # the view must not change the job's exit code
        stream.write(f"holon batch: warning: report.html was not written: {exc}\n")
        return None
