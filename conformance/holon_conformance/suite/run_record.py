"""What the suite observed about one run of one case (the checks read these facts)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from holon_conformance.suite.room_escape import RoomEscape


@dataclass
class RunRecord:
    """Everything observed about one run."""

    case: str
    argv: list[str]
    exit_code: int | None
    output: str
    seconds: float
    root: Path
    output_dir: Path
    workspace: Path
    manifest: dict[str, Any] | None = None
    manifest_error: str | None = None
    timed_out: bool = False
    prompt_seen: str | None = None
    input_changed: list[str] = field(default_factory=list)
    outside_writes: list[str] = field(default_factory=list)
    #: New entries in the shared /tmp during the run (snapshot: maybe other processes').
    tmp_new: list[str] = field(default_factory=list)
    #: Paths the run's own processes created in the shared /tmp (None: not traced).
    tmp_created: list[str] | None = None
    #: (pid, program, environment) of every program the run started (None: not traced).
    execs: list[tuple[int, str, dict[str, str]]] | None = None
    agent_pid: int | None = None
    refs_before: str = ""
    refs_after: str = ""
    leftovers: list[str] = field(default_factory=list)
    model_requests: int = 0
    #: Every request the scripted provider saw, as JSON (path, query, redacted headers, body).
    requests: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    #: Canary files planted as user config (see :mod:`canary`) -> their hash before the run.
    planted: dict[Path, str] = field(default_factory=dict)
    #: The room case's host side (planted key, listener and allowed-host counts), else None.
    escape: RoomEscape | None = None

    @property
    def stopped(self) -> bool:
        """The suite ended the run (a prompt on the terminal, or the run timeout)."""
        return self.timed_out or self.prompt_seen is not None

    def describe(self) -> str:
        tail = "\n".join(self.output.strip().splitlines()[-15:])
        return f"case {self.case}: exit {self.exit_code} after {self.seconds:.1f}s\n{tail}"
