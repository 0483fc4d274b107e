"""The one place where declared capabilities meet what a run asks for."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from holon_core.engine.adapter import EngineAdapter, RunContext


def capability_warnings(engine: EngineAdapter, run: RunContext) -> list[str]:
    """Requests the engine cannot honour; the run goes on and the manifest says so."""
    caps = engine.capabilities
    warnings = []
    if run.max_steps is not None and not caps.max_steps:
        warnings.append(
            f"constraints.max_steps={run.max_steps} is not enforced: engine {engine.name} "
            "cannot limit its turns (only the wall-clock timeout applies)"
        )
    if run.model is not None and not caps.model_selection:
        warnings.append(f"model {run.model!r} ignored: engine {engine.name} has a fixed model")
    return warnings
