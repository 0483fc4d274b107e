"""What one holon-agent run knows so far: the pipeline fills it in, the record reads it."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holon_core.agent.evidence import Evidence
from holon_core.agent.paths import AgentPaths
from holon_core.agent.runlog import RunLog
from holon_core.engine.adapter import EngineAdapter, EngineReport, RunContext
from holon_core.errors import HolonError
from holon_core.hooks.manager import HolonPlugins
from holon_core.models.spec import Spec
from holon_core.process.supervisor import ProcessOutcome
from holon_core.untrusted.files import HeldDir
from holon_core.untrusted.redact import Redactor
from holon_core.workspace import Baseline

DEFAULT_TIMEOUT = 3600.0
DEFAULT_SILENCE = 900.0


class Cancelled(HolonError):
    reason = "cancelled"


@dataclass
class RunState:
    """What the run knows so far; the manifest is built from whatever is filled in."""

    paths: AgentPaths
    env: Mapping[str, str]
    started: float
    cancel: threading.Event
    redact: Redactor
    evidence: Evidence
    log: RunLog
    #: The output dir as opened before the launch; holon writes through it, never the path.
    out: HeldDir
    #: The open descriptor of the space reserved for the record (see output_dir.py).
    reserve: int | None = None
    engine: EngineAdapter | None = None
    plugins: HolonPlugins | None = None
    spec: Spec | None = None
    context: RunContext | None = None
    baseline: Baseline | None = None
    report: EngineReport = field(default_factory=EngineReport)
    process: ProcessOutcome | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    #: Files (relative path -> mtime_ns) in the output dir before the run; not this run's.
    preexisting: dict[str, int] = field(default_factory=dict)
    run_dir: Path | None = None
    private_state: bool = False
    timeouts: tuple[float, float] = (DEFAULT_TIMEOUT, DEFAULT_SILENCE)

    def check_cancel(self) -> None:
        if self.cancel.is_set():
            raise Cancelled("the run was cancelled before the engine finished")


def unchanged_preexisting(run: RunState) -> set[str]:
    """Files that were in the output dir before the run and were not rewritten by it."""
    stale = set()
    for rel, mtime in run.preexisting.items():
        with contextlib.suppress(OSError):
            if (run.out.view / rel).lstat().st_mtime_ns == mtime:
                stale.add(rel)
    return stale
