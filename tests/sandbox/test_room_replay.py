"""The room with the replay engine: every way out fails, the task still succeeds, the record
names what was denied, and ``--sandbox off`` says that it ran as the user."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import holon_core.sandbox
from holon_core.testing import make_task, run_agent
from tests.refusal_cases import bwrap_without_namespaces

from .escape import ALLOWED_NAME, DENIED_NAME, Escape


def _script(escape: Escape) -> list[dict[str, object]]:
    steps: list[dict[str, object]] = [{"run": command} for command in escape.commands()]
    return [*steps, {"write": {"path": "done.txt", "content": "done\n"}}, {"outcome": "success"}]


def test_every_way_out_fails_and_the_task_succeeds(escape: Escape, tmp_path) -> None:
    task = make_task(tmp_path / "task", replay=_script(escape), files={"README.md": "hi\n"})
    result = run_agent(task, env=escape.env())
    manifest = result.manifest
    assert manifest is not None, result.stderr
    assert (manifest["outcome"], manifest["metadata"]["reason"]) == ("success", "ok")
    assert "done.txt" in (task.output / "diff.patch").read_text()
    outputs = "\n".join(
        str((e.get("data") or {}).get("output", ""))
        for e in result.events
        if e["type"] == "tool_result"
    )
    for failed in ("read-home-failed", "list-home-failed", "read-sibling-failed"):
        assert failed in outputs
    for failed in ("write-home-failed", "write-outside-failed", "curl-failed"):
        assert failed in outputs
    for failed in ("python-failed", "devtcp-failed", "node-failed", "denied-host-failed"):
        assert failed in outputs
    assert "allowed-host-answered" in outputs
    escape.assert_contained(task.output)
    sandbox = manifest["metadata"]["sandbox"]
    assert sandbox["mode"] == "on" and sandbox["mechanism"] == "bubblewrap"
    assert sandbox["network"]["denied_hosts"] == [DENIED_NAME]
    assert sandbox["network"]["allowed"] >= 1
    assert f"{ALLOWED_NAME}:{escape.allowed_port}" in sandbox["network"]["allow"]
    report = tmp_path / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "holon_core", "report", str(task.output), "--out", str(report)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    page = report.read_text()
    assert "Network (1 denied, 1 allowed)" in page and DENIED_NAME in page
    summary = (task.output / "summary.md").read_text()
    assert f"1 denied ({DENIED_NAME})" in summary and "evidence/network.ndjson" in summary
    mounted = {m["path"]: m["how"] for m in sandbox["mounts"]}
    assert mounted[str(task.workspace)] == "rw" and mounted[str(task.input)] == "ro"
    assert not any(path.startswith(str(escape.root)) for path in mounted)


def test_sandbox_off_runs_as_the_user_and_says_so(escape: Escape, tmp_path) -> None:
    steps = [{"run": f"cat {escape.home}/.ssh/id_ed25519"}, {"outcome": "success"}]
    task = make_task(tmp_path / "task", replay=steps)
    result = run_agent(task, env={**escape.env(), "HOLON_SANDBOX": "off"})
    manifest = result.manifest
    assert manifest is not None, result.stderr
    assert manifest["metadata"]["sandbox"] == {"mode": "off"}
    assert any("sandbox off" in w for w in manifest["metadata"]["warnings"])
    assert "sandbox off" in result.stderr
    assert "sandbox: off: the engine ran as the user" in (task.output / "summary.md").read_text()
    assert not (task.output / "evidence" / "network.ndjson").exists()


def test_a_bad_sandbox_setting_is_refused_before_the_launch(tmp_path) -> None:
    task = make_task(tmp_path / "task", replay=[{"outcome": "success"}])
    result = run_agent(task, env={"HOLON_SANDBOX": "maybe"})
    assert result.exit_code == 1
    assert result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "invalid_input"
    assert "HOLON_SANDBOX" in result.manifest["error"]


def test_a_machine_that_cannot_build_the_room_refuses_with_the_fix(tmp_path) -> None:
    task = make_task(tmp_path / "task", replay=[{"outcome": "success"}])
    result = run_agent(task, env={"HOLON_BWRAP": bwrap_without_namespaces(tmp_path)})
    assert result.exit_code == 1
    manifest = result.manifest
    assert manifest is not None
    assert (manifest["outcome"], manifest["metadata"]["reason"]) == (
        "failure",
        "sandbox_unavailable",
    )
    assert "No permissions to create new namespace" in manifest["error"]
    assert "--sandbox off" in json.dumps(manifest)


def test_the_room_starts_the_engine_as_subprocess_would(tmp_path) -> None:
    """The room's first process (``room_init.py``, a bare interpreter that imports no
    ``subprocess``) starts the engine with the signals Python ignores back at their default
    (``yes | head`` must end ``yes`` by SIGPIPE) and no descriptor of its own but 0, 1, 2."""
    init = Path(holon_core.sandbox.__file__).with_name("room_init.py")
    leaked = tmp_path / "leaked"
    with leaked.open("w") as held:
        os.set_inheritable(held.fileno(), True)  # as if bwrap or holon had passed one on
        done = subprocess.run(
            [sys.executable, "-I", "-S", str(init), "--", "sh", "-c",
             "grep SigIgn /proc/$$/status; ls /proc/$$/fd"],
            capture_output=True, text=True, timeout=30, check=False, close_fds=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    ignored = int(done.stdout.split()[1], 16)
    assert not ignored & (1 << (signal.SIGPIPE - 1)), done.stdout
    assert not ignored & (1 << (signal.SIGXFSZ - 1)), done.stdout
    assert sorted(int(fd) for fd in done.stdout.split()[2:]) == [0, 1, 2], done.stdout
