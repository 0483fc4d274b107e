"""SIGKILL to a supervisor (holon-agent, holon run) leaves no process of the run behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import psutil
import pytest

from holon_core.testing import make_task
from holon_core.testing.agent_run import start_agent

if TYPE_CHECKING:
    from pathlib import Path


def _steps(pids: Path) -> list[dict[str, str]]:
    """A daemon that leaves the engine's session, then a long command in the foreground."""
    daemon = f"echo $$ > {pids}/daemon.pid; exec sleep 300"
    return [
        {"run": f"setsid sh -c '{daemon}' </dev/null >/dev/null 2>&1 &"},
        {"run": f"echo $$ > {pids}/sleep.pid; exec sleep 301"},
    ]


def _wait_for_pids(pids: Path, proc: subprocess.Popen[bytes]) -> list[int]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        files = [pids / "daemon.pid", pids / "sleep.pid"]
        texts = [f.read_text().strip() if f.exists() else "" for f in files]
        if all(texts):
            return [int(t) for t in texts]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    pytest.fail("the engine's commands never started")


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _assert_all_gone(pids: list[int], what: str) -> None:
    """Poll (bounded) until none of ``pids`` runs; on failure kill them and fail."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if not any(_alive(pid) for pid in pids):
            return
        time.sleep(0.05)
    left = [pid for pid in pids if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    pytest.fail(f"{what}: still running after its supervisor was SIGKILLed: {left}")


def _tree(pid: int) -> list[int]:
    return [p.pid for p in psutil.Process(pid).children(recursive=True)]


def test_sigkill_to_holon_agent_kills_the_engine_and_its_daemon(tmp_path):
    pids = tmp_path / "pids"
    pids.mkdir()
    task = make_task(tmp_path / "task", replay=_steps(pids), git_repo=False)
    # holon's own watchdog, behind the room (the engine writes its pids beside the task)
    agent = start_agent(task, env={"HOLON_SANDBOX": "off"})
    try:
        daemon, sleeper = _wait_for_pids(pids, agent)
        tree = _tree(agent.pid)  # the engine, the watchdog, and what the engine started
        assert sleeper in tree
    finally:
        agent.kill()
        agent.communicate()
    _assert_all_gone([*tree, daemon, sleeper], "the engine's processes")


def test_sigkill_to_holon_run_stops_the_agent_and_the_engine(tmp_path):
    pids = tmp_path / "pids"
    pids.mkdir()
    task = make_task(tmp_path / "task", replay=_steps(pids), git_repo=False)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "README.md").write_text("hi\n")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "HOLON_RUNS_DIR": str(tmp_path / "runs"),
        "HOLON_SANDBOX": "off",  # the engine writes its pids beside the task
    }
    argv = [sys.executable, "-m", "holon_core.cli.main", "run", str(task.spec)]
    argv += ["--workspace", str(workspace), "--engine", "replay", "--json", "--quiet"]
    runner = subprocess.Popen(
        argv,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        daemon, sleeper = _wait_for_pids(pids, runner)
        tree = _tree(runner.pid)  # the agent, the engine, the watchdog, the engine's tools
    finally:
        runner.kill()
        runner.communicate()
    _assert_all_gone([*tree, daemon, sleeper], "the run's processes")
    # The agent, told by the kernel that its runner died, still wrote its record.
    (run_dir,) = (tmp_path / "runs").iterdir()
    manifest = json.loads((run_dir / "output" / "manifest.json").read_text())
    assert manifest["metadata"]["reason"] == "cancelled"


_PROBE = """
import ctypes, os, signal, sys
from holon_core.process.tree import die_with_parent

preexec = die_with_parent(signal.SIGKILL)
libc = ctypes.CDLL(None, use_errno=True)
child = os.fork()
if child == 0:
    if sys.argv[1] == "set":  # the parent is alive: the signal is set, the child lives on
        preexec()
        value = ctypes.c_int()
        libc.prctl(2, ctypes.byref(value), 0, 0, 0)  # PR_GET_PDEATHSIG
        os._exit(value.value)
    # "late": the process that made preexec is no longer the parent (it died and the child
    # was reparented), as when the parent dies between fork and prctl: the child must end.
    grandchild = os.fork()
    if grandchild == 0:
        preexec()
        os._exit(0)
    _, status = os.waitpid(grandchild, 0)
    os._exit(100 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0)
_, status = os.waitpid(child, 0)
print(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.parametrize(("case", "expected"), [("set", 9), ("late", 109)])
def test_die_with_parent_sets_the_signal_or_ends_a_child_whose_parent_is_gone(case, expected):
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, case], capture_output=True, text=True, check=True
    )
    assert int(done.stdout) == expected, done.stderr


_KEPT = """
import os, signal, sys, threading
from pathlib import Path
from holon_core.engine.adapter import LaunchPlan
from holon_core.process.tree import become_subreaper
from holon_core.process.supervisor import supervise
from holon_core.process.watchdogs import _Kept, shared_watchdog

become_subreaper()
sharing = shared_watchdog()  # as serve mode does for its turns
sharing.__enter__()
started = []


def run(script, on_stdout=lambda line: None):
    plan = LaunchPlan(argv=["sh", "-c", script], env=dict(os.environ), cwd=Path.cwd())
    return supervise(
        plan, on_stdout=on_stdout, on_stderr=lambda line: None, wall_timeout=60,
        silence_timeout=None, cancel=threading.Event(), on_start=started.append,
    )


first = run("exit 3").exit_code
watchdog = _Kept.watchdog._pid


def die(line):  # the second run's daemon is up: print what to check, then get SIGKILLed
    print(first, watchdog, _Kept.watchdog._pid, started[-1], line, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


run("setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!; exec sleep 301", die)
"""


def test_one_watchdog_serves_every_run_and_kills_the_tree_of_the_run_it_was_armed_for(tmp_path):
    # Serve mode shares one watchdog across turns: a finished turn leaves it running and
    # disarmed, and a later turn re-arms it, so SIGKILL mid-turn still kills that turn's tree.
    argv = [sys.executable, "-c", _KEPT]
    agent = subprocess.run(
        argv, check=False, capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert agent.returncode == -signal.SIGKILL, agent.stderr
    first, watchdog, again, engine, daemon = (int(word) for word in agent.stdout.split())
    assert first == 3
    assert watchdog == again  # the first run's watchdog, still alive, watched the second
    _assert_all_gone([engine, daemon, watchdog], "the second run's processes")
