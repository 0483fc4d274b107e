"""One result per cell: made from ``holon run --json`` and the run's manifest, kept in
``<cell dir>/cell.json`` as soon as the cell ends and in ``results.jsonl`` for the job.

``--resume`` trusts a cell only when its ``cell.json`` names a run dir inside the cell dir
whose ``output/manifest.json`` is a valid manifest, and the run was not cancelled.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from holon_core.batch.cells import Cell
from holon_core.models.manifest import Manifest
from holon_core.untrusted.files import read_regular

CELL_FILE = "cell.json"
RESULTS_FILE = "results.jsonl"
_MAX_JSON = 4 * 1024 * 1024
#: How results.jsonl orders its keys (a reader can rely on the first few).
KEYS = (
    "cell", "task", "engine", "model", "attempt", "outcome", "reason", "exit_code",
    "duration_seconds", "tokens", "cost_usd", "files_changed", "run_dir", "tries", "error",
    "node", "rate_limit_reset_at",
)  # fmt: skip


@dataclass
class CellResult:
    cell: str
    task: str
    engine: str
    model: str | None
    attempt: int
    outcome: str = "failure"
    reason: str | None = None
    exit_code: int = 1
    duration_seconds: float = 0.0
    tokens: dict[str, int | None] = field(default_factory=dict)
    cost_usd: float | None = None
    files_changed: int | None = None
    run_dir: str | None = None
    tries: int = 1
    error: str | None = None
    node: str | None = None  # the Ray node that ran it (None: this machine)
    #: A rate-limited run: when its API said the quota resets (the gateway's record).
    rate_limit_reset_at: str | None = None

    @classmethod
    def empty(cls, cell: Cell) -> CellResult:
        return cls(cell.id, cell.task.id, cell.engine, cell.model, cell.attempt)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        return {key: data[key] for key in KEYS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CellResult:
        return cls(**{key: data[key] for key in KEYS if key in data})


def from_run_json(cell: Cell, payload: dict[str, Any]) -> CellResult:
    """The cell's result from the ``holon run --json`` object and the run's manifest."""
    result = CellResult.empty(cell)
    result.outcome = str(payload.get("outcome") or "failure")
    reason = payload.get("reason")
    result.reason = reason if isinstance(reason, str) else None
    code = payload.get("exit_code")
    result.exit_code = code if isinstance(code, int) else 1
    duration = payload.get("duration_seconds")
    result.duration_seconds = float(duration) if isinstance(duration, int | float) else 0.0
    files = payload.get("files_changed")
    result.files_changed = files if isinstance(files, int) else None
    error = payload.get("error") or payload.get("detail")
    result.error = error[:500] if isinstance(error, str) else None
    paths = payload.get("paths") if isinstance(payload.get("paths"), dict) else {}
    assert isinstance(paths, dict)
    run_dir = paths.get("run_dir")
    result.run_dir = run_dir if isinstance(run_dir, str) else None
    manifest = read_manifest(Path(run_dir)) if isinstance(run_dir, str) else None
    if manifest is not None:
        usage = manifest.metadata.usage
        if usage is not None:
            total = usage.total_tokens
            if total is None and usage.input_tokens is not None and usage.output_tokens is not None:
                total = usage.input_tokens + usage.output_tokens
            result.tokens = {
                "input": usage.input_tokens,
                "output": usage.output_tokens,
                "total": total,
            }
        cost = manifest.metadata.cost
        result.cost_usd = cost.usd if cost is not None else None
        if usage is not None:
            result.rate_limit_reset_at = usage.rate_limit_reset_at
    return result


def read_manifest(run_dir: Path) -> Manifest | None:
    """The run's manifest if it is there and valid, else None."""
    raw = read_regular(run_dir / "output" / "manifest.json", _MAX_JSON)
    if raw is None:
        return None
    try:
        return Manifest.model_validate_json(raw)
    except ValidationError:
        return None


def read_cell(cell_dir: Path) -> CellResult | None:
    """A finished cell worth keeping on ``--resume`` (see the module's rule), else None."""
    raw = read_regular(cell_dir / CELL_FILE, _MAX_JSON)
    if raw is None:
        return None
    try:
        result = CellResult.from_dict(json.loads(raw))
    except (ValueError, TypeError, KeyError):
        return None
    if result.run_dir is None or result.reason == "cancelled":
        return None
    run_dir = Path(result.run_dir)
    if run_dir.parent != cell_dir or read_manifest(run_dir) is None:
        return None
    return result


def write_cell(cell_dir: Path, result: CellResult) -> None:
    _write_atomic(cell_dir / CELL_FILE, json.dumps(result.to_dict(), indent=2) + "\n")


def write_results(path: Path, results: list[CellResult]) -> None:
    """All results, one JSON object a line, in the job's cell order."""
    _write_atomic(path, "".join(json.dumps(r.to_dict()) + "\n" for r in results))


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
