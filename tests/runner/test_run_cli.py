"""`holon run` as a command: JSON shape, the input dir it builds, the agent's environment,
progress on a terminal and in CI, signal forwarding, timeouts and fail-fast errors."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from holon_core.hooks.manager import load_plugins
from holon_core.testing import snapshot_tree

from .kit import (
    ENGINE_STEPS,
    PATH_KEYS,
    RESULT_KEYS,
    base_env,
    fake_agent_cmd,
    holon_run,
    make_workspace,
    processes_mentioning,
    run_dirs,
    write_task,
)


def test_json_output_shape(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "git")
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay", "--json"])
    result = ran.json
    assert set(result) == RESULT_KEYS
    assert set(result["paths"]) == PATH_KEYS
    assert result["version"] == 1
    assert (result["exit_code"], result["outcome"], result["reason"]) == (0, "success", "ok")
    assert result["valid"] is True and result["problems"] == [] and result["error"] is None
    assert result["engine"] == "replay" and result["agent_exit_code"] == 0
    assert result["files_changed"] == 5 and result["applied"] is None
    assert isinstance(result["duration_seconds"], float)
    run_dir = Path(result["paths"]["run_dir"])
    assert run_dir.name.startswith(f"run-{result['run_id']}-")
    assert run_dir.parent == tmp_path / "runs"
    for key in ("manifest", "patch", "summary", "events"):
        assert Path(result["paths"][key]).is_file()
    assert result["paths"]["state"] is None  # removed; HOLON_KEEP_RUN_DIR=1 keeps it
    assert Path(result["paths"]["output_dir"]) == run_dir / "output"
    assert result["snapshot"] == {"path": str(run_dir / "workspace"), "kind": "git-clone",
                                  "kept": False}  # fmt: skip
    assert json.loads((run_dir / "run.json").read_text()) == result


def test_human_summary(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay"])
    lines = ran.stdout.splitlines()
    assert lines[0].startswith("holon run: success (ok), ")
    assert lines[0].endswith("engine replay, 5 files changed")
    labels = [line.split()[0] for line in lines[1:]]
    assert labels == ["manifest", "patch", "summary", "report", "run"]


def test_input_dir_is_built_from_spec_context_prompts_and_skills(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [])
    (tmp_path / "task" / "context" / "notes.md").write_text("context note\n")
    (tmp_path / "sys.md").write_text("system prompt\n")
    (tmp_path / "user.md").write_text("user prompt\n")
    skill = tmp_path / "my-skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: my-skill\ndescription: test\n---\nbody\n")
    env = {"HOLON_AGENT_CMD": fake_agent_cmd(), "HOLON_FAKE_AGENT": "valid"}
    args = [str(spec), "--workspace", str(ws), "--system-prompt", str(tmp_path / "sys.md")]
    args += ["--user-prompt", str(tmp_path / "user.md"), "--skill", str(skill), "--json"]
    args += ["--model", "m-1"]
    ran = holon_run(tmp_path, args, env)
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    run_dir = Path(ran.json["paths"]["run_dir"])
    inp = run_dir / "input"
    assert (inp / "spec.yaml").read_bytes() == spec.read_bytes()  # comment kept, byte for byte
    assert (inp / "context" / "notes.md").read_text() == "context note\n"
    assert (inp / "context" / "replay.yaml").is_file()
    assert (inp / "prompts" / "system.md").read_text() == "system prompt\n"
    assert (inp / "prompts" / "user.md").read_text() == "user prompt\n"
    copied = inp / "flag-skills" / "01" / "my-skill"
    assert (copied / "SKILL.md").read_bytes() == (skill / "SKILL.md").read_bytes()
    argv = json.loads((run_dir / "output" / "fake-agent.json").read_text())["argv"]
    assert argv == [
        "--input", str(inp), "--workspace", str(run_dir / "workspace"),
        "--output", str(run_dir / "output"), "--state", str(run_dir / "state"),
        "--model", "m-1", "--skill", str(copied),
    ]  # fmt: skip


def _engines_with_credentials() -> list[str]:
    plugins = load_plugins({})
    found = [n for n in plugins.engine_names() if plugins.get_engine(n).credential_env]
    if len(found) < 2:
        pytest.fail(f"needs two installed adapters with credentials; found {found}")
    return found


def test_agent_gets_a_run_local_home_and_only_the_contract_env(tmp_path: Path) -> None:
    chosen, other = _engines_with_credentials()[:2]
    plugins = load_plugins({})
    mine, theirs = plugins.get_engine(chosen), plugins.get_engine(other)
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [])
    env = {"HOLON_AGENT_CMD": fake_agent_cmd(), "HOLON_FAKE_AGENT": "valid"}
    env |= {"UNRELATED_SECRET": "s3", "HOLON_CUSTOM": "kept", "HTTPS_PROXY": "http://p:1"}
    env |= {name: f"value-of-{name}" for name in (*mine.credential_env, *mine.passthrough_env)}
    env |= {name: "x" for name in theirs.credential_env if name not in mine.credential_env}
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--engine", chosen, "--json"],
                    env)  # fmt: skip
    run_dir = Path(ran.json["paths"]["run_dir"])
    seen: dict[str, str] = json.loads((run_dir / "output" / "fake-agent.json").read_text())["env"]
    assert seen["HOME"] == str(run_dir / "home") and seen["TMPDIR"] == str(run_dir / "tmp")
    assert seen["HOLON_ENGINES_DIR"] == base_env(tmp_path)["HOLON_ENGINES_DIR"]
    assert seen["HOLON_CUSTOM"] == "kept" and seen["HTTPS_PROXY"] == "http://p:1"
    for name in (*mine.credential_env, *mine.passthrough_env):
        assert seen[name] == f"value-of-{name}"
    leaked = {n for n in seen if n in env and not n.startswith("HOLON_")} - {
        *mine.credential_env,
        *mine.passthrough_env,
        "PATH",
        "HTTPS_PROXY",
        "LANG",
        "PYTHONPATH",
    }
    assert leaked == set()
    assert "UNRELATED_SECRET" not in seen and "HOLON_RUNS_DIR" not in seen
    assert "HOLON_AGENT_CMD" not in seen
    assert not (run_dir / "home").exists()  # run-local scratch removed after the run


def test_plain_progress_lines_without_a_terminal(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay"])
    progress = [line.split("] ", 1)[1] for line in ran.stderr.splitlines() if "] " in line]
    assert "phase launch" in progress
    assert "tool write src/app.py" in progress
    assert "tool delete gone.txt" in progress
    assert "engine finished (ok)" in progress
    assert progress[-1] == "phase manifest"
    assert "\x1b[K" not in ran.stderr
    quiet = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay",
                                 "--quiet"])  # fmt: skip
    assert "phase launch" not in quiet.stderr


def test_live_status_line_on_a_terminal(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    steps: list[dict[str, Any]] = [
        {"write": {"path": "a.txt", "content": "a\n"}}, {"sleep": 1}, {"say": "done"}]  # fmt: skip
    spec = write_task(tmp_path / "task", steps)
    argv = ["-m", "holon_core.cli.main", "run", str(spec), "--workspace", str(ws)]
    child = pexpect.spawn(sys.executable, [*argv, "--engine", "replay"], env=base_env(tmp_path),
                          encoding="utf-8", timeout=60)  # fmt: skip
    try:
        child.expect(r"\[ *[\d.]+s\] tool write a\.txt")
        child.expect(r"\r\x1b\[K[|/\\-] +[\d.]+s  engine running  1 tool call")
        child.expect("holon run: success")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def _wait_for(path_glob: str, root: Path, text: str, proc: subprocess.Popen[str]) -> None:
    for _ in range(600):
        for path in root.glob(path_glob):
            if text in path.read_text(errors="replace"):
                return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    pytest.fail(f"{text!r} never appeared in {path_glob}")


@contextlib.contextmanager
def _running(tmp_path: Path, spec: Path, ws: Path) -> Iterator[subprocess.Popen[str]]:
    """``holon run --json`` of ``spec``, given once its replay engine runs a step; killed on
    the way out if it has not ended."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "holon_core.cli.main", "run", str(spec), "--workspace", str(ws),
         "--engine", "replay", "--json", "--quiet"],
        env=base_env(tmp_path), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _wait_for("run-*/output/evidence/events.ndjson", tmp_path / "runs", '"run"', proc)
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_is_forwarded_and_the_run_still_reports(tmp_path: Path, signum: int) -> None:
    ws = make_workspace(tmp_path / "ws", "git")
    before = snapshot_tree(ws)
    steps: list[dict[str, Any]] = [
        {"write": {"path": "a.txt", "content": "a\n"}}, {"run": "sleep 60"}]  # fmt: skip
    spec = write_task(tmp_path / "task", steps)
    with _running(tmp_path, spec, ws) as proc:
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    result = json.loads(out)
    assert result["interrupted"] is True and result["valid"] is True
    assert (result["outcome"], result["reason"]) == ("failure", "cancelled")
    (run_dir,) = run_dirs(tmp_path)
    assert processes_mentioning(str(run_dir)) == []
    assert snapshot_tree(ws) == before


