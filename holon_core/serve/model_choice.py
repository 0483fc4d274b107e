"""Which model a serve turn runs with, given the client's ``model``.

Clients always send a model (a generated client's default is often ``gpt-4o-mini``); handing
any name to the engine would make it fail, or record one model while the response claims
another. So a request's model is used only when the server maps it (``--model-map
CLIENT=ENGINE``), it is the server's own ``--model``, or the adapter says the engine takes it
(:meth:`holon_core.engine.adapter.EngineAdapter.accepts_model`). Otherwise it is ignored with a
warning (the response's ``holon.warnings``) and the server's model or the engine's default
runs; ``response.model`` then reports what the turn's manifest records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from holon_core.engine.adapter import EngineAdapter
from holon_core.errors import HolonError


class ModelMapError(HolonError):
    reason = "invalid_input"


@dataclass(frozen=True)
class ModelChoice:
    """The model for the engine (None: the server's or the engine's default) and why not."""

    model: str | None
    warning: str | None = None


def choose_model(
    requested: str | None,
    engine: EngineAdapter,
    *,
    default: str | None,
    model_map: Mapping[str, str],
) -> ModelChoice:
    if requested is None or requested == default:
        return ModelChoice(default)
    if requested in model_map:
        return ModelChoice(model_map[requested])
    if engine.capabilities.model_selection and engine.accepts_model(requested):
        return ModelChoice(requested)
    used = f"the server's model {default!r}" if default else "the engine's default model"
    return ModelChoice(
        default,
        f"model {requested[:100]!r} ignored: engine {engine.name} does not take it; "
        f"{used} ran instead (response.model names it; map names with "
        "holon-agent serve --model-map CLIENT=ENGINE)",
    )


def parse_model_map(pairs: Sequence[str]) -> dict[str, str]:
    """``--model-map CLIENT=ENGINE`` flags (repeatable) as a dict; ModelMapError if malformed."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        client, sep, engine = pair.partition("=")
        if not sep or not client.strip() or not engine.strip():
            raise ModelMapError(
                f"--model-map {pair!r} is not CLIENT=ENGINE",
                hint="e.g. --model-map gpt-4o-mini=ENGINE-MODEL (repeat for more names)",
            )
        mapping[client.strip()] = engine.strip()
    return mapping
