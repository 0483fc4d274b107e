"""``HOLON_RECORD`` checked before the engine starts: the one check the run and
``holon-agent --probe`` share, so a green probe is never followed by a refused recording.
Standard library only (the probe imports it when the variable is set)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from holon_core.errors import HolonError
from holon_core.gateway.setting import gateway_setting

VARIABLE = "HOLON_RECORD"


class RecordRefused(HolonError):
    reason = "invalid_input"


def record_target(env: Mapping[str, str]) -> Path | None:
    raw = (env.get(VARIABLE) or "").strip()
    return Path(raw).expanduser().absolute() if raw else None


def target_problem(target: Path) -> str | None:
    """Why a cassette cannot be written at ``target`` (None: it can). Missing parent
    directories are fine: they are made when the cassette is written."""
    if target.exists() and not target.is_dir():
        return f"{target} exists and is not a directory"
    if target.is_dir() and any(target.iterdir()) and not (target / "cassette.json").is_file():
        return f"{target} is a directory that holds files but no cassette (cassette.json)"
    parent = target.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"{parent} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"the directory {parent} is not writable"
    return None


def record_problem(
    env: Mapping[str, str], model_api: str | None, engine: str
) -> RecordRefused | None:
    """What stops ``HOLON_RECORD`` (``--record``) before the engine starts, or None."""
    target = record_target(env)
    if target is None:
        return None
    if (env.get("HOLON_CASSETTE") or "").strip():
        return RecordRefused(
            "--record (HOLON_RECORD) and --cassette (HOLON_CASSETTE) together: a replay's "
            "answers come from a cassette, so there is nothing new to record (and recording "
            "over the cassette being replayed would lose it)",
            hint="record against the real API without --cassette; replay without --record",
        )
    problem = target_problem(target)
    if problem is not None:
        return RecordRefused(
            f"{VARIABLE} (--record) names {target}, where no cassette can be written: {problem}",
            hint="give --record a new or empty directory, or an earlier cassette to replace",
        )
    try:
        wanted = gateway_setting(env)
    except ValueError:
        return None  # the gateway's own check names the bad value
    if not wanted:
        return no_gateway("HOLON_GATEWAY is off")
    if model_api is None:  # the gateway's setting cannot help: the engine calls no model
        return no_gateway(
            f"engine {engine} declares no model API",
            fix="record a run of an engine that calls a model API, or run without --record",
        )
    return None


def no_gateway(why: str, fix: str | None = None) -> RecordRefused:
    return RecordRefused(
        "--record (HOLON_RECORD) records the model calls the gateway sees, but this run has "
        f"no gateway: {why}",
        hint=fix
        or "run with HOLON_GATEWAY=on and the engine's API key variable set, or without --record",
    )
