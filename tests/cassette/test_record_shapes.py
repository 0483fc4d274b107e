"""Recording redacts token-shaped strings (``sk-...``) from what it keeps; a replay of the
same task, whose live requests hold them, must still match (the real Claude Code)."""

from __future__ import annotations

from holon_core.testing import make_task, run_agent
from tests.cassette.replay_kit import ConnectionCounter, replay
from tests.gateway.test_gateway_engines import engine_env

GOAL = "Create hello.txt; the test fixture's fake key is sk-abcdefghijklmnopqrstuvwxyz"


def test_a_task_holding_a_token_shaped_string_replays_strict(
    engine_binary, https_provider, ca_file, tmp_path
):
    engine_binary("claude")
    server = https_provider("write-and-run")
    target = tmp_path / "cassette"
    task = make_task(tmp_path / "task", goal=GOAL, files={"README.md": "hi\n"})
    env = engine_env(server, "claude", ca_file)
    recorded = run_agent(task, "claude", env=env, args=["--record", str(target)], timeout=240)
    assert recorded.manifest is not None and recorded.manifest["outcome"] == "success"
    assert "sk-abcdefghij" not in (target / "calls.ndjson").read_text()
    with ConnectionCounter() as upstream:
        replayed = replay("claude", target, tmp_path / "replay", upstream.url, goal=GOAL)
    assert replayed.manifest is not None
    assert (replayed.manifest["outcome"], replayed.reason) == ("success", "ok"), replayed.stderr
    assert upstream.connections == 0
