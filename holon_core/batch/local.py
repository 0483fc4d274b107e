"""The ``local`` executor: each cell is a ``holon run`` process on this machine."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

from holon_core.batch.cells import Cell
from holon_core.batch.holds import Holds
from holon_core.batch.holon_run import run_cell
from holon_core.batch.job import Limits
from holon_core.batch.results import CellResult
from holon_core.batch.retry import with_retries


class LocalExecutor:
    def __init__(
        self, cells_dir: Path, limits: Limits, env: Mapping[str, str], holds: Holds | None = None
    ) -> None:
        self.cells_dir, self.limits, self.env = cells_dir, limits, env
        #: Engines held back until their API's announced reset, shared with the pool.
        self.holds = holds

    def run(self, cell: Cell, cancel: threading.Event) -> CellResult:
        cell_dir = self.cells_dir / cell.id

        def once(_try: int) -> CellResult:
            return run_cell(
                cell, cell_dir, timeout=self.limits.timeout, env=self.env, cancel=cancel
            )

        return with_retries(
            once,
            retries=self.limits.retries,
            backoff=self.limits.backoff,
            cancel=cancel,
            holds=self.holds,
            engine=cell.engine,
        )
