"""The happy path and the outcome rule's other branches, through the real holon-agent."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from holon_core.testing import finish_agent, make_task, run_agent, start_agent

WRITE_AND_RUN: list[dict[str, Any]] = [
    {"say": "Writing hello.txt"},
    {"write": {"path": "hello.txt", "content": "hello from holon\n"}},
    {"run": "cat hello.txt"},
    {"say": "Wrote hello.txt and checked it."},
]


def test_success_writes_the_whole_record(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE_AND_RUN, goal="Create hello.txt")
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["status"] == "completed" and manifest["outcome"] == "success"
    meta = manifest["metadata"]
    assert meta["reason"] == "ok" and meta["mode"] == "run"
    assert meta["engine"]["name"] == "replay" and meta["session_id"].startswith("replay-")
    assert meta["adapter"]["distribution"] == "holon-core"
    for name in (
        "manifest.json",
        "diff.patch",
        "summary.md",
        "evidence/events.ndjson",
        "evidence/execution.log",
        "evidence/engine.stdout.log",
    ):
        assert name in manifest["artifacts"], name
    summary = (task.output / "summary.md").read_text()
    assert "Create hello.txt" in summary and "Wrote hello.txt and checked it." in summary
    types = [e["type"] for e in result.events]
    assert types.count("tool_call") == 2 and "result" in types and "phase" in types
    assert meta["process"]["peak_rss_mb"] > 0


def test_engine_written_summary_is_kept(tmp_path):
    steps = [{"write": {"path": "{output}/summary.md", "content": "# Mine\n"}}, {"say": "ok"}]
    task = make_task(tmp_path, replay=steps)
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    assert (task.output / "summary.md").read_text() == "# Mine\n"
    assert result.manifest is not None
    assert result.manifest["metadata"]["summary_source"] == "engine"


def test_skill_written_manifest_is_merged(tmp_path, assert_valid_manifest):
    skill_manifest = (
        '{"metadata": {"pr_url": "https://example.invalid/pr/1"},'
        ' "artifacts": ["pr.json"], "status": "bogus"}'
    )
    steps = [
        {"write": {"path": "{output}/manifest.json", "content": skill_manifest}},
        {"write": {"path": "{output}/pr.json", "content": "{}"}},
    ]
    task = make_task(tmp_path, replay=steps)
    result = run_agent(task)
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["pr_url"] == "https://example.invalid/pr/1"
    assert manifest["status"] == "completed" and "pr.json" in manifest["artifacts"]


def test_needs_human_exits_2(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=[{"say": "unsure"}, {"outcome": "needs_human"}])
    result = run_agent(task)
    assert result.exit_code == 2
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["outcome"] == "needs_human" and manifest["status"] == "completed"


def test_reported_failure_exits_1(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=[{"say": "cannot"}, {"outcome": "failure"}])
    result = run_agent(task)
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["status"] == "failed" and manifest["error"]


def test_all_tools_failing_is_not_success(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=[{"run": "exit 3"}, {"run": "false"}, {"say": "all good!"}])
    result = run_agent(task)
    assert result.exit_code == 1
    assert assert_valid_manifest(result.manifest)["metadata"]["reason"] == "tool_failed"


def test_secrets_are_redacted_everywhere(tmp_path):
    secret = "sk-live-7f3a9c2e5b1d4f6a8c0e"
    task = make_task(tmp_path, replay=[{"run": "echo token=$MY_API_TOKEN"}, {"say": "done"}])
    result = run_agent(task, env={"MY_API_TOKEN": secret, "HOLON_REPLAY_PASS_ENV": "MY_API_TOKEN"})
    assert result.exit_code == 0, result.stderr
    for path in task.output.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path
    assert secret not in result.stderr


def test_secret_in_workspace_changes_needs_human(tmp_path, assert_valid_manifest):
    secret = "ghp_abcdefghijklmnopqrstuvwxyz012345"
    steps = [{"run": "echo $GITHUB_TOKEN > leaked.txt"}, {"say": "done"}]
    task = make_task(tmp_path, replay=steps)
    result = run_agent(task, env={"GITHUB_TOKEN": secret, "HOLON_REPLAY_PASS_ENV": "GITHUB_TOKEN"})
    assert result.exit_code == 2
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "secret_in_changes"
    assert manifest["metadata"]["secrets_in_changes"] == ["leaked.txt"]
    assert secret in (task.output / "diff.patch").read_text()  # the patch is not corrupted


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_cancels_and_leaves_nothing_running(tmp_path, assert_valid_manifest, sig):
    steps = [
        {"run": "setsid sleep 317 >/dev/null 2>&1 & echo started"},
        {"say": "waiting"},
        {"sleep": 60},
    ]
    task = make_task(tmp_path, replay=steps)
    proc = start_agent(task)
    agent = psutil.Process(proc.pid)
    deadline = time.monotonic() + 30
    events = task.output / "evidence" / "events.ndjson"
    while time.monotonic() < deadline:
        if events.exists() and '"waiting"' in events.read_text():
            break
        time.sleep(0.05)
    tree = agent.children(recursive=True)
    assert tree, "the engine should be running"
    proc.send_signal(sig)
    result = finish_agent(task, proc, timeout=30)
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "cancelled"
    sleepers = [
        p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["sleep", "317"]
    ]
    assert not [p for p in tree if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert not sleepers


def test_a_crashing_plugin_costs_its_keys_not_the_record(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE_AND_RUN)
    plugins_dir = str(Path(__file__).parent / "plugins")
    env = {"HOLON_PLUGINS": "crashing_metadata", "PYTHONPATH": plugins_dir}
    result = run_agent(task, env=env)
    assert result.exit_code == 0, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["outcome"] == "success"
    assert "plugin bug" in manifest["metadata"]["warnings"][0]


def test_an_orphan_that_left_the_session_and_cleared_its_env_is_reaped(tmp_path):
    """Nothing marks it as the engine's (own session, no marker variable), but it was
    adopted by holon-agent, the subreaper, so it is the engine's and must not survive."""
    steps = [{"run": "setsid -f env -i /bin/sleep 303 >/dev/null 2>&1 </dev/null"}, {"say": "ok"}]
    # holon's own reaper, behind the room (in the room the PID namespace dies with the engine)
    result = run_agent(make_task(tmp_path, replay=steps), env={"HOLON_SANDBOX": "off"})
    assert result.exit_code == 0, result.stderr
    assert result.manifest is not None
    assert result.manifest["metadata"]["process"]["leftovers_killed"] >= 1
    survivors = [
        p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["/bin/sleep", "303"]
    ]
    assert not survivors


