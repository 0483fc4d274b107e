"""One run's gateway: decide whether it applies, start it, hand the engine its environment,
and give the manifest its figures when the run ends.

The adapter's declarations are all it needs: ``model_api`` (the wire API), ``endpoint_env``
(which variable points the engine at an endpoint, and with which path suffix) and
``credential_env`` (which variables hold the key). The engine's environment is the caller's
with every credential variable removed, the placeholders of the ones the user set put back,
and the endpoint variable pointing at the gateway.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from holon_core.gateway import prices
from holon_core.gateway.apis import PUBLIC_ROOTS, known
from holon_core.gateway.budget import BudgetGuard, Limits
from holon_core.gateway.credentials import Credentials
from holon_core.gateway.meter import Meter
from holon_core.gateway.price_table import PriceTable, load_table
from holon_core.gateway.proxy import GatewayApp, Route
from holon_core.gateway.server import GatewayServer

if TYPE_CHECKING:
    from holon_core.adapter import EngineAdapter

_MARK = "http://holon-gateway.invalid"


@dataclass
class GatewaySession:
    """The gateway of one run (``server`` None: bypassed, ``bypass`` says why)."""

    api: str | None
    engine_env: dict[str, str]
    meter: Meter = field(default_factory=Meter)
    server: GatewayServer | None = None
    upstream: str | None = None
    bypass: str | None = None
    table: PriceTable | None = None
    budget: BudgetGuard | None = None

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()

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


def open_gateway(
    adapter: EngineAdapter,
    env: Mapping[str, str],
    sink: Callable[[str], None] | None,
    limits: Limits | None = None,
) -> GatewaySession | None:
    """Start the gateway for a run of ``adapter``; None when the engine calls no model API.

    A session with ``server`` None means the gateway was bypassed (the engine gets ``env``
    unchanged) and says why.
    """
    api = adapter.model_api
    if api is None:
        return None
    plain = dict(env)
    if not known(api):
        return GatewaySession(api, plain, bypass=f"the wire API {api!r} is not one it speaks")
    probe = adapter.endpoint_env(_MARK)
    endpoints = {k: v[len(_MARK) :] for k, v in probe.items() if v.startswith(_MARK)}
    if not endpoints:
        why = "the adapter cannot point its engine at an endpoint (no endpoint_env)"
        return GatewaySession(api, plain, bypass=why)
    credentials = Credentials.from_env(adapter.credential_env, env)
    if not credentials.swaps:
        why = (
            f"none of {', '.join(adapter.credential_env) or 'its key variables'} is set: the "
            "engine signs in its own way (a vendor account talks to other hosts)"
        )
        return GatewaySession(api, plain, bypass=why)
    variable, suffix = next(iter(endpoints.items()))
    upstream = (env.get(variable) or "").strip() or PUBLIC_ROOTS[api] + suffix
    table = load_table(env["HOLON_PRICES"]) if env.get("HOLON_PRICES") else None
    meter = Meter(sink)
    guard = BudgetGuard(limits) if limits is not None and limits.any() else None
    app = GatewayApp(Route(api, upstream, prefix=suffix), credentials, meter, table, guard)
    server = GatewayServer(app, env).start()
    prices.warm_up()
    engine_env = {k: v for k, v in env.items() if k not in adapter.credential_env}
    engine_env |= {name: server.url + tail for name, tail in endpoints.items()}
    engine_env |= credentials.engine_values
    return GatewaySession(api, engine_env, meter, server, upstream, table=table, budget=guard)


def harden_process(names: tuple[str, ...]) -> list[str]:
    """Make this process non-dumpable and drop ``names`` from its environment.

    Non-dumpable: a process of the same (non-root) user can no longer read this one's
    ``/proc/<pid>/environ`` or memory, where the real key still is. Returns what could not be
    done, for the record.
    """
    missing = []
    for name in names:
        os.environ.pop(name, None)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE = 4
            missing.append(f"prctl(PR_SET_DUMPABLE) failed: errno {ctypes.get_errno()}")
    except (OSError, AttributeError) as exc:
        missing.append(f"prctl is not available here ({exc})")
    return missing
