"""What a caller asks of one run (``AgentOptions``) and how it ended (``TurnResult``).

One-shot ``holon-agent`` keeps the defaults; serve mode's turns fill the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from holon_core.engine.events import Event
from holon_core.record.outcome import Decision

if TYPE_CHECKING:
    from holon_core.engine.adapter import EngineReport
    from holon_core.engine.checks import Check
    from holon_core.hooks.manager import HolonPlugins
    from holon_core.models.spec import Spec


@dataclass
class AgentOptions:
    engine: str | None = None
    model: str | None = None
    skills: list[Path] = field(default_factory=list)
    # Serve mode (holon_core/serve/turn.py) sets the fields below; one-shot keeps the defaults.
    #: The engine's own session id to continue (``RunContext.resume_session``).
    resume_session: str | None = None
    #: A persistent engine home that outlives the run (``RunContext.home_root``).
    home_root: Path | None = None
    mode: Literal["run", "serve"] = "run"
    #: Plugins loaded once by a long-lived caller (else loaded for this run).
    plugins: HolonPlugins | None = None
    #: The turn's spec, built by the caller (else read from ``<input>/spec.yaml``).
    spec: Spec | None = None
    #: Text put before the task in the user prompt (earlier turns, for engines without resume).
    history: str = ""
    #: Added to the system prompt (an Open Responses request's ``instructions``).
    instructions: str = ""
    #: Called with every normalized event as it is recorded (serve streams them).
    on_event: Callable[[Event], None] | None = None
    #: Preflight a long-lived caller already ran: (binary, version, checks).
    preflight: tuple[Path | None, str | None, list[Check]] | None = None
    #: The serve session's model gateway, leased to each turn (``gateway/session.py``).
    gateway: object = None


@dataclass(frozen=True)
class TurnResult:
    """How one run ended: the decision (also in manifest.json) and the engine's report."""

    decision: Decision
    report: EngineReport

    @property
    def exit_code(self) -> int:
        return self.decision.exit_code