def test_in_the_room_an_orphan_dies_with_the_engine(tmp_path):
    """The room's PID namespace ends with the engine's first process: an orphan that left the
    session and cleared its environment goes with it."""
    steps = [{"run": "setsid -f env -i /bin/sleep 304 >/dev/null 2>&1 </dev/null"}, {"say": "ok"}]
    result = run_agent(make_task(tmp_path, replay=steps))
    assert result.exit_code == 0, result.stderr
    assert result.manifest is not None and result.manifest["metadata"]["sandbox"]["mode"] == "on"
    survivors = [
        p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["/bin/sleep", "304"]
    ]
    assert not survivors


def test_what_the_engine_plants_at_holon_names_is_replaced_never_followed(
    tmp_path, assert_valid_manifest
):
    outside = tmp_path / "outside.json"
    steps = [
        {"run": "mkdir -p {output}/manifest.json/x"},
        {"run": "ln -s {workspace}/NOTES.md {output}/summary.md"},
        {"run": f"ln -s {outside} {{output}}/evidence/resources.json"},
        {"run": "mkdir -p {output}/diff.patch/y"},
        {"say": "done"},
    ]
    task = make_task(tmp_path / "t", files={"NOTES.md": "mine\n"}, replay=steps)
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    assert_valid_manifest(result.manifest)
    assert (task.workspace / "NOTES.md").read_text() == "mine\n"  # not written through
    assert not outside.exists()
    assert (task.output / "summary.md").is_file() and not (task.output / "summary.md").is_symlink()
    assert (task.output / "diff.patch").is_file()


def test_holon_files_get_ordinary_permissions(tmp_path):
    task = make_task(tmp_path, replay=WRITE_AND_RUN)
    assert run_agent(task).exit_code == 0
    for name in ("manifest.json", "diff.patch", "summary.md", "evidence/resources.json"):
        assert (task.output / name).stat().st_mode & 0o044 == 0o044, name  # group/other read


def test_a_secret_with_json_special_characters_is_redacted_in_its_escaped_form(tmp_path):
    secret = 'tok"en\\with-quote-and-backslash'
    task = make_task(tmp_path, replay=[{"run": "echo $MY_TOKEN"}, {"say": "ok"}])
    result = run_agent(task, env={"MY_TOKEN": secret, "HOLON_REPLAY_PASS_ENV": "MY_TOKEN"})
    escaped = json.dumps(secret)[1:-1]
    for path in task.output.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert secret not in text and escaped not in text, path
    assert result.exit_code == 0


@pytest.mark.parametrize(
    ("command", "flagged"),
    [
        ('printf "\\000bin $GITHUB_TOKEN\\n" > data.bin', "data.bin"),
        ("echo $GITHUB_TOKEN > {output}/notes.txt", "output/notes.txt"),
    ],
)
def test_a_secret_in_a_binary_change_or_an_output_file_needs_a_human(tmp_path, command, flagged):
    secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
    task = make_task(tmp_path, replay=[{"run": command}, {"say": "done"}])
    result = run_agent(task, env={"GITHUB_TOKEN": secret, "HOLON_REPLAY_PASS_ENV": "GITHUB_TOKEN"})
    assert result.exit_code == 2
    assert result.manifest is not None
    assert result.manifest["metadata"]["secrets_in_changes"] == [flagged]


def test_the_stricter_of_spec_timeout_and_holon_timeout_applies(tmp_path):
    spec = {"constraints": {"timeout": "5m"}}
    task = make_task(tmp_path, replay=[{"say": "slow"}, {"sleep": 30}], spec_extra=spec)
    result = run_agent(task, env={"HOLON_TIMEOUT": "1"})
    assert result.reason == "timeout"
