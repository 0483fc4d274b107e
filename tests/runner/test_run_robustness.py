"""`holon run` when things go wrong around the agent: a closed stderr, a stop signal before
the agent starts, failures before launch under --json, spec warnings, debugging knobs, a
user's git config during --apply, and the replay engine's own pass-through list."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from .kit import (
    ENGINE_STEPS,
    PATH_KEYS,
    RESULT_KEYS,
    base_env,
    git,
    holon_run,
    make_workspace,
    processes_mentioning,
    run_dirs,
    write,
    write_task,
)


def _holon_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "holon_core.cli.main", "run", *args]


def test_closed_stderr_ends_progress_not_the_run(tmp_path: Path) -> None:
    """`holon run ... 2>&1 | head -1`: the reader goes away while the agent still works."""
    ws = make_workspace(tmp_path / "ws", "git")
    steps: list[dict[str, Any]] = [
        {"write": {"path": "a.txt", "content": "a\n"}}, {"sleep": 3},
        {"write": {"path": "b.txt", "content": "b\n"}}, {"say": "done"}]  # fmt: skip
    spec = write_task(tmp_path / "task", steps)
    read_end, write_end = os.pipe()
    proc = subprocess.Popen(
        _holon_argv(str(spec), "--workspace", str(ws), "--engine", "replay"),
        env=base_env(tmp_path), stdin=subprocess.DEVNULL, stdout=write_end, stderr=write_end,
    )  # fmt: skip
    os.close(write_end)
    try:
        with os.fdopen(read_end, "rb") as reader:
            first = reader.readline()  # like `head -1`, then the pipe is closed
        assert first
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 0
    (run_dir,) = run_dirs(tmp_path)
    record = json.loads((run_dir / "run.json").read_text())
    assert (record["outcome"], record["files_changed"]) == ("success", 2)
    assert (run_dir / "output" / "diff.patch").read_text().count("diff --git") == 2
    assert processes_mentioning(str(run_dir)) == []
    assert not (run_dir / "workspace").exists()


STAND_IN_CP = """#!/bin/sh
# A snapshot copy that takes long enough to be interrupted: says it started, then waits.
echo $$ > "$SLOW_CP_STARTED"
exec sleep 60
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_signal_during_the_snapshot_cancels_cleanly(tmp_path: Path, signum: int) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")  # plain: snapshotted with `cp -a`
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    bin_dir = tmp_path / "bin"
    write(bin_dir, "cp", STAND_IN_CP, 0o755)
    started = tmp_path / "cp-started"
    env = base_env(tmp_path)
    env |= {"PATH": f"{bin_dir}{os.pathsep}{env['PATH']}", "SLOW_CP_STARTED": str(started)}
    proc = subprocess.Popen(
        _holon_argv(str(spec), "--workspace", str(ws), "--engine", "replay", "--json"),
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        for _ in range(1200):
            if started.is_file() and started.read_text().strip():
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        left_behind = _reap_stand_in(started)
    assert not left_behind
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    name = signal.Signals(signum).name
    assert err == f"holon run: cancelled: cancelled by {name} before the agent started\n"
    result = json.loads(out)
    assert set(result) == RESULT_KEYS and set(result["paths"]) == PATH_KEYS
    assert (result["outcome"], result["reason"], result["interrupted"]) == (
        "failure", "cancelled", True)  # fmt: skip
    assert run_dirs(tmp_path) == []  # the half-made snapshot and the run dir are gone


def test_signal_before_the_agent_keeps_the_run_dir_when_asked(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    write(tmp_path / "bin", "cp", STAND_IN_CP, 0o755)
    started = tmp_path / "cp-started"
    env = base_env(tmp_path)
    env |= {"PATH": f"{tmp_path / 'bin'}{os.pathsep}{env['PATH']}",
            "SLOW_CP_STARTED": str(started)}  # fmt: skip
    proc = subprocess.Popen(
        _holon_argv(str(spec), "--workspace", str(ws), "--keep-snapshot"),
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        for _ in range(1200):
            if started.is_file() and started.read_text().strip():
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        left_behind = _reap_stand_in(started)
    assert not left_behind
    assert proc.returncode == 1
    (run_dir,) = run_dirs(tmp_path)
    assert f"the run directory was kept: {run_dir}" in err
    assert (run_dir / "input" / "spec.yaml").is_file()


def _reap_stand_in(started: Path) -> bool:
    """Kill the stand-in if holon run left it behind (so a failing test leaks nothing)."""
    if not started.is_file() or not psutil.pid_exists(pid := int(started.read_text())):
        return False
    with contextlib.suppress(psutil.Error):
        psutil.Process(pid).kill()
    return True


def _nonempty_output(tmp_path: Path) -> list[str]:
    write(tmp_path / "mine", "precious.txt", "keep me\n")
    return ["--output", str(tmp_path / "mine")]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("missing_spec", "does not exist"),
        ("missing_workspace", "is not a directory"),
        ("nonempty_output", "refusing to delete its files"),
        ("bad_timeout", "--timeout"),
    ],
)
def test_json_result_even_when_the_run_never_starts(
    tmp_path: Path, case: str, expected: str
) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [])
    args = [str(spec), "--workspace", str(ws), "--engine", "replay", "--json"]
    if case == "missing_spec":
        args[0] = str(tmp_path / "nope.yaml")
    elif case == "missing_workspace":
        args[2] = str(tmp_path / "no-such-dir")
    elif case == "nonempty_output":
        args += _nonempty_output(tmp_path)
    else:
        args += ["--timeout", "soon"]
    ran = holon_run(tmp_path, args)
    assert ran.exit_code == 1
    assert ran.stderr.startswith("holon run: error: ") and expected in ran.stderr
    result = ran.json
    assert set(result) == RESULT_KEYS and set(result["paths"]) == PATH_KEYS
    assert (result["exit_code"], result["outcome"], result["valid"]) == (1, "failure", False)
    assert expected in result["error"] and result["reason"]
    assert result["error"].count("write it like") <= 1  # the fix is said once
    assert run_dirs(tmp_path) == []


