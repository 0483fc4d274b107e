"""Run one engine process tree to its end and leave nothing behind.

The engine starts in its own session with no TTY, stdin fed or closed, and stdout/stderr as
pipes. Reader threads only drain the pipes into a spool file at disk speed (a chatty engine
is not held up by holon's parsing and redaction); the calling thread reads the spool behind
them, splits lines and runs every callback, so event parsers need no locking. What is still
spooled when the engine exits is processed before :func:`supervise` returns; after a
timeout, cancel or abort, for at most a few seconds (the rest is counted, not parsed).
The run ends by exit, wall-clock timeout, silence timeout, the cancel event or a parser's
abort request; a teardown ladder (close stdin, SIGTERM to the group, grace, SIGKILL)
follows, and afterwards every descendant left (setsid'd tools, daemons) is killed and
reaped (see :mod:`holon_core.process.tree`).
If the agent itself is SIGKILLed, the engine gets SIGKILL from the kernel (parent-death
signal) and a watchdog process kills the rest of its tree (:mod:`holon_core.process.watchdog`).

``exit_code`` follows :mod:`subprocess`: negative means killed by that signal.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from holon_core.process.claims import claiming, release_claims
from holon_core.process.engine_run import STOPPED_DRAIN, EndedBy, EngineRun
from holon_core.process.pipes import Spool
from holon_core.process.proc_scan import TREE_MARKER_ENV, children_of
from holon_core.process.reaper import become_subreaper, die_with_parent, ignoring_stop_signals
from holon_core.process.watchdogs import release_watchdog, run_watchdog

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable

    from holon_core.engine.adapter import LaunchPlan
    from holon_core.process.proc_scan import Proc
    from holon_core.process.watchdog import Watchdog

#: The reader threads need the GIL once per pipeful they move. While the engine runs, the
#: consumer yields it within this long (default 5 ms), and takes the spool in pieces of
#: ``engine_run.TAKE_BYTES``, so no single regex or decode call holds it for long: together
#: they halve how long a 100 MB flood holds the engine up (bench/output_throughput.py).
_SWITCH_INTERVAL = 0.0005


@dataclass(frozen=True, slots=True)
class ProcessOutcome:
    exit_code: int | None
    ended_by: EndedBy
    abort_reason: str | None
    duration: float
    peak_rss_bytes: int
    cpu_seconds: float
    leftovers_killed: int
    spawn_error: str | None
    pid: int | None
    #: Engine output read after a timeout/cancel/abort that was left unprocessed (bytes).
    output_dropped: int = 0


def supervise(
    plan: LaunchPlan,
    *,
    on_stdout: Callable[[str], None],
    on_stderr: Callable[[str], None],
    wall_timeout: float | None,
    silence_timeout: float | None,
    cancel: threading.Event,
    should_abort: Callable[[], str | None] = lambda: None,
    on_start: Callable[[int], None] | None = None,
    on_output: Callable[[str, bytes], None] | None = None,
    spool_dir: str | None = None,
) -> ProcessOutcome:
    """Start ``plan``, feed its output lines to the callbacks and return how it ended.

    ``on_output(stream, chunk)`` (``stream`` is ``"stdout"`` or ``"stderr"``) receives the raw
    bytes as read, after the lines they complete were delivered: the place to store output
    without per-line work. ``spool_dir`` holds the unnamed spool files (default: the system
    temp dir); it should be holon's, outside the output dir.

    Never raises for a process that cannot start (``ended_by="spawn_failed"``); an exception
    from a callback tears the whole tree down and then propagates.
    """
    started = time.monotonic()
    become_subreaper()
    marker = secrets.token_hex(8)
    watchdog, foreign, spool = _before_start(spool_dir)
    try:
        proc = _spawn(plan, marker)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        release_watchdog(watchdog)
        spool.close()
        return _spawn_failed(exc, started)
    watchdog.arm(proc.pid, marker)
    run = EngineRun(
        proc,
        plan,
        marker,
        {"out": on_stdout, "err": on_stderr},
        should_abort,
        foreign=foreign,
        on_output=on_output,
        spool=spool,
    )
    try:
        ended_by, reason = _until_done(
            run,
            on_start,
            wall=wall_timeout,
            silence=silence_timeout,
            cancel=cancel,
            started=started,
        )
    finally:
        release_claims(proc.pid)
        release_watchdog(watchdog)
        run.spool.close()
    return _ended(run, ended_by, reason, started)


def _before_start(spool_dir: str | None) -> tuple[Watchdog, list[Proc], Spool]:
    """The run's watchdog, the children that are ours already, and the output spool.

    The watchdog comes before ``foreign`` is taken (it is ours, not the engine's); anything
    adopted later is the engine's. A spool that cannot be made fails the run, not the engine.
    """
    watchdog = run_watchdog()
    foreign = children_of(os.getpid())
    try:
        spool = Spool(spool_dir)
    except OSError:
        release_watchdog(watchdog)
        raise
    return watchdog, foreign, spool


def _spawn(plan: LaunchPlan, marker: str) -> subprocess.Popen[bytes]:
    """Start the engine in its own session, claimed as this run's (never another's orphan)."""
    if not plan.argv:
        raise ValueError("empty argv")
    with claiming() as claimed:
        proc = subprocess.Popen(
            plan.argv,
            env={**plan.env, TREE_MARKER_ENV: marker},
            cwd=plan.cwd,
            stdin=subprocess.DEVNULL if plan.stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
            bufsize=0,
            # The engine dies if the agent is SIGKILLed (thread-safe: see die_with_parent).
            preexec_fn=(  # noqa: PLW1509
                ignoring_stop_signals(die_with_parent()) if plan.wrapper else die_with_parent()
            ),
        )
        claimed.engines.add(proc.pid)
    return proc


def _spawn_failed(exc: BaseException, started: float) -> ProcessOutcome:
    return ProcessOutcome(
        exit_code=None,
        ended_by="spawn_failed",
        abort_reason=None,
        duration=time.monotonic() - started,
        peak_rss_bytes=0,
        cpu_seconds=0.0,
        leftovers_killed=0,
        spawn_error=f"{type(exc).__name__}: {exc}",
        pid=None,
    )


def _until_done(
    run: EngineRun,
    on_start: Callable[[int], None] | None,
    *,
    wall: float | None,
    silence: float | None,
    cancel: threading.Event,
    started: float,
) -> tuple[EndedBy, str | None]:
    """``on_start``, the loop to the end, what is spooled; the tree is torn down on any error.

    The GIL switch interval is short while the engine runs (see ``_SWITCH_INTERVAL``).
    """
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(min(switch_interval, _SWITCH_INTERVAL))
    try:
        if on_start is not None:
            on_start(run.proc.pid)
        ended_by, reason = run.until_end(wall, silence, cancel, started)
        sys.setswitchinterval(switch_interval)  # the engine is gone: no reader to wait for
        run.finish(drain_limit=None if ended_by == "exit" else STOPPED_DRAIN, cancel=cancel)
        if ended_by == "exit" and run.cancelled_in_drain:
            ended_by = "cancelled"  # the engine had exited, holon had not read all it printed
        if ended_by == "exit" and (late := run.should_abort()) is not None:
            # The parser, behind the engine, reached an abort condition after the exit.
            ended_by = "aborted"  # how it ended; the reason is the parser's
            reason = late
    except BaseException:
        run.emergency_stop()
        raise
    finally:
        sys.setswitchinterval(switch_interval)
    return ended_by, reason


def _ended(run: EngineRun, ended_by: EndedBy, reason: str | None, started: float) -> ProcessOutcome:
    return ProcessOutcome(
        exit_code=run.exit_code,
        ended_by=ended_by,
        abort_reason=reason,
        duration=time.monotonic() - started,
        peak_rss_bytes=run.peak_rss,
        cpu_seconds=run.cpu_seconds,
        leftovers_killed=run.leftovers_killed,
        spawn_error=None,
        pid=run.proc.pid,
        output_dropped=run.dropped,
    )
