"""The bounded pool both executors share: at most N cells at once, and at most M per engine.

Each running cell has a thread that waits on its executor (a ``holon run`` process, or a Ray
task); the main thread only starts cells and collects results, so a signal handler on the
main thread can set ``cancel`` at any moment. After a cancel no new cell starts and the
running ones are asked to stop; :func:`run_pool` returns once every one of them has ended.
An engine held back until its API's announced reset (:mod:`holon_core.batch.holds`) starts
no cell until then; when every cell left waits for a hold, the pool waits with them.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping
from typing import Protocol

from holon_core.batch.cells import Cell
from holon_core.batch.holds import Holds
from holon_core.batch.results import CellResult


class Executor(Protocol):
    def run(self, cell: Cell, cancel: threading.Event) -> CellResult:
        """Run one cell (with its retries) to its end; never raise for a run's own failure."""
        ...


def run_pool(
    cells: list[Cell],
    executor: Executor,
    *,
    concurrency: int,
    per_engine: Mapping[str, int],
    cancel: threading.Event,
    on_start: Callable[[Cell], None] = lambda cell: None,
    on_done: Callable[[Cell, CellResult], None] = lambda cell, result: None,
    halt: Callable[[], bool] = lambda: False,
    holds: Holds | None = None,
) -> list[CellResult]:
    """Results of the cells that ran, in the order they ended. Once ``halt()`` says so (the
    job's cost limit), no new cell starts; the running ones finish."""
    pending = list(cells)
    running: dict[str, int] = {}
    done: queue.Queue[tuple[Cell, CellResult | BaseException]] = queue.Queue()
    results: list[CellResult] = []
    active = 0

    def work(cell: Cell) -> None:
        try:
            done.put((cell, executor.run(cell, cancel)))
        except BaseException as exc:  # reported on the main thread
            done.put((cell, exc))

    while pending or active:
        while pending and active < concurrency and not cancel.is_set() and not halt():
            index = _next_fit(pending, running, per_engine, holds)
            if index is None:
                break
            cell = pending.pop(index)
            running[cell.engine] = running.get(cell.engine, 0) + 1
            active += 1
            on_start(cell)
            threading.Thread(target=work, args=(cell,), name=f"cell {cell.id}", daemon=True).start()
        if cancel.is_set() or halt():
            pending.clear()
        if not active:
            release = holds.next_release() if holds is not None and pending else None
            if release is None:
                break
            cancel.wait(min(release, 1.0))  # every cell left is held back: wait with them
            continue
        try:
            cell, outcome = done.get(timeout=0.2)
        except queue.Empty:
            continue
        active -= 1
        running[cell.engine] -= 1
        if isinstance(outcome, BaseException):
            result = CellResult.empty(cell)
            result.reason, result.error = "batch_error", f"{type(outcome).__name__}: {outcome}"
        else:
            result = outcome
        if holds is not None:  # a Ray cell's last try: its hold is seen only now
            holds.note(cell.engine, result)
        results.append(result)
        on_done(cell, result)
    return results


def _next_fit(
    pending: list[Cell],
    running: Mapping[str, int],
    limits: Mapping[str, int],
    holds: Holds | None = None,
) -> int | None:
    for index, cell in enumerate(pending):
        if holds is not None and holds.held(cell.engine):
            continue
        limit = limits.get(cell.engine)
        if limit is None or running.get(cell.engine, 0) < limit:
            return index
    return None
