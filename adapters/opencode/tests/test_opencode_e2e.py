"""``holon-agent --engine opencode`` end to end: the real pinned CLI against the scripted model.

Each test maps to an item of issue 17's "Done when" list; OpenCode starts slowly (seconds
before its first model call), so one run checks as much as it can.
"""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING

import pytest

from holon_core.testing.task import git

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.engine("opencode")

SKILL_THEN_WRITE = """\
description: Load probe-skill with the engine's skill tool, write hello.txt, run it, answer.
turns:
  - use_skill: {name: probe-skill}
  - write_file: {path: hello.txt, content: "hello from holon\\n"}
  - run_shell: {command: "cat hello.txt"}
  - final: {text: "Created hello.txt."}
"""


def add_skill(task_input: Path, spec: Path) -> None:
    skill = task_input / "skills" / "probe-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: probe-skill\ndescription: Probe skill PROBE-DESC\n---\nPROBE-BODY steps\n"
    )
    text = spec.read_text().replace(
        "metadata:\n  name: test\n", "metadata:\n  name: test\n  skills: [probe-skill]\n"
    )
    spec.write_text(text)


def test_skill_then_patch_succeeds_offline(
    kit, opencode_binary, scripted_provider, task, tmp_path, valid_manifest
):
    add_skill(task.input, task.spec)
    scenario = tmp_path / "skill-then-write.yaml"
    scenario.write_text(SKILL_THEN_WRITE)
    server = scripted_provider(str(scenario))
    # A dead proxy: anything OpenCode fetched besides the loopback model would fail the run.
    dead = "http://127.0.0.1:9"
    result = kit.run(task, server, HTTPS_PROXY=dead, HTTP_PROXY=dead, NO_PROXY="127.0.0.1")
    manifest = valid_manifest(result)
    assert (result.exit_code, manifest["outcome"]) == (0, "success"), result.stderr
    meta = manifest["metadata"]
    assert (meta["engine"]["name"], meta["engine"]["version"]) == ("opencode", "1.18.33")
    assert meta["session_id"].startswith("ses_")
    assert meta["turns"] == 4
    assert meta["usage"]["output_tokens"] > 0 and meta["cost"]["source"] == "reported"
    # The patch holds the written file and applies to a fresh checkout of the baseline.
    clone = tmp_path / "baseline"
    git(tmp_path, "clone", "-q", str(task.workspace), str(clone))
    git(clone, "apply", str(task.output / "diff.patch"))
    assert (clone / "hello.txt").read_text() == "hello from holon\n"
    assert ".config" not in (task.output / "diff.patch").read_text()
    # The staged skill reached OpenCode's discovery: listed to the model, loaded, recorded.
    (record,) = meta["skills"]
    assert (record["name"], record["staging"], record["seen_by_engine"]) == (
        "probe-skill",
        "native",
        True,
    )
    turns = server.turn_requests()
    assert len(turns) == 4 and all(r.path == "/v1/messages" for r in server.requests)
    assert "PROBE-DESC" in turns[0].text()
    assert "PROBE-BODY" not in turns[0].text() and "PROBE-BODY" in turns[1].text()
    assert "Create hello.txt" in turns[0].text()
    kinds = {e["type"] for e in result.events}
    assert {"session", "tool_call", "tool_result", "usage", "result"} <= kinds


def test_401_is_auth_failed(kit, opencode_binary, scripted_provider, task, valid_manifest):
    server = scripted_provider("auth-401")
    result = kit.run(task, server)
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "auth_failed"
    assert "401" in manifest["error"]
    assert manifest["metadata"]["opencode"]["http_status"] == 401
    assert len(server.turn_requests()) == 1


def test_500_ends_after_holons_retry_cap(
    kit, opencode_binary, scripted_provider, task, valid_manifest
):
    # OpenCode retries a 500 five times over a minute and more, silently on stdout.
    server = scripted_provider("server-500")
    result = kit.run(task, server)
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "engine_error"
    assert "HOLON_OPENCODE_MAX_RETRIES" in manifest["error"]
    assert manifest["metadata"]["process"]["ended_by"] == "aborted"
    assert [r.served for r in server.turn_requests()] == ["error 500", "error 500"]
    assert [e["data"]["attempt"] for e in result.events if e["type"] == "retry"] == [1, 2]


def test_stalled_model_hits_the_silence_timeout(
    kit, opencode_binary, scripted_provider, task, valid_manifest
):
    # OpenCode's start alone can be silent for seconds on a loaded machine, so this proves
    # that silence ends the run as stalled (with a manifest), not which request stalled.
    server = scripted_provider("stall")
    result = kit.run(task, server, HOLON_SILENCE_TIMEOUT="5")
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "stalled"
    assert manifest["metadata"]["process"]["ended_by"] == "stalled"
    assert "HOLON_SILENCE_TIMEOUT" in manifest["error"]
    assert all(r.served == "stall" for r in server.turn_requests())


def test_sigterm_mid_tool_is_cancelled_and_leaves_nothing(
    kit, opencode_binary, scripted_provider, task, valid_manifest
):
    server = scripted_provider("long-tool")
    proc = kit.start(task, server)
    try:
        if not kit.wait_for_process(task.workspace, "sleep 60"):
            pytest.fail("the engine never started the scripted tool")
        proc.send_signal(signal.SIGTERM)
        result = kit.finish(task, proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "cancelled"
    assert kit.processes_under(task.root) == []
