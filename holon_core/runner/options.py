"""What ``holon run`` was asked: the options of one run (the flags of ``cli/run_cmd.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from holon_core.runner.container import ContainerOptions


@dataclass
class RunOptions:
    spec: Path | None = None  # None: the spec is written from ``goal`` (task_spec.py)
    workspace: Path = Path()
    output: Path | None = None
    runs_dir: Path | None = None
    engine: str | None = None
    model: str | None = None
    context: Path | None = None
    system_prompt: Path | None = None
    user_prompt: Path | None = None
    skills: list[Path] = field(default_factory=list)
    apply: bool = False
    keep_snapshot: bool = False
    timeout: float | None = None
    #: ``--max-cost``: the model gateway's cost limit (HOLON_MAX_COST_USD; docs/gateway.md).
    max_cost_usd: float | None = None
    #: ``--record DIR``: holon-agent writes the run's cassette there (docs/cassettes.md).
    record: Path | None = None
    progress: bool = True
    container: ContainerOptions | None = None  # run holon-agent in a container (container.py)
    serve: bool = False  # the one turn through `holon-agent serve --once` (serve/once.py)
    goal: str | None = None  # ``--goal``: the task's goal, with or without ``spec``
    report: bool = True  # report.html beside the record (holon_core/report); --no-report