@pytest.mark.parametrize("case", ["missing_spec", "missing_workspace", "bad_timeout"])
def test_a_refused_run_records_its_failure_in_the_output_dir(
    tmp_path: Path, case: str, assert_valid_manifest: Any
) -> None:
    """``--output DIR`` given: the refusal leaves the failure manifest.json there (DIR made
    if missing), the same minimal record holon-agent writes; the run dir still goes."""
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [])
    out = tmp_path / "out" / "new"
    args = [str(spec), "--workspace", str(ws), "--engine", "replay", "--output", str(out)]
    if case == "missing_spec":
        args[0] = str(tmp_path / "nope.yaml")
    elif case == "missing_workspace":
        args[2] = str(tmp_path / "no-such-dir")
    else:
        args += ["--timeout", "soon"]
    ran = holon_run(tmp_path, [*args, "--json"])
    assert ran.exit_code == 1
    manifest = assert_valid_manifest(json.loads((out / "manifest.json").read_text()))
    assert (manifest["status"], manifest["outcome"]) == ("failed", "failure")
    assert manifest["metadata"]["agent"] == "holon run"
    assert manifest["metadata"]["reason"] == ran.json["reason"]
    assert manifest["error"] == ran.json["error"]
    assert ran.json["paths"]["manifest"] == str(out / "manifest.json")
    assert f"holon run: the failure is recorded in {out / 'manifest.json'}" in ran.stderr
    assert sorted(p.name for p in out.iterdir()) == [".holon-owned", "manifest.json"]
    assert run_dirs(tmp_path) == []


def test_a_refused_run_leaves_a_users_output_dir_alone(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    args = [str(tmp_path / "nope.yaml"), "--workspace", str(ws), "--engine", "replay"]
    ran = holon_run(tmp_path, [*args, *_nonempty_output(tmp_path)])
    assert ran.exit_code == 1
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == ["precious.txt"]
    assert "recorded in" not in ran.stderr


def test_spec_warnings_are_shown_and_reported(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [], extra={"colour": "blue"})
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay",
                               "--json", "--quiet"])  # fmt: skip
    assert ran.exit_code == 0, ran.stderr
    warning = f"{spec}:7: unknown field 'colour' ignored"
    assert f"holon run: warning: {warning}\n" in ran.stderr
    assert warning in ran.json["warnings"]


def test_keep_run_dir_keeps_the_agent_state(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    args = [str(spec), "--workspace", str(ws), "--engine", "replay"]
    ran = holon_run(tmp_path, [*args, "--json"], {"HOLON_KEEP_RUN_DIR": "1"})
    run_dir = Path(ran.json["paths"]["run_dir"])
    assert ran.json["paths"]["state"] == str(run_dir / "state")
    (agent_run,) = (run_dir / "state").glob("run-*")
    assert (agent_run / "prompt.md").is_file()  # the replay engine's own files
    assert not (run_dir / "workspace").exists()  # the snapshot still goes
    human = holon_run(tmp_path, args, {"HOLON_KEEP_RUN_DIR": "1"})
    assert "  state     " in human.stdout and "(HOLON_KEEP_RUN_DIR=1)" in human.stdout


def test_apply_ignores_the_users_whitespace_and_eol_config(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "git")
    git(ws, "config", "apply.whitespace", "fix")
    git(ws, "config", "core.autocrlf", "true")
    steps: list[dict[str, Any]] = [
        {"write": {"path": "README.md", "content": "hello   \nstaged line\t\n"}},
        {"write": {"path": "spaces.txt", "content": "trailing  \n\n\n"}},
        {"say": "done"}]  # fmt: skip
    spec = write_task(tmp_path / "task", steps)
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay",
                               "--apply", "--json"])  # fmt: skip
    assert ran.json["applied"] is True, ran.json
    assert (ws / "README.md").read_bytes() == b"hello   \nstaged line\t\n"
    assert (ws / "spaces.txt").read_bytes() == b"trailing  \n\n\n"


def test_replay_pass_env_reaches_the_replay_engine(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    steps: list[dict[str, Any]] = [
        {"run": 'printf "%s|%s" "$MY_SETTING" "$NOT_PASSED" > {output}/seen.txt'}
    ]
    spec = write_task(tmp_path / "task", steps)
    env = {"MY_SETTING": "visible", "NOT_PASSED": "hidden", "HOLON_REPLAY_PASS_ENV": "MY_SETTING"}
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay",
                               "--json"], env)  # fmt: skip
    assert ran.exit_code == 0, ran.stderr
    assert (Path(ran.json["paths"]["output_dir"]) / "seen.txt").read_text() == "visible|"
