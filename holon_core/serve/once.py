"""``holon-agent serve --once``: one-shot as a lifecycle policy of serve mode.

It starts ``holon-agent serve`` on a private socket, submits exactly one turn whose input
and output dirs are the run's own (so the record lands where a one-shot run puts it), shuts
the server down and exits with the turn's exit code (0 success, 1 failure, 2 needs human).
A stop signal is passed on to the server, which cancels the turn and records it. When the
server cannot start (a bad spec, a failed preflight), the one-shot pipeline runs instead so
the failure still leaves its manifest.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from types import FrameType

from holon_core.agent.paths import AgentPaths
from holon_core.process.signal_latch import SignalLatch

EXIT_CODES = {"success": 0, "failure": 1, "needs_human": 2}
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
#: Longest Unix socket path Linux binds (sun_path is 108 bytes, with its terminating NUL).
SOCKET_PATH_MAX = 107


def run_once(
    paths: AgentPaths,
    env: Mapping[str, str],
    *,
    engine: str | None,
    model: str | None,
    skills: list[Path],
) -> int:
    from holon_core.serve.client import ServeClient, start_server

    args = ["--input", str(paths.input), "--workspace", str(paths.workspace)]
    args += ["--output", str(paths.output)]
    if paths.state is not None:
        args += ["--state", str(paths.state)]
    if engine:
        args += ["--engine", engine]
    if model:
        args += ["--model", model]
    for skill in skills:
        args += ["--skill", str(skill)]
    private = _private_dir()
    socket = private / "agent.sock"
    stopped = threading.Event()
    latch = SignalLatch(stopped)  # a second signal takes no lock (process/signal_latch.py)

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        latch.fire()

    previous = {sig: signal.signal(sig, on_signal) for sig in STOP_SIGNALS}
    try:
        try:
            server = start_server(socket, args, env=env, stderr=sys.stderr)
        except RuntimeError:
            return _one_shot(paths, env, engine=engine, model=model, skills=skills, stop=stopped)
        forward = threading.Thread(target=_forward, args=(stopped, server), daemon=True)
        forward.start()
        with ServeClient(socket) as client:
            final = client.create(
                _goal(paths),
                model=model,
                holon={"input_dir": str(paths.input), "output_dir": str(paths.output)},
            )
            with contextlib.suppress(Exception):  # a signal may have stopped it already
                client.shutdown()
        server.wait()
        return EXIT_CODES.get(str(final.get("holon", {}).get("outcome")), 1)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        shutil.rmtree(private, ignore_errors=True)


def _private_dir() -> Path:
    """A private dir for the socket; in /tmp when TMPDIR is too deep for a socket path."""
    private = Path(tempfile.mkdtemp(prefix="holon-once-"))
    if len(str(private / "agent.sock")) > SOCKET_PATH_MAX:
        private.rmdir()
        private = Path(tempfile.mkdtemp(prefix="holon-once-", dir="/tmp"))
    return private


def _forward(stopped: threading.Event, server: object) -> None:
    stopped.wait()
    with contextlib.suppress(OSError):
        server.send_signal(signal.SIGTERM)  # type: ignore[attr-defined]


def _goal(paths: AgentPaths) -> str:
    from holon_core.spec.load import load_spec

    spec, _warnings = load_spec(paths.spec)
    return spec.goal_text


def _one_shot(
    paths: AgentPaths,
    env: Mapping[str, str],
    *,
    engine: str | None,
    model: str | None,
    skills: list[Path],
    stop: threading.Event,
) -> int:
    from holon_core.agent.run import AgentOptions, run_agent

    options = AgentOptions(engine=engine, model=model, skills=skills)
    return run_agent(paths, options, env, stop)
