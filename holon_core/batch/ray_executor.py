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
- A lost cluster (its GCS does not answer for ``ray.lost_after`` seconds, default
  :data:`GCS_GRACE`, or the node this
  driver is attached to is dead): Ray would keep the tasks pending, and the driver waiting,
  while it reconnects. :class:`ClusterWatch` asks the GCS every few seconds with a deadline;
  once the cluster is lost every unfinished cell ends at once as ``lost_worker`` (an
  infrastructure failure, no run dir), which ``holon batch --resume`` runs again. No Ray call
  is made on a cell's own thread: one stuck in a dead cluster cannot hold the batch.
"""

from __future__ import annotations

import importlib
import logging
import os
import queue
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from holon_core.batch.cells import Cell, Task
from holon_core.batch.job import Job
from holon_core.batch.ray_worker import pack_task, run_on_worker, unpack
from holon_core.batch.results import CellResult
from holon_core.errors import InputError
from holon_core.runner.streams import write_safely

RESOURCE_PREFIX = "holon_engine_"
_POLL = 0.5
#: Seconds the cluster's GCS may leave every probe unanswered before the cluster counts as
#: lost (a GCS restart, or a loaded head, gets this long): the default of the job file's
#: ``ray.lost_after``.
GCS_GRACE = 30.0
#: How often the GCS is asked, and how long one answer may take.
_PROBE_EVERY, _PROBE_TIMEOUT = 2.0, 5
#: The longest ``ray.get`` of a result that ``ray.wait`` already found local.
_GET_TIMEOUT = 300.0
#: Ray's driver ends its own process (a fatal error: no results written) when the GCS stays
#: away this long (Ray's default: 60 s). Raised for the driver so :class:`ClusterWatch`
#: decides, records the cells and lets the batch finish.
_DRIVER_GCS_RECONNECT_S = "600"


def engine_resource(engine: str) -> str:
    return f"{RESOURCE_PREFIX}{engine}"


def _import_ray() -> Any:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no phoning home, works offline
    # Under ``uv run`` Ray would upload the current directory to the cluster as the job's
    # working_dir and start workers through uv: files the job never named, and workers that
    # cannot start where that uv path does not exist. holon ships only the task bundles.
    os.environ["RAY_ENABLE_UV_RUN_RUNTIME_ENV"] = "0"
    os.environ.setdefault("RAY_gcs_rpc_server_reconnect_timeout_s", _DRIVER_GCS_RECONNECT_S)
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
        where = f"at {address}" if address else "started for this job"
        self.watch = ClusterWatch(self.ray, where, grace=job.data.ray.lost_after)
        self._lost_cells = 0

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
        """The cell's Ray calls run on a helper thread; this one waits for their answer, or
        for the cluster to be lost (then the helper is left behind, whatever Ray does)."""
        done: queue.Queue[dict[str, Any] | CellResult] = queue.Queue(maxsize=1)
        gone = threading.Event()  # this cell was given up: the helper stops polling
        helper = threading.Thread(
            target=self._in_ray, args=(cell, cancel, gone, done), name=f"ray {cell.id}", daemon=True
        )
        if self.watch.lost() is None:
            helper.start()
        while True:
            try:
                answer = done.get(timeout=_POLL)
            except queue.Empty:
                if self.watch.lost() is None:
                    continue
                break
            if isinstance(answer, dict):
                return self._land(cell, self.cells_dir / cell.id, answer)
            if answer.reason != "lost_worker" or self.watch.lost() is None:
                return answer
            break  # a Ray error because the cluster is lost: said as such
        gone.set()
        with self._lock:
            self._lost_cells += 1
        lost = self.watch.lost()
        result = CellResult.empty(cell)
        result.reason = "lost_worker"  # infrastructure: --resume runs the cell again
        result.error = f"{lost}; the cell did not finish (holon batch --resume runs it again)"
        return result

    def _in_ray(
        self,
        cell: Cell,
        cancel: threading.Event,
        gone: threading.Event,
        done: queue.Queue[dict[str, Any] | CellResult],
    ) -> None:
        """Submit the cell's task and wait for it; put the worker's answer (or the cell's
        result when there is none) in ``done``."""
        try:
            done.put(self._submit_and_wait(cell, cancel, gone))
        except Exception as exc:  # Ray failing to submit or answer
            result = CellResult.empty(cell)
            result.reason, result.error = "lost_worker", f"{type(exc).__name__}: {exc}"[:500]
            done.put(result)

    def _submit_and_wait(
        self, cell: Cell, cancel: threading.Event, gone: threading.Event
    ) -> dict[str, Any] | CellResult:
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
            if gone.is_set():  # the cluster is lost: nothing to cancel or wait for
                return CellResult.empty(cell)
            if cancel.is_set():
                self.ray.cancel(ref)  # KeyboardInterrupt in the task: holon run is stopped
                result = CellResult.empty(cell)
                result.reason, result.error = "cancelled", "the batch was cancelled"
                return result
        try:
            answer: dict[str, Any] = self.ray.get(ref, timeout=_GET_TIMEOUT)
        except self.ray.exceptions.RayError as exc:  # retries used up, or the node is gone
            if isinstance(exc, self.ray.exceptions.LocalRayletDiedError):
                self.watch.declare(f"the raylet of this driver's node ({self.watch.node}) died")
            result = CellResult.empty(cell)
            result.reason, result.error = "lost_worker", f"{type(exc).__name__}: {exc}"[:500]
            return result
        return answer

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
        self.watch.stop()
        self._bundles.clear()
        lost = self.watch.lost()
        if lost is not None:
            write_safely(
                sys.stderr,
                f"holon batch: {lost}; {self._lost_cells} cells did not finish and are recorded "
                "as lost_worker (rerun with --resume, against a live cluster, to run them)\n",
            )


class ClusterWatch:
    """Whether the Ray cluster is still there: a thread asks its GCS every few seconds, each
    call with a deadline. Lost: no answer for ``grace`` seconds (counted even while a call
    hangs), or the node this driver is attached to is dead."""

    def __init__(
        self, ray: Any, where: str, *, grace: float = GCS_GRACE, every: float = _PROBE_EVERY
    ) -> None:
        self.ray, self.where, self.grace, self.every = ray, where, grace, every
        self.node: str = ray.get_runtime_context().get_node_id()
        self._gcs = getattr(getattr(ray, "_private", None), "worker", None)
        self._answered = time.monotonic()
        self._error = "no answer"
        self._why: str | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="ray cluster watch", daemon=True)
        self._thread.start()

    def lost(self) -> str | None:
        """Why the cluster counts as lost (a sentence naming it), or None while it is there."""
        with self._lock:
            silent = time.monotonic() - self._answered
            if self._why is None and silent > self.grace:
                self._why = f"its GCS has not answered for {silent:.0f} s ({self._error})"
            return (
                None if self._why is None else f"the Ray cluster {self.where} was lost: {self._why}"
            )

    def declare(self, why: str) -> None:
        """The cluster is lost for this driver, as a Ray error said."""
        with self._lock:
            self._why = self._why or why

    def stop(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.wait(self.every) and self.lost() is None:
            try:
                nodes = self._nodes()
            except Exception as exc:  # unreachable, timed out: not an answer
                with self._lock:
                    self._error = f"{type(exc).__name__}: {exc}"[:300]
                continue
            with self._lock:
                self._answered = time.monotonic()
                if self.node not in nodes:
                    self._why = f"the node this driver is attached to ({self.node}) is not known"
                elif not nodes[self.node][0]:
                    why = nodes[self.node][1] or "no reason given"
                    self._why = f"the node this driver is attached to ({self.node}) is dead: {why}"

    def _nodes(self) -> dict[str, tuple[bool, str]]:
        """Every node the GCS knows: alive, and why it died."""
        worker = getattr(self._gcs, "global_worker", None)
        gcs = getattr(worker, "gcs_client", None)
        if gcs is None:  # another Ray: its public call, whose hang lost() counts
            return {n["NodeID"]: (bool(n["Alive"]), "") for n in self.ray.nodes()}
        alive = importlib.import_module("ray.core.generated.gcs_pb2").GcsNodeInfo.ALIVE
        return {
            node_id.hex(): (info.state == alive, info.death_info.reason_message)
            for node_id, info in gcs.get_all_node_info(timeout=_PROBE_TIMEOUT).items()
        }


def _remote_cell(bundle: bytes | None, cell: Cell, **kwargs: Any) -> dict[str, Any]:
    """The Ray task: :func:`run_on_worker`, plus the node it ran on."""
    import ray

    answer = run_on_worker(bundle, cell, **kwargs)
    answer["node"] = ray.get_runtime_context().get_node_id()
    return answer
