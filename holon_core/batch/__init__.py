"""``holon batch``: many ``holon run``s from one job file, on this machine or on Ray."""

from __future__ import annotations

from holon_core.batch.job import Job, load_job
from holon_core.batch.results import CellResult
from holon_core.batch.run import BatchOptions, BatchOutcome, run_batch

__all__ = ["BatchOptions", "BatchOutcome", "CellResult", "Job", "load_job", "run_batch"]
