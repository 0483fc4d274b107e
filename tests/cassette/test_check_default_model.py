"""A run recorded without a model (the engine's default) is checked without one: the check
replays with the model the recording asked for, not the name the engine reported. Claude Code
run with ``--model claude-opus-4-8`` gets another system prompt than with its default
(whose context window it names), so forcing the reported name drifted every replay."""

from __future__ import annotations

import json

from holon_core.testing import make_task, run_agent
from tests.gateway.test_gateway_engines import engine_env

from .test_cassette_check import baseline, holon


def test_a_recording_on_the_default_model_checks_clean(
    engine_binary, https_provider, ca_file, tmp_path
):
    engine_binary("claude")
    server = https_provider("write-and-run")
    target = tmp_path / "cassette"
    task = make_task(tmp_path / "rec", goal="Create hello.txt", files={"README.md": "hi\n"})
    env = {k: v for k, v in engine_env(server, "claude", ca_file).items() if k != "HOLON_MODEL"}
    recorded = run_agent(task, "claude", env=env, args=["--record", str(target)], timeout=240)
    assert recorded.manifest is not None and recorded.manifest["outcome"] == "success"
    server.stop()
    info = json.loads((target / "cassette.json").read_text())
    assert info["requested_model"] is None and info["model"]  # the engine named its default
    done = holon("cassette", "check", str(target), "--workspace", str(baseline(tmp_path / "ws")))
    assert done.returncode == 0, done.stdout + done.stderr
