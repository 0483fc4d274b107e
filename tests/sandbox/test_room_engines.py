"""The scripted escape through every real engine's own shell tool, under the real
``holon-agent`` with default settings: each way out fails, the task still succeeds, and the
record names the denied host. The engines talk to the scripted model server through the
gateway, which the room reaches over its bridge (the only way out besides the proxy)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from holon_core.testing import make_task, run_agent

from .escape import DENIED_NAME, Escape

ENGINES = ["claude", "codex", "gemini", "opencode", "acp-claude", "acp-codex", "acp-gemini"]
ENGINES += ["acp-opencode"]


def _scenario(escape: Escape, path: Path) -> Path:
    # the last attempt's status is not the test's: every attempt is judged by what it left
    joined = "; ".join(escape.commands()) + "; true"
    turns = [
        {"write_file": {"path": "done.txt", "content": "done\n"}},
        {"run_shell": {"command": joined}},
        {"final": {"text": "Tried every way out."}},
    ]
    path.write_text(json.dumps({"turns": turns}))
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_the_escape_fails_in_every_engine(
    engine, escape: Escape, engine_binary, scripted_provider, tmp_path
) -> None:
    engine_binary(engine.removeprefix("acp-"))
    server = scripted_provider(str(_scenario(escape, tmp_path / "escape.json")))
    task = make_task(tmp_path / "task", goal="Write done.txt", files={"README.md": "hi\n"})
    env = server.engine_env(engine) | escape.env()
    result = run_agent(task, engine, env=env, timeout=240)
    manifest = result.manifest
    assert manifest is not None, result.stderr
    assert manifest["outcome"] == "success", (manifest["metadata"]["reason"], result.stderr)
    assert "done.txt" in (task.output / "diff.patch").read_text()
    sent = "\n".join(r.text() for r in server.requests)
    assert "allowed-host-answered" in sent, "the shell call's output never reached the model"
    for failed in ("read-home-failed", "read-sibling-failed", "write-home-failed"):
        assert failed in sent
    for failed in ("write-outside-failed", "curl-failed", "python-failed", "devtcp-failed"):
        assert failed in sent
    assert "node-failed" in sent and "node-reached" not in sent
    assert escape.secret not in sent
    escape.assert_contained(task.output)
    network = manifest["metadata"]["sandbox"]["network"]
    assert DENIED_NAME in network["denied_hosts"]
