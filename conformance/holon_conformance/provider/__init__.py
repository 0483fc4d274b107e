"""The scripted model server: real engine CLIs run offline against a replayed script."""

from __future__ import annotations

from holon_conformance.provider.recording import RecordedRequest
from holon_conformance.provider.scenario import (
    Scenario,
    ScenarioError,
    Turn,
    library_names,
    load_scenario,
    parse_scenario,
)
from holon_conformance.provider.server import ScriptedProvider

__all__ = [
    "RecordedRequest",
    "Scenario",
    "ScenarioError",
    "ScriptedProvider",
    "Turn",
    "library_names",
    "load_scenario",
    "parse_scenario",
]
