"""Where the run pipeline meets the model gateway (:mod:`holon_core.gateway`).

Just before the launch, :func:`start` opens the run's gateway and swaps the run context's
environment for the engine's (the endpoint pointing at the gateway, placeholders instead of
keys), so every adapter's ``launch()`` builds its command from it unchanged. :func:`stop`
runs when the run ends; :func:`merge_into` puts the gateway's figures into the manifest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from holon_core.errors import HolonError

if TYPE_CHECKING:
    from holon_core.adapter import RunContext
    from holon_core.agent.state import RunState
    from holon_core.gateway.session import GatewaySession

_KEY = "_gateway"


class GatewaySettingInvalid(HolonError):
    reason = "invalid_input"


def start(run: RunState, context: RunContext) -> None:
    """Open the gateway when ``HOLON_GATEWAY`` says so (unset: on for a one-shot run, off for
    a serve turn) and the engine declares a model API."""
    from holon_core.gateway.setting import gateway_setting

    one_shot = run.metadata.get("mode", "run") == "run"
    try:
        wanted = gateway_setting(run.env, default=None if one_shot else "off")
    except ValueError as exc:
        raise GatewaySettingInvalid(str(exc)) from exc
    if not wanted or context.engine.model_api is None:
        return
    from holon_core.gateway.session import harden_process, open_gateway

    evidence = run.evidence
    from holon_core.gateway.price_table import PriceTableError

    try:
        session = open_gateway(
            context.engine,
            context.env,
            lambda line: evidence.write_line("model-calls.ndjson", line),
        )
    except PriceTableError as exc:
        raise GatewaySettingInvalid(str(exc)) from exc
    if session is None:
        return
    run.metadata[_KEY] = session
    if session.server is None:
        run.log.warning("gateway bypassed", detail=session.bypass)
        return
    context.env = session.engine_env
    run.log.info("gateway", url=session.server.url, upstream=session.upstream, api=session.api)
    for problem in harden_process(context.engine.credential_env):
        run.log.warning("gateway", detail=problem)


def stop(run: RunState) -> None:
    session: GatewaySession | None = run.metadata.get(_KEY)
    if session is not None:
        session.close()


def merge_into(run: RunState, meta: dict[str, Any]) -> None:
    """The gateway's ``gateway``, ``usage`` and ``cost`` over the engine's own figures."""
    session: GatewaySession | None = run.metadata.get(_KEY)
    if session is None:
        return
    fields, warnings = session.manifest_fields(meta.get("usage"), meta.get("cost"))
    meta.update(fields)
    if warnings:
        meta.setdefault("warnings", []).extend(warnings)
