"""Where serve mode meets cassette recording (``HOLON_RECORD`` on ``holon-agent serve``).

:func:`start_session` puts one recorder under the session's gateway when the server starts
(refused with the run's own messages when there is no gateway to record); each turn's
pipeline opens its part (:func:`open_turn`, from ``record_cassette.start``) and closes it
with its record (:func:`close_turn`); :func:`finish_session` writes the cassette when the
server stops (:mod:`holon_core.cassette.session`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from holon_core.cassette.admit import RecordRefused, no_gateway, record_problem, record_target

if TYPE_CHECKING:
    from holon_core.agent.state import RunState
    from holon_core.cassette.session import SessionRecording
    from holon_core.engine.adapter import EngineAdapter

#: id(the session gateway's server) -> its recording
_SESSIONS: dict[int, SessionRecording] = {}


def start_session(gateway: object, adapter: EngineAdapter, env: Mapping[str, str]) -> None:
    """Record the session when ``HOLON_RECORD`` is set (``gateway``: ``open_shared``'s)."""
    target = record_target(env)
    if target is None:
        return
    problem = record_problem(env, adapter.model_api, adapter.name)
    if problem is not None:
        raise problem
    from holon_core.gateway.session import Gateway

    if not isinstance(gateway, Gateway):
        raise no_gateway(gateway if isinstance(gateway, str) else "HOLON_GATEWAY is off")
    from holon_core.cassette.record import Recorder
    from holon_core.cassette.scrub import Scrubber
    from holon_core.cassette.session import SessionRecording
    from holon_core.untrusted.redact import secret_values

    route = gateway.server.app.route
    scrubber = Scrubber(secret_values(env, adapter.credential_env))
    recorder = Recorder(route.api, route.upstream, route.prefix, scrubber)
    gateway.server.wrap_transport = recorder.wrap
    _SESSIONS[id(gateway.server)] = SessionRecording(target, recorder)


def open_turn(run: RunState) -> SessionRecording:
    """The session's recording, with this turn's calls named after its output dir."""
    session = run.metadata.get("_gateway")
    server = getattr(session, "server", None)
    recording = _SESSIONS.get(id(server)) if server is not None else None
    if recording is None:
        raise RecordRefused(
            "--record (HOLON_RECORD) records a serve session from its start: set it for "
            "holon-agent serve, not for one turn",
            hint="restart the server with HOLON_RECORD=DIR",
        )
    recording.open_turn(getattr(session, "meter", None), str(run.paths.output))
    return recording


def close_turn(run: RunState, manifest: dict[str, Any], recording: SessionRecording) -> None:
    from holon_core.agent.cassette_info import cassette_info

    key = str(run.paths.output)
    diff = run.paths.output / "diff.patch"
    patch = diff.read_bytes() if diff.is_file() else b""
    recording.close_turn(key, cassette_info(run, manifest, recording.recorder, 0), patch)
    manifest["metadata"]["cassette"] = {"path": str(recording.target), "session": True}


def finish_session(gateway: object) -> int:
    """Write the session's cassette (after its gateway stopped); 1 when it could not be."""
    server = getattr(gateway, "server", None)
    recording = _SESSIONS.pop(id(server), None) if server is not None else None
    if recording is None:
        return 0
    from holon_core.cassette.format import CassetteError

    try:
        info = recording.write()
    except (CassetteError, OSError) as exc:
        print(f"holon-agent serve: error: {exc}", file=sys.stderr)
        return 1
    print(
        f"holon-agent serve: cassette {recording.target}: {len(info.parts)} turns, "
        f"{info.calls} model calls",
        file=sys.stderr,
    )
    return 0
