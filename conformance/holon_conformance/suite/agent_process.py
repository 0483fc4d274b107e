"""Running holon-agent for a case: on pipes or on a terminal (pty), traced where strace works.

The suite stops a run that asks a question on the terminal or outlives its timeout, the
way a user would (SIGTERM, then SIGKILL after ``STOP_GRACE``), and keeps what it printed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from holon_conformance.suite import trace
from holon_conformance.suite.cases import Case
from holon_conformance.suite.run_record import RunRecord

#: Seconds holon-agent gets to record a run the suite stops (a prompt seen, a hang).
STOP_GRACE = 5.0


def _traced(argv: list[str], root: Path) -> tuple[list[str], bool]:
    if trace.strace_binary() is None:
        return argv, False
    (root / "trace").mkdir()
    return trace.traced_argv(argv, root / "trace" / "run"), True


def run_pipes(
    case: Case, argv: list[str], env: dict[str, str], root: Path, timeout: float
) -> RunRecord:
    """stdin closed (/dev/null), no controlling terminal (own session), output captured."""
    command, traced = _traced(argv, root)
    proc = subprocess.Popen(
        command,
        env=env,
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    agent = trace.agent_pid(proc.pid, argv) if traced else proc.pid
    timed_out = False
    deadline = time.monotonic() + timeout
    while True:
        try:
            out, _ = proc.communicate(timeout=0.2)
            break
        except subprocess.TimeoutExpired:
            if traced:
                trace.detach_when_done(proc.pid, agent)
            if time.monotonic() > deadline:
                timed_out = True
                with contextlib.suppress(ProcessLookupError):
                    os.kill(agent or proc.pid, signal.SIGTERM)  # as in _stop_pty
                try:
                    out, _ = proc.communicate(timeout=STOP_GRACE)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    out, _ = proc.communicate()
                break
    text = out.decode("utf-8", errors="replace")
    record = RunRecord(case.name, argv, proc.returncode, text, 0.0, root, root, root)
    record.timed_out, record.agent_pid = timed_out, agent
    return record


#: What an interactive question looks like on a terminal (onboarding, trust, permission, update).
PROMPT_PATTERN = (
    r"(?i)(\[y/n\]|\(y/n\)|\[yes/no\]|press (enter|any key)|do you (want|trust)|"
    r"continue\?|allow (this|once)|enter your|paste your|select an? |login with|sign in)"
)


def run_pty(
    case: Case, argv: list[str], env: dict[str, str], root: Path, timeout: float
) -> RunRecord:
    """The same run with a pseudo-terminal as stdin/stdout/stderr: it must never ask anything."""
    import pexpect

    command, traced = _traced(argv, root)
    child = pexpect.spawn(
        command[0], command[1:], env=env, cwd=str(root), encoding="utf-8", codec_errors="replace"
    )
    tracer = int(child.pid or 0)  # pexpect sets it once spawned
    agent = trace.agent_pid(tracer, argv) if traced else tracer
    chunks: list[str] = []
    prompt: str | None = None
    timed_out = False
    deadline = time.monotonic() + timeout
    while True:
        index = child.expect([PROMPT_PATTERN, pexpect.EOF, pexpect.TIMEOUT], timeout=1.0)
        if index != 2:
            chunks.append(child.before or "")
        if index == 0:
            prompt = str(child.after)
            chunks.append(prompt)
            break
        if index == 1:
            break
        if traced:
            trace.detach_when_done(tracer, agent)
        if time.monotonic() > deadline:
            timed_out = True
            break
    if prompt is not None or timed_out:
        chunks.append(_stop_pty(child, agent))
    child.close(force=True)
    exit_code = child.exitstatus if child.exitstatus is not None else None
    record = RunRecord(case.name, argv, exit_code, "".join(chunks), 0.0, root, root, root)
    record.prompt_seen, record.timed_out, record.agent_pid = prompt, timed_out, agent
    return record


def _stop_pty(child: Any, agent: int | None) -> str:
    """End a run the way a user would: SIGTERM to holon-agent, which then records a cancelled
    run and cleans up (the suite reports the prompt or the hang; the run's other rows are then
    judged on a finished run, not on one the suite killed), and SIGKILL after a grace."""
    import pexpect

    with contextlib.suppress(ProcessLookupError):
        os.kill(agent or child.pid, signal.SIGTERM)
    try:
        child.expect(pexpect.EOF, timeout=STOP_GRACE)
        return str(child.before or "")
    except pexpect.TIMEOUT:
        child.kill(signal.SIGKILL)
        return ""
