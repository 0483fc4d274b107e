"""The suite's strace wrapper lets go of a run once its agent is gone, daemons or not.

A run that leaves a daemon behind (HOLON-PROC-001's business) must not keep the tracer, and
with it the harness, waiting: each such case used to cost the whole run timeout.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
from holon_conformance.processes import become_subreaper
from holon_conformance.suite import trace

#: A hang guard, not a benchmark: strace that ignores SIGTERM never ends before the daemon.
GUARD = 30.0


def test_the_tracer_detaches_from_a_daemon_the_run_left(tmp_path: Path) -> None:
    assert trace.strace_binary(), "strace is part of the suite's test environment"
    become_subreaper()
    # The "agent" starts a daemon and waits for the go file (so its pid is seen), then exits.
    script = (
        "setsid sleep 120 </dev/null >/dev/null 2>&1 & echo $! > daemon.pid; "
        "while [ ! -e go ]; do sleep 0.05; done; exit 0"
    )
    command = ["sh", "-c", script]
    tracer = subprocess.Popen(
        trace.traced_argv(command, tmp_path / "run"), cwd=tmp_path, start_new_session=True
    )
    agent = trace.agent_pid(tracer.pid, command)
    daemon = 0
    try:
        assert agent is not None
        (tmp_path / "go").touch()
        deadline = time.monotonic() + GUARD
        while tracer.poll() is None and time.monotonic() < deadline:
            trace.detach_when_done(tracer.pid, agent)
            with contextlib.suppress(subprocess.TimeoutExpired):
                tracer.wait(timeout=0.2)
        daemon = int((tmp_path / "daemon.pid").read_text(encoding="utf-8"))
        assert tracer.returncode is not None, "strace kept tracing the daemon after the run"
        # Detached, not killed: the leftover check still finds the daemon.
        assert psutil.Process(daemon).status() != psutil.STATUS_ZOMBIE
        found = trace.read_trace(tmp_path / "run")
        assert any(program.endswith("sleep") for _, program, _, _ in found.execs)
    finally:
        for pid in (daemon, tracer.pid):
            with contextlib.suppress(ProcessLookupError, ValueError):
                if pid:
                    os.kill(pid, signal.SIGKILL)
        tracer.wait()


def test_the_agent_is_the_child_running_the_command() -> None:
    """strace forks probe children of its own before the command: the agent is found by its
    command line, not by being some child of the tracer."""
    parent = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 61 & wait"], start_new_session=True)
    try:
        agent = trace.agent_pid(parent.pid, ["sleep", "61"])
        assert agent is not None
        assert psutil.Process(agent).cmdline() == ["sleep", "61"]
    finally:
        os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()


def test_bytecode_of_the_interpreters_own_modules_is_no_tmp_write(tmp_path: Path) -> None:
    """A source tree under /tmp (a CI clone) gets ``__pycache__`` writes on a module's first
    import: not a temp file of the run. A ``.pyc`` written anywhere else still counts."""
    assert trace.strace_binary(), "strace is part of the suite's test environment"
    src = tmp_path / "src"
    src.mkdir()
    (src / "freshmod.py").write_text("VALUE = 1\n", encoding="utf-8")
    leaks = [
        tmp_path / "leak.pyc",
        tmp_path / "other" / "__pycache__" / "freshmod.cpython-311.pyc",  # no source beside
        src / "__pycache__" / "ghost.cpython-311.pyc",  # no ghost.py: not the interpreter's
    ]
    writes = "; ".join(f"mkdir -p {p.parent} && echo x > {p}" for p in leaks)
    script = f'"{sys.executable}" -c "import freshmod"; {writes}'
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = trace.traced_argv(["sh", "-c", script], tmp_path / "run")
    subprocess.run(command, cwd=tmp_path, env=env, check=True, timeout=GUARD)
    created = trace.read_trace(tmp_path / "run").created_under(tmp_path, tmp_path / "none")
    own = [p for p in created if "freshmod.cpython" in p and p.startswith(str(src))]
    assert own, f"the import wrote no bytecode (traced: {created})"
    kept = [p for p in created if not trace.is_own_bytecode(p, (src.resolve(),))]
    assert set(map(str, leaks)) <= set(kept)
    assert not [p for p in kept if p.startswith(str(src)) and "ghost" not in p], kept
    # Outside the interpreter's roots the same bytecode counts.
    assert all(p in created for p in own)
    assert not any(trace.is_own_bytecode(p, (tmp_path / "elsewhere",)) for p in own)
