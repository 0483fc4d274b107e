"""Where the run pipeline meets cassette replay (``HOLON_CASSETTE`` / ``--cassette DIR``).

:func:`prepare`, before the gateway starts: reads the cassette (a bad one is refused before
the engine starts) and, when none of the engine's key variables is set, gives the gateway a
dummy key for the first one. That is the generic way no key is needed: the adapter's
credential check passes in replay mode (``EngineAdapter.preflight``), the gateway hands the
engine its usual placeholder and swaps in the dummy, which the replay transport ignores; no
adapter code knows about replay. :func:`start`, once the gateway runs: puts the replay
transport under its client. While the engine runs, :func:`abort_reason` stops it after a
strict refusal; :func:`overrule` makes the run a ``replay_mismatch`` failure, writes
``evidence/replay-mismatch.md`` and the manifest's ``metadata.cassette_replay`` and warnings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from holon_core.cassette.replay_admit import admit_replay, no_gateway
from holon_core.record.outcome import Decision

if TYPE_CHECKING:
    from collections.abc import Mapping

    from holon_core.agent.state import RunState
    from holon_core.cassette.format import Cassette
    from holon_core.cassette.replay import Mode, ReplaySession
    from holon_core.engine.adapter import EngineAdapter, RunContext

#: What the gateway sends upstream in replay mode: no upstream ever sees it.
DUMMY_KEY = "holon-replay-no-key"
_KEY = "_cassette_replay"
_LOADED = "_cassette_loaded"
REPORT = "replay-mismatch.md"


def prepare(run: RunState, context: RunContext) -> None:
    """Load the cassette ``HOLON_CASSETTE`` names (the admission's checks, which refused a
    bad one already: :mod:`holon_core.cassette.replay_admit`); the dummy key."""
    engine = context.engine
    loaded = admit_replay(run.env, engine.model_api, engine.name)
    if loaded is None:
        return
    run.metadata[_LOADED] = loaded
    if engine.credential_env and not any(context.env.get(n) for n in engine.credential_env):
        context.env = {**context.env, engine.credential_env[0]: DUMMY_KEY}


def session_env(env: Mapping[str, str], engine: EngineAdapter) -> Mapping[str, str]:
    """A serve session's environment for ``HOLON_CASSETTE``: the cassette checked when the
    session loads (refused then, as a one-shot run refuses it before its engine starts), and
    the dummy key when no key variable is set, so the session's gateway starts (its turns
    then replay as a one-shot run does)."""
    if admit_replay(env, engine.model_api, engine.name) is None:
        return env
    if engine.credential_env and not any(env.get(n) for n in engine.credential_env):
        return {**env, engine.credential_env[0]: DUMMY_KEY}
    return env


def start(run: RunState, context: RunContext) -> None:
    """Answer the gateway's upstream calls from the cassette (after the gateway started)."""
    loaded: tuple[Cassette, Mode] | None = run.metadata.pop(_LOADED, None)
    if loaded is None:
        return
    cassette, mode = loaded
    session = run.metadata.get("_gateway")
    server = getattr(session, "server", None)
    if server is None:
        raise no_gateway(getattr(session, "bypass", None) or "HOLON_GATEWAY is off")
    from holon_core.agent.cassette_info import run_paths
    from holon_core.cassette.replay import ReplaySession

    route = server.app.route
    replay = ReplaySession(
        cassette, mode, run_paths(run), route.api, upstream=route.upstream, prefix=route.prefix
    )
    server.wrap_transport = replay.wrap
    run.metadata[_KEY] = replay
    run.log.info("cassette", replaying=str(cassette.root), mode=mode, calls=len(cassette.calls))


def _session(run: RunState) -> ReplaySession | None:
    replay: ReplaySession | None = run.metadata.get(_KEY)
    return replay


def abort_reason(run: RunState) -> str | None:
    """``replay_mismatch`` once strict mode refused a request (stops the engine)."""
    replay = _session(run)
    return "replay_mismatch" if replay is not None and replay.refused else None


def overrule(run: RunState, decision: Decision) -> Decision:
    """The replay's record and warnings; a strict refusal makes the run ``replay_mismatch``."""
    replay = _session(run)
    if replay is None:
        return decision
    run.metadata["cassette_replay"] = replay.record()
    run.metadata.setdefault("warnings", []).extend(replay.warnings())
    if replay.mismatches:
        from holon_core.cassette.mismatch import report

        text = report(str(replay.cassette.root), replay.mode, list(replay.mismatches))
        run.evidence.write_line(REPORT, text.rstrip("\n"))
    if replay.refused is None:
        return decision
    return Decision(
        "failure",
        "replay_mismatch",
        f"the cassette replay stopped: {replay.refused} (evidence/{REPORT}; re-record the "
        "cassette if the change is intended, or use --cassette-mode lenient)",
    )
