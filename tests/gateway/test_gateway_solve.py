"""``holon solve`` through the model gateway: the real Claude Code solves an issue of the fake
GitHub with the scripted model server as the HTTPS upstream that takes only the real key;
the manifest has the wire's usage and cost, and no model request carries the key."""

from __future__ import annotations

from tests.solve.conftest import gh, world

from .kit import REAL_KEY
from .test_gateway_engines import engine_env

__all__ = ["gh", "world"]  # fixtures of tests/solve, used here


def test_holon_solve_runs_through_the_gateway(
    world, engine_binary, https_provider, ca_file
) -> None:
    engine_binary("claude")
    server = https_provider("github-solve-issue")
    model = engine_env(server, "claude", ca_file) | {"HOLON_SILENCE_TIMEOUT": "60"}
    env = world.env(**{k: v for k, v in model.items() if k != "HOLON_GATEWAY"})
    done = world.solve("acme/widgets#7", "--engine", "claude", "--max-cost", "5", env=env)
    assert done.code == 0, (done.stderr[-3000:], done.stdout[-3000:])
    meta = done.read("manifest.json")["metadata"]
    assert meta["gateway"]["state"] == "on" and meta["gateway"]["upstream"] == server.url
    assert meta["usage"]["source"] == "gateway" and meta["usage"]["model_calls"] >= 3
    assert meta["cost"]["source"] == "gateway" and meta["cost"]["usd"] > 0
    assert meta["budget"]["max_cost_usd"] == 5 and meta["budget"].get("exceeded") is None
    assert all(REAL_KEY not in request.text() for request in server.requests)