def test_timeout_reaches_the_agent(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [{"run": "sleep 60"}])
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay",
                               "--timeout", "1s", "--json"])  # fmt: skip
    assert ran.exit_code == 1
    assert (ran.json["outcome"], ran.json["reason"]) == ("failure", "timeout")


def test_keep_snapshot_keeps_the_engine_workspace(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "git")
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay",
                               "--keep-snapshot", "--json"])  # fmt: skip
    snap = Path(ran.json["snapshot"]["path"])
    assert ran.json["snapshot"]["kept"] is True
    assert (snap / "src" / "app.py").read_text() == "print('changed by the engine')\n"
    assert not (ws / "deep").exists()


def test_invalid_spec_fails_fast(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    (tmp_path / "spec.yaml").write_text("version: v9\nkind: Holon\ngoal: x\n")
    ran = holon_run(tmp_path, [str(tmp_path / "spec.yaml"), "--workspace", str(ws)])
    assert ran.exit_code == 1
    assert ran.stderr.startswith("holon run: error: ")
    assert "version" in ran.stderr
    assert run_dirs(tmp_path) == []


def test_bad_agent_command_is_reported(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [])
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--json"],
                    {"HOLON_AGENT_CMD": str(tmp_path / "no-such-agent")})  # fmt: skip
    assert ran.exit_code == 1
    assert ran.json["reason"] == "missing_manifest"
    assert "cannot start" in ran.json["warnings"][0]
    assert os.fspath(tmp_path / "no-such-agent") in ran.json["warnings"][0]


