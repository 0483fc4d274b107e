"""Where the run pipeline meets cassette recording (``HOLON_RECORD`` / ``--record DIR``).

Just after the gateway starts, :func:`start` puts a :class:`~holon_core.cassette.record.Recorder`
under the gateway's upstream client (nothing else of the gateway changes: credential swap,
metering and budget work as without it). When the run is judged, :func:`finish` writes the
cassette (its outcome, reason and tool calls are the manifest's) before the manifest, so the
manifest can say where it is (``metadata.cassette``) or why none was written: then the run
fails ``holon_error`` and nothing is left at the target.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from holon_core.cassette.admit import no_gateway, record_problem, record_target
from holon_core.record.outcome import Decision

if TYPE_CHECKING:
    from holon_core.agent.state import RunState
    from holon_core.engine.adapter import RunContext

_KEY = "_cassette_recorder"


def start(run: RunState, context: RunContext) -> None:
    """Record the run's model calls when ``HOLON_RECORD`` is set; refuse when the gateway,
    which sees them, is not on."""
    target = record_target(run.env)
    if target is None:
        return
    if run.metadata.get("mode", "run") != "run":  # a serve turn: a part of the session's
        from holon_core.agent.record_session import open_turn

        run.metadata[_KEY] = open_turn(run)
        return
    problem = record_problem(run.env, context.engine.model_api, context.engine.name)
    if problem is not None:  # the admission refused it already; kept for direct callers
        raise problem
    session = run.metadata.get("_gateway")
    server = getattr(session, "server", None)
    if server is None:  # bypassed: no key variable set, or an API the gateway does not speak
        raise no_gateway(getattr(session, "bypass", None) or "it was not started")
    from holon_core.cassette.record import Recorder
    from holon_core.cassette.scrub import Scrubber
    from holon_core.untrusted.redact import secret_values

    # The key variables as the caller set them (the gateway swaps these values in) and every
    # secret-looking variable, plus what the run passes on (context.secrets).
    secrets = secret_values(run.env, context.engine.credential_env) + list(context.secrets)
    route = server.app.route
    recorder = Recorder(route.api, route.upstream, route.prefix, Scrubber(secrets))
    server.wrap_transport = recorder.wrap
    run.metadata[_KEY] = (target, recorder)
    run.log.info("cassette", recording=str(target))


def finish(run: RunState, decision: Decision, manifest: dict[str, Any]) -> Decision:
    """Write the cassette of a recorded run; record where in ``manifest``. A cassette that
    cannot be written makes the run a ``holon_error`` failure (nothing is left behind)."""
    held = run.metadata.pop(_KEY, None)
    if held is None:
        return decision
    if not isinstance(held, tuple):  # a serve turn: the session writes the cassette
        from holon_core.agent.record_session import close_turn

        close_turn(run, manifest, held)
        return decision
    target, recorder = held
    from holon_core.agent.cassette_info import cassette_info
    from holon_core.cassette.format import CassetteError
    from holon_core.cassette.writer import write_cassette

    meta = manifest["metadata"]
    calls = recorder.ordered()
    try:
        info = cassette_info(run, manifest, recorder, len(calls))
        diff = run.paths.output / "diff.patch"
        patch = diff.read_bytes() if diff.is_file() else b""
        write_cassette(
            target,
            info=info,
            calls=calls,
            store=recorder.store,
            diff=patch,
            scrubber=recorder.scrubber,
            split_secrets=recorder.split_secrets,
        )
    except (CassetteError, OSError) as exc:
        message = str(exc)
        meta["cassette"] = {"path": str(target), "error": message}
        run.log.error("cassette", error=message)
        failed = Decision(
            "failure",
            "holon_error",
            f"the run ended {decision.outcome} ({decision.reason}), but its cassette was not "
            f"recorded: {message}",
        )
        manifest.update(status="failed", outcome="failure", error=failed.error)
        meta["reason"] = failed.reason
        return failed
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    meta["cassette"] = {"path": str(target), "calls": len(calls), "bytes": size}
    run.log.info("cassette", written=str(target), calls=len(calls), bytes=size)
    return decision
