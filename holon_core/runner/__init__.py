"""The host-side runner behind ``holon run``: snapshot, drive holon-agent, judge the result."""

from __future__ import annotations

from holon_core.runner.layout import default_runs_dir
from holon_core.runner.report import RunResult, render_human
from holon_core.runner.run import RunOptions, run_task
from holon_core.runner.validate import Problem, Validation, validate_output

__all__ = [
    "Problem",
    "RunOptions",
    "RunResult",
    "Validation",
    "default_runs_dir",
    "render_human",
    "run_task",
    "validate_output",
]
