"""``HOLON_CASSETTE`` (``--cassette``) checked before the engine starts: the one check the
run and ``holon-agent --probe`` share, so a green probe is never followed by a refused replay.

The admission (:mod:`holon_core.agent.admission`) and the run's replay
(:mod:`holon_core.agent.replay_cassette`) both load through :func:`admit_replay`. The
cassette is read whole (pydantic) only when the variable is set, so a probe without it pays
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.errors import HolonError
from holon_core.gateway.setting import gateway_setting

if TYPE_CHECKING:
    from holon_core.cassette.format import Cassette
    from holon_core.cassette.replay import Mode

VARIABLE = "HOLON_CASSETTE"
MODE_VARIABLE = "HOLON_CASSETTE_MODE"


class ReplayRefused(HolonError):
    reason = "invalid_input"


def cassette_dir(env: Mapping[str, str]) -> Path | None:
    raw = (env.get(VARIABLE) or "").strip()
    return Path(raw).expanduser().absolute() if raw else None


def replay_mode(env: Mapping[str, str]) -> Mode:
    raw = (env.get(MODE_VARIABLE) or "strict").strip().lower()
    if raw not in ("strict", "lenient"):
        raise ReplayRefused(
            f"{MODE_VARIABLE} (--cassette-mode) is {raw!r}; it takes strict or lenient",
            hint="use --cassette-mode strict (the default) or lenient",
        )
    return "lenient" if raw == "lenient" else "strict"


def admit_replay(
    env: Mapping[str, str], model_api: str | None, engine: str
) -> tuple[Cassette, Mode] | None:
    """The cassette ``HOLON_CASSETTE`` names and the mode, or None when it is unset; raises
    :class:`ReplayRefused` (or the format's ``CassetteError``) naming what cannot replay."""
    root = cassette_dir(env)
    if root is None:
        return None
    mode = replay_mode(env)
    if (env.get("HOLON_RECORD") or "").strip():
        raise ReplayRefused(
            "--cassette (HOLON_CASSETTE) and --record (HOLON_RECORD) were both given: a "
            "replayed run makes no new model calls to record",
            hint="replay with --cassette DIR, or record with --record DIR, not both",
        )
    if model_api is None:
        raise ReplayRefused(
            f"--cassette replays model calls, but engine {engine} makes none "
            "(it declares no model API)",
            hint="replay the cassette with the engine that recorded it (holon cassette show "
            "DIR names it), or run without --cassette",
        )
    try:
        wanted = gateway_setting(env)
    except ValueError:
        wanted = True  # the gateway's own check names the bad value
    if not wanted:
        raise no_gateway("HOLON_GATEWAY is off")
    if root.exists() and not root.is_dir():
        raise ReplayRefused(
            f"--cassette (HOLON_CASSETTE) names {root}, which is not a directory",
            hint="give the directory --record wrote",
        )
    from holon_core.cassette.format import read_cassette

    cassette = read_cassette(root)
    recorded = cassette.info.engine.name
    if recorded != engine:
        raise ReplayRefused(
            f"the cassette {root} was recorded with engine {recorded}, not {engine}",
            hint=f"replay it with --engine {recorded}",
        )
    missing = missing_bodies(cassette)
    if missing:
        raise ReplayRefused(
            f"the cassette {root} is incomplete: {len(missing)} of the bodies its calls name "
            f"are not in {root / 'bodies'} (the first: {missing[0]})",
            hint="copy the cassette with its bodies/ directory, or record it again",
        )
    return cassette, mode


def missing_bodies(cassette: Cassette) -> list[str]:
    """The stored parts the calls name that ``bodies/`` lacks (names only: the replay reads
    them and checks their hashes)."""
    from holon_core.cassette.format import BODIES_DIR, REF_KEY

    wanted: list[str] = []

    def refs(skeleton: object) -> None:
        if isinstance(skeleton, dict):
            if set(skeleton) == {REF_KEY} and isinstance(skeleton[REF_KEY], str):
                wanted.append(skeleton[REF_KEY])
                return
            for value in skeleton.values():
                refs(value)
        elif isinstance(skeleton, list):
            for item in skeleton:
                refs(item)

    for call in cassette.calls:
        for body in (call.request, call.response):
            if body is not None:
                wanted += [body.sha256] if body.sha256 else []
                refs(body.skeleton)
        wanted += [event.sha256 for event in call.events or () if event.sha256]
    store = cassette.root / BODIES_DIR
    return [d for d in dict.fromkeys(wanted) if not (store / d).is_file()]


def no_gateway(why: str) -> ReplayRefused:
    return ReplayRefused(
        "--cassette (HOLON_CASSETTE) answers the model calls the gateway sees, but this run "
        f"has no gateway: {why}",
        hint="run with HOLON_GATEWAY unset or on, or without --cassette",
    )
