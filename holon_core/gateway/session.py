"""One run's gateway: decide whether it applies, start it, hand the engine its environment,
and give the manifest its figures when the run ends.

The adapter's declarations are all it needs: ``model_api`` (the wire API), ``endpoint_env``
(which variable points the engine at an endpoint, and with which path suffix) and
``credential_env`` (which variables hold the key). The engine's environment is the caller's
with every credential variable removed, the placeholders of the ones the user set put back,
and the endpoint variable pointing at the gateway.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from holon_core.gateway import prices
from holon_core.gateway.apis import PUBLIC_ROOTS, known
from holon_core.gateway.budget import BudgetGuard, Limits
from holon_core.gateway.credentials import Credentials
from holon_core.gateway.leases import Lease, Leases
from holon_core.gateway.meter import Meter
from holon_core.gateway.price_table import PriceTable, load_table
from holon_core.gateway.proxy import GatewayApp, Route
from holon_core.gateway.server import GatewayServer

if TYPE_CHECKING:
    from holon_core.engine.adapter import EngineAdapter

_MARK = "http://holon-gateway.invalid"


@dataclass
class GatewaySession:
    """One run's gateway: its lease on a running gateway (``server`` None: bypassed,
    ``bypass`` says why)."""

    api: str | None
    engine_env: dict[str, str]
    meter: Meter = field(default_factory=Meter)
    server: GatewayServer | None = None
    upstream: str | None = None
    bypass: str | None = None
    table: PriceTable | None = None
    budget: BudgetGuard | None = None
    #: Returns the lease (its placeholders stop working); a one-shot run's also stops the server.
    release: Callable[[], None] | None = None

    def close(self) -> None:
        if self.release is not None:
            self.release()
            self.release = None

    def info(self) -> dict[str, Any]:
        """``metadata.gateway``."""
        if self.server is None:
            return {"state": "bypassed", "reason": self.bypass}
        return {"state": "on", "api": self.api, "upstream": self.upstream}

    def manifest_fields(
        self, reported_usage: dict[str, int] | None, reported_cost: dict[str, Any] | None
    ) -> tuple[dict[str, Any], list[str]]:
        """``metadata.gateway``, ``usage`` and ``cost`` (the engine's figures beside the
        gateway's), and warnings."""
        fields: dict[str, Any] = {"gateway": self.info()}
        if self.server is None:
            return fields, []
        if self.budget is not None:
            fields["budget"] = self.budget.record()
        usage = self.meter.usage()
        if reported_usage:
            usage["reported"] = reported_usage
        fields["usage"] = usage
        usd, unpriced = self.meter.cost()
        engine_usd = (reported_cost or {}).get("usd")
        provenance = prices.provenance()
        if self.table is not None:
            provenance |= self.table.provenance()
        cost: dict[str, Any] = {"usd": usd, "source": "gateway", "prices": provenance}
        if engine_usd is not None:
            cost["reported_usd"] = engine_usd
        warnings = []
        if unpriced:
            cost["unpriced_models"] = unpriced
            version = cost["prices"]["version"]
            note = (
                f"no price for model {', '.join(unpriced)} in genai-prices {version}"
                + (" or HOLON_PRICES" if self.table is not None else "")
                + ": the gateway cannot price the run (a HOLON_PRICES table can; "
                "docs/gateway.md)"
            )
            if engine_usd is not None:
                cost |= {"usd": engine_usd, "source": "reported"}
                note += "; the cost shown is the engine's own report"
            else:
                cost |= {"usd": None, "source": "unavailable"}
            warnings.append(note)
        fields["cost"] = cost
        return fields, warnings


@dataclass
class Gateway:
    """A running gateway: its server, where it forwards, and the runs holding a lease on it.

    One-shot runs start one each; a serve session starts one and leases it to every turn,
    its own budget (``serve --max-cost``) the parent of each turn's.
    """

    api: str
    server: GatewayServer
    upstream: str
    #: The engine's endpoint variables and the path suffix each gets (``/v1``).
    endpoints: dict[str, str]
    credential_names: tuple[str, ...]
    leases: Leases
    table: PriceTable | None = None
    budget: BudgetGuard | None = None

    def lease(
        self, env: Mapping[str, str], sink: Callable[[str], None] | None, limits: Limits | None
    ) -> GatewaySession:
        """A run's share: fresh placeholders for the keys in ``env``, its meter and budget."""
        credentials = Credentials.from_env(self.credential_names, env)
        meter = Meter(sink)
        own = limits is not None and limits.any()
        guard = BudgetGuard(limits or Limits(), self.budget) if own or self.budget else None
        held = Lease(credentials, meter, guard)
        self.leases.add(held)
        engine_env = {k: v for k, v in env.items() if k not in self.credential_names}
        engine_env |= {name: self.server.url + tail for name, tail in self.endpoints.items()}
        engine_env |= credentials.engine_values
        return GatewaySession(
            self.api,
            engine_env,
            meter,
            self.server,
            self.upstream,
            table=self.table,
            budget=guard,
            release=lambda: self.leases.remove(held),
        )

    def close(self) -> None:
        self.server.stop()


def start_gateway(
    adapter: EngineAdapter, env: Mapping[str, str], session_limits: Limits | None = None
) -> Gateway | str | None:
    """Start a gateway for ``adapter``'s engine: None when it calls no model API, else the
    running gateway or why it is bypassed (the engine then gets ``env`` unchanged)."""
    api = adapter.model_api
    if api is None:
        return None
    if not known(api):
        return f"the wire API {api!r} is not one it speaks"
    probe = adapter.endpoint_env(_MARK)
    endpoints = {k: v[len(_MARK) :] for k, v in probe.items() if v.startswith(_MARK)}
    if not endpoints:
        return "the adapter cannot point its engine at an endpoint (no endpoint_env)"
    if not any(env.get(name) for name in adapter.credential_env):
        return (
            f"none of {', '.join(adapter.credential_env) or 'its key variables'} is set: the "
            "engine signs in its own way (a vendor account talks to other hosts)"
        )
    variable, suffix = next(iter(endpoints.items()))
    upstream = (env.get(variable) or "").strip() or PUBLIC_ROOTS[api] + suffix
    table = load_table(env["HOLON_PRICES"]) if env.get("HOLON_PRICES") else None
    leases = Leases()
    app = GatewayApp(Route(api, upstream, prefix=suffix), leases, table)
    server = GatewayServer(app, env).start()
    prices.warm_up()
    budget = BudgetGuard(session_limits) if session_limits and session_limits.any() else None
    return Gateway(api, server, upstream, endpoints, adapter.credential_env, leases, table, budget)


def open_gateway(
    adapter: EngineAdapter,
    env: Mapping[str, str],
    sink: Callable[[str], None] | None,
    limits: Limits | None = None,
) -> GatewaySession | None:
    """Start the gateway of one one-shot run; None when the engine calls no model API.

    A session with ``server`` None means the gateway was bypassed (the engine gets ``env``
    unchanged) and says why. Closing the session stops the gateway.
    """
    started = start_gateway(adapter, env)
    if started is None:
        return None
    if isinstance(started, str):
        return GatewaySession(adapter.model_api, dict(env), bypass=started)
    session = started.lease(env, sink, limits)
    give_back = session.release

    def release() -> None:
        if give_back is not None:
            give_back()
        started.close()

    session.release = release
    return session
