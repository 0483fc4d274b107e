"""The ``ray`` executor: each cell is a Ray task that runs ``holon run`` on some node.

- Resources: every task declares ``num_cpus`` (and ``memory`` when set) and one unit of the
  custom resource ``holon_engine_<engine>``, so it lands only on nodes started with that
  resource (``ray start --resources '{"holon_engine_claude": 4}'``): nodes say which engines
  they have, and how many runs of each they take at once.
- Files: the task's spec, context and workspace travel as one tar through the object store
  (put once per task, shared by its cells); the cell's run dir comes back the same way and is
  unpacked into the same layout as the local executor. With ``ray.shared_paths: true`` the
  workers use the job's own paths (a shared filesystem) and nothing is packed.
- Credentials: never in a task's arguments or runtime env (both show in Ray's dashboard and
  state API). A worker runs ``holon run`` with its own environment, which it inherits from
  ``ray start`` on its node: export the engine's variables there.
- Traces: the cell's ``holon run`` gets the batch span's ``TRACEPARENT`` with its task (not
  secret); the ``OTEL_*`` settings, which may hold a key, come from the node's environment.
- A lost worker or node: Ray runs the task again (``ray.max_retries``); only the try that
  finished sends its run dir back, so a cell is recorded once.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from holon_core.batch.cells import Cell, Task
from holon_core.batch.job import Job
from holon_core.batch.ray_worker import pack_task, run_on_worker, unpack
from holon_core.batch.results import CellResult
from holon_core.errors import InputError

RESOURCE_PREFIX = "holon_engine_"
_POLL = 0.5


def engine_resource(engine: str) -> str:
    return f"{RESOURCE_PREFIX}{engine}"


def _import_ray() -> Any:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no phoning home, works offline
    # Under ``uv run`` Ray would upload the current directory to the cluster as the job's
    # working_dir and start workers through uv: files the job never named, and workers that
    # cannot start where that uv path does not exist. holon ships only the task bundles.
    os.environ["RAY_ENABLE_UV_RUN_RUNTIME_ENV"] = "0"
    try:
        import ray
    except ImportError:
        raise InputError(
            "the ray executor needs Ray, which is not installed",
            hint="pip install 'holon-core[ray]', or use --executor local",
        ) from None
    return ray


class RayExecutor:
    def __init__(
        self,
        job: Job,
        cells_dir: Path,
        *,
        address: str | None,
        concurrency: int,
        max_cost_usd: str | None = None,
        trace_env: Mapping[str, str] | None = None,
    ) -> None:
        self.job, self.cells_dir = job, cells_dir
        #: Each cell's cost budget (holon batch --max-cost), sent with the task: a worker's
        #: environment is its node's own.
        self.max_cost_usd = max_cost_usd
        #: ``TRACEPARENT``/``TRACESTATE`` naming the batch's span, sent with each task so the
        #: cell's run is its child (the ``OTEL_*`` settings are the node's, like credentials).
        self.trace_env = dict(trace_env or {})
        self.ray = _import_ray()
        engines = job.data.matrix.engines
        if not self.ray.is_initialized():
            if address is None:  # a private one-node Ray for this job, offering every engine
                self.ray.init(
                    resources={engine_resource(e): concurrency for e in engines},
                    include_dashboard=False,
                    log_to_driver=False,
                    logging_level=logging.WARNING,
                )
            else:
                self.ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
        self._check_resources(engines)
        self._remote = self.ray.remote(_remote_cell)
        self._bundles: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _check_resources(self, engines: list[str]) -> None:
        offered = self.ray.cluster_resources()
        missing = [e for e in engines if offered.get(engine_resource(e), 0) < 1]
        if missing:
            names = [engine_resource(e) for e in missing]
            wanted = ", ".join(f'"{name}": 4' for name in names)
            raise InputError(
                f"no node of the Ray cluster offers {', '.join(names)}",
                hint=f"start nodes that have the engine with ray start --resources '{{{wanted}}}'",
            )

    def _bundle(self, task: Task) -> Any:
        """The task's files in the object store, put once and shared by its cells."""
        with self._lock:
            if task.id not in self._bundles:
                self._bundles[task.id] = self.ray.put(pack_task(task))
            return self._bundles[task.id]

    def run(self, cell: Cell, cancel: threading.Event) -> CellResult:
        options, limits = self.job.data.ray, self.job.data.limits
        cell_dir = self.cells_dir / cell.id
        shared = str(cell_dir) if options.shared_paths else None
        declared: dict[str, Any] = {
            "num_cpus": options.num_cpus,
            "resources": {engine_resource(cell.engine): 1},
            "max_retries": options.max_retries,
            "retry_exceptions": False,  # a run's own failure is a result, never a Ray retry
        }
        if options.memory is not None:
            declared["memory"] = options.memory
        ref = self._remote.options(**declared).remote(
            None if shared else self._bundle(cell.task),
            cell,
            timeout=limits.timeout,
            retries=limits.retries,
            backoff=limits.backoff,
            shared_cell_dir=shared,
            max_cost_usd=self.max_cost_usd,
            trace_env=self.trace_env,
        )
        while True:
            ready, _ = self.ray.wait([ref], timeout=_POLL)
            if ready:
                break
            if cancel.is_set():
                self.ray.cancel(ref)  # KeyboardInterrupt in the task: holon run is stopped
                result = CellResult.empty(cell)
                result.reason, result.error = "cancelled", "the batch was cancelled"
                return result
        try:
            answer: dict[str, Any] = self.ray.get(ref)
        except self.ray.exceptions.RayError as exc:  # retries used up, or the node is gone
            result = CellResult.empty(cell)
            result.reason, result.error = "lost_worker", f"{type(exc).__name__}: {exc}"[:500]
            return result
        return self._land(cell, cell_dir, answer)

    def _land(self, cell: Cell, cell_dir: Path, answer: dict[str, Any]) -> CellResult:
        """The worker's result, with its run dir unpacked here and its paths made local."""
        result = CellResult.from_dict(answer["result"])
        result.node = answer.get("node")
        archive = answer.get("archive")
        if archive is not None:
            unpack(archive, cell_dir)
            remote = str(answer["cell_dir"])
            if result.run_dir is not None and result.run_dir.startswith(remote + "/"):
                result.run_dir = str(cell_dir) + result.run_dir[len(remote) :]
        return result

    def close(self) -> None:
        self._bundles.clear()


def _remote_cell(bundle: bytes | None, cell: Cell, **kwargs: Any) -> dict[str, Any]:
    """The Ray task: :func:`run_on_worker`, plus the node it ran on."""
    import ray

    answer = run_on_worker(bundle, cell, **kwargs)
    answer["node"] = ray.get_runtime_context().get_node_id()
    return answer
