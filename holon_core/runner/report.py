"""What ``holon run`` tells its caller: a short human summary, or one JSON object (``--json``).

The same object is kept as ``run.json`` in the run directory, so a CI job can read it later.
``error`` is set only when the outcome is ``failure``; why a ``needs_human`` run needs a
person is in ``detail`` (as in the manifest's ``metadata.detail``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from holon_core.runner.validate import Problem

JSON_VERSION = 1


@dataclass
class RunResult:
    """The runner's verdict on one run."""

    run_id: str
    run_dir: Path
    workspace: Path
    output_dir: Path
    exit_code: int = 1
    agent_exit_code: int | None = None
    engine: str | None = None
    outcome: str = "failure"  # the manifest's, or failure when validation failed
    reason: str | None = None
    error: str | None = None  # why it failed; moved to ``detail`` unless the outcome is failure
    detail: str | None = None  # why a person must look (needs_human)
    files_changed: int | None = None
    duration_seconds: float = 0.0
    snapshot: dict[str, Any] = field(default_factory=dict)
    valid: bool = False
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    applied: bool | None = None  # None: --apply not asked
    apply_error: str | None = None
    interrupted: bool = False
    timed_out: bool = False
    state_dir: Path | None = None  # kept for debugging (HOLON_KEEP_RUN_DIR=1)
    report: Path | None = None  # report.html beside the record (holon_core/report)
    cassette: Path | None = None  # the cassette --record wrote (docs/cassettes.md)

    @property
    def manifest_path(self) -> Path | None:
        path = self.output_dir / "manifest.json"
        return path if path.is_file() else None

    def artifact(self, name: str) -> Path | None:
        path = self.output_dir / name
        return path if path.is_file() else None

    def explanation(self) -> tuple[str | None, str | None]:
        """``(error, detail)``: a failure has an error, any other outcome at most a detail."""
        if self.outcome == "failure":  # other agents may leave error out (v0.1 did)
            why = f" ({self.reason})" if self.reason else ""
            return self.error or f"the agent reported failure{why} without an error", self.detail
        return None, self.detail or self.error

    def to_dict(self) -> dict[str, Any]:
        error, detail = self.explanation()
        return {
            "version": JSON_VERSION,
            "run_id": self.run_id,
            "exit_code": self.exit_code,
            "outcome": self.outcome,
            "reason": self.reason,
            "error": error,
            "detail": detail,
            "valid": self.valid,
            "problems": [asdict(p) for p in self.problems],
            "warnings": self.warnings,
            "engine": self.engine,
            "agent_exit_code": self.agent_exit_code,
            "files_changed": self.files_changed,
            "duration_seconds": round(self.duration_seconds, 3),
            "applied": self.applied,
            "apply_error": self.apply_error,
            "interrupted": self.interrupted,
            "timed_out": self.timed_out,
            "paths": {
                "run_dir": str(self.run_dir),
                "workspace": str(self.workspace),
                "output_dir": str(self.output_dir),
                "manifest": _str(self.manifest_path),
                "patch": _str(self.artifact("diff.patch")),
                "summary": _str(self.artifact("summary.md")),
                "events": _str(self.artifact("evidence/events.ndjson")),
                "state": _str(self.state_dir),
                "report": _str(self.report),
                "cassette": _str(self.cassette),
            },
            "snapshot": self.snapshot,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"


def _str(path: Path | None) -> str | None:
    return None if path is None else str(path)


def render_human(result: RunResult) -> str:
    head = f"holon run: {result.outcome}"
    if result.reason:
        head += f" ({result.reason})"
    facts = [f"{result.duration_seconds:.1f}s"]
    if result.engine:
        facts.append(f"engine {result.engine}")
    if result.files_changed is not None:
        plural = "" if result.files_changed == 1 else "s"
        facts.append(f"{result.files_changed} file{plural} changed")
    lines = [f"{head}, {', '.join(facts)}"]
    if result.interrupted or result.timed_out:
        why = "interrupted" if result.interrupted else "--timeout expired"
        lines.append(f"  stopped   {why}: the agent was sent SIGTERM")
    error, detail = result.explanation()
    if error:
        lines.append(f"  error     {error}")
    if detail:
        lines.append(f"  detail    {detail}")
    lines += [f"  problem   {p.message}" for p in result.problems if p.message != error]
    lines += [f"  warning   {w}" for w in result.warnings]
    for label, path in (
        ("manifest", result.manifest_path),
        ("patch", result.artifact("diff.patch")),
        ("summary", result.artifact("summary.md")),
        ("report", result.report),
        ("cassette", result.cassette),
    ):
        if path is not None:
            lines.append(f"  {label:<9} {path}")
    if result.applied is not None:
        if result.applied:
            lines.append(f"  applied   to {result.workspace}")
        else:
            lines.append(f"  applied   no: {result.apply_error or 'nothing to apply'}")
    if result.snapshot.get("kept"):
        lines.append(f"  snapshot  {result.snapshot.get('path')}")
    if result.state_dir is not None:
        lines.append(f"  state     {result.state_dir} (HOLON_KEEP_RUN_DIR=1)")
    lines.append(f"  run dir   {result.run_dir}")
    return "\n".join(lines) + "\n"


class RunAborted(Exception):
    """The run ended before the agent started: bad input, or a stop signal."""

    def __init__(
        self,
        message: str,
        *,
        reason: str,
        warnings: list[str] | None = None,
        cancelled: bool = False,
        run_dir: Path | None = None,
    ) -> None:
        super().__init__(message)
        self.message, self.reason, self.cancelled = message, reason, cancelled
        self.warnings = list(warnings or [])
        self.run_dir = run_dir  # kept with --keep-snapshot, else deleted (None)
        #: The failure manifest.json written into ``--output DIR`` (runner/refusal.py).
        self.manifest: Path | None = None

    def to_dict(self, *, workspace: Path | None, apply: bool) -> dict[str, Any]:
        """The same keys as a finished run, so CI reads one shape whatever happened."""
        paths = dict.fromkeys(
            ("run_dir", "workspace", "output_dir", "manifest", "patch", "summary", "events")
        )
        paths |= {"state": None, "run_dir": _str(self.run_dir), "workspace": _str(workspace)}
        paths["report"] = paths["cassette"] = None
        if self.manifest is not None:
            paths |= {"output_dir": str(self.manifest.parent), "manifest": str(self.manifest)}
        return {
            "version": JSON_VERSION,
            "run_id": None,
            "exit_code": 1,
            "outcome": "failure",
            "reason": self.reason,
            "error": self.message,
            "detail": None,
            "valid": False,
            "problems": [],
            "warnings": self.warnings,
            "engine": None,
            "agent_exit_code": None,
            "files_changed": None,
            "duration_seconds": 0.0,
            "applied": False if apply else None,
            "apply_error": "the agent never ran" if apply else None,
            "interrupted": self.cancelled,
            "timed_out": False,
            "paths": paths,
            "snapshot": {},
        }

    def to_json(self, *, workspace: Path | None, apply: bool) -> str:
        return json.dumps(self.to_dict(workspace=workspace, apply=apply), indent=2) + "\n"