@pytest.mark.parametrize("flag", ["--runs-dir", "--output"])
def test_relative_paths_are_taken_from_the_callers_directory(tmp_path: Path, flag: str) -> None:
    """``--runs-dir runs`` / ``--output out`` name directories under the shell's working
    directory, like every other path on the command line (the agent, started in the run
    dir, once looked for its input under ``runs/run-.../runs/run-.../``); ``..`` is
    resolved, as the engine sees the path (a cassette's recorded paths must match it)."""
    ws = make_workspace(tmp_path / "ws", "git")
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    caller = tmp_path / "caller"
    caller.mkdir()
    where = "sub/../runs" if flag == "--runs-dir" else "out"
    argv = [str(spec), "--workspace", str(ws), "--engine", "replay", flag, where, "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "holon_core.cli.main", "run", *argv],
        env=base_env(tmp_path),
        cwd=caller,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["outcome"] == "success", result["error"]
    run_dir, output = Path(result["paths"]["run_dir"]), Path(result["paths"]["output_dir"])
    assert run_dir.is_absolute() and output.is_absolute()
    if flag == "--runs-dir":
        assert run_dir.parent == caller / "runs"
    else:
        assert output == caller / "out"
    assert (output / "manifest.json").is_file()


def test_a_burst_of_stop_signals_still_ends_the_run(tmp_path: Path) -> None:
    """A dying parent sends SIGTERM (PR_SET_PDEATHSIG) and its session SIGHUP, a user hits
    Ctrl-C twice: the handler must take no lock a signal arriving inside it could wait on
    (a Ray test once left a holon run deadlocked in threading.Event.set for good)."""
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [{"run": "sleep 60"}])
    stops = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
    with _running(tmp_path, spec, ws) as proc:
        for index in range(3000):
            if proc.poll() is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, stops[index % 3])
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert json.loads(out)["reason"] == "cancelled"
    (run_dir,) = run_dirs(tmp_path)
    assert processes_mentioning(str(run_dir)) == []  # holon-agent ended too
