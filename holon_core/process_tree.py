"""Find, measure, kill and reap every process an engine run started.

A process-group kill is not enough: Codex and Gemini start tool processes with ``setsid``
(research/engines.md section 5), and daemons double-fork away from their parent. So the agent
becomes a child subreaper (orphans of the tree reparent to us instead of init), and a tree
member is any process that descends from the engine, was ever seen as a member, shares the
engine's session, or carries the run's marker variable in its environment. Statuses are only
ever collected by pid, never with ``waitpid(-1)``, so other code's children stay untouched.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import psutil

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

#: Environment variable whose value marks processes as members of one supervised tree.
TREE_MARKER_ENV = "HOLON_PROCESS_TREE"
_PR_SET_CHILD_SUBREAPER = 36
#: Pids (this process, after forks) that successfully became a subreaper.
_subreaper_pids: set[int] = set()


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux); False where unsupported or refused.

    The attribute is per process and not inherited across fork, hence the pid check.
    """
    if os.getpid() in _subreaper_pids:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        ok = bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False
    if ok:
        _subreaper_pids.add(os.getpid())
    return ok


_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: signal.Signals = signal.SIGKILL) -> Callable[[], None] | None:
    """A ``preexec_fn`` giving the child ``sig`` when this process dies (Linux; else None).

    The kernel sends it when the *thread* that forked exits, so call ``Popen`` from a thread
    that outlives the child (the main thread). If this process died before ``prctl`` ran
    (the child was already reparented), the child ends itself at once. Everything the child
    runs is resolved here: between fork and exec it must not import or take locks, which is
    what makes this ``preexec_fn`` safe with other threads running (it only calls ``prctl``,
    ``getppid`` and ``kill``).
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent, signum, getppid, kill, me = os.getpid(), int(sig), os.getppid, os.kill, os.getpid

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)
        if getppid() != parent:  # too late: the parent is already gone
            kill(me(), signum)

    return preexec


def is_subreaper() -> bool:
    return os.getpid() in _subreaper_pids


def descendants(pid: int) -> list[psutil.Process]:
    """All live descendants of ``pid`` (empty when it is gone)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def _children_map() -> tuple[dict[int, list[int]], dict[int, psutil.Process]]:
    children: dict[int, list[int]] = defaultdict(list)
    procs: dict[int, psutil.Process] = {}
    for proc in psutil.process_iter(["ppid"]):
        ppid = proc.info.get("ppid")
        if isinstance(ppid, int):
            children[ppid].append(proc.pid)
            procs[proc.pid] = proc
    return children, procs


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


class ProcessTree:
    """The processes one engine run owns, with their peak memory and CPU time.

    Identity is psutil's (pid, create time), so a reused pid is never mistaken for a member.
    """

    def __init__(
        self,
        root_pid: int,
        marker: str | None = None,
        foreign: Iterable[psutil.Process] | None = None,
    ) -> None:
        self.root_pid = root_pid
        self.marker = marker
        self.seen: set[psutil.Process] = set()
        self._rejected: set[psutil.Process] = set()
        self._cpu: dict[psutil.Process, float] = {}
        self.peak_rss_bytes = 0
        #: Our children from before the engine started (None: adoption is not tracked). Any
        #: other child of ours besides the engine is an orphan of the engine's tree that
        #: reparented to us, the subreaper, whatever session or environment it gave itself.
        self.foreign = None if foreign is None else set(foreign)
        with contextlib.suppress(psutil.Error):
            self.seen.add(psutil.Process(root_pid))

    @property
    def sampled_cpu_seconds(self) -> float:
        """User+system time of every member ever sampled, at its last sample."""
        return sum(self._cpu.values())

    def members(self, *, everywhere: bool = False) -> list[psutil.Process]:
        """The members alive now (zombies included, so they can be reaped).

        Walks this process's subtree, where the engine and, thanks to the subreaper, its
        orphans live. ``everywhere`` also checks every other process for the marker (for
        platforms without a subreaper, where orphans go to init).
        """
        children, procs = _children_map()
        found: list[psutil.Process] = []
        member_pids: set[int] = set()
        adopting = is_subreaper()
        queue = [
            (pid, adopting and self._adopted(procs.get(pid)))
            for pid in children.get(os.getpid(), [])
        ]
        while queue:
            pid, parent_member = queue.pop()
            proc = procs.get(pid)
            if proc is None:
                continue
            member = parent_member or proc in self.seen or self._claims(proc, by_session=True)
            if member:
                self.seen.add(proc)
                found.append(proc)
                member_pids.add(pid)
            queue.extend((child, member) for child in children.get(pid, []))
        for proc in list(self.seen):
            if proc.pid not in member_pids and proc.is_running():
                found.append(proc)
                member_pids.add(proc.pid)
        if everywhere and self.marker is not None:
            for pid, proc in procs.items():
                if pid not in member_pids and self._claims(proc, by_session=False):
                    self.seen.add(proc)
                    found.append(proc)
        return found

    def _adopted(self, proc: psutil.Process | None) -> bool:
        """A direct child of ours that is neither the engine nor one we had before it."""
        if proc is None or self.foreign is None or proc.pid == self.root_pid:
            return False
        return proc not in self.foreign  # psutil identity: pid and creation time

    def _claims(self, proc: psutil.Process, *, by_session: bool) -> bool:
        if proc in self._rejected:
            return False
        try:
            if by_session and os.getsid(proc.pid) == self.root_pid:
                return True
            if self.marker is not None and proc.environ().get(TREE_MARKER_ENV) == self.marker:
                return True
        except (psutil.Error, OSError):
            pass
        self._rejected.add(proc)
        return False

    def sample(self) -> None:
        """Record the tree's current RSS sum (keeping the peak) and each member's CPU time."""
        rss = 0
        for proc in self.members():
            try:
                with proc.oneshot():
                    rss += proc.memory_info().rss
                    times = proc.cpu_times()
                self._cpu[proc] = times.user + times.system
            except psutil.Error:
                continue
        self.peak_rss_bytes = max(self.peak_rss_bytes, rss)

    def kill_all(self, *, exclude: Iterable[int] = (), timeout: float = 10.0) -> KillReport:
        """SIGKILL and reap every member left (except ``exclude`` pids)."""
        skip = set(exclude)
        everywhere = not is_subreaper()
        return kill_tree(
            lambda: [p for p in self.members(everywhere=everywhere) if p.pid not in skip],
            timeout=timeout,
        )


@dataclass(frozen=True, slots=True)
class KillReport:
    """What a sweep did: processes SIGKILLed, and CPU time of those we reaped ourselves."""

    killed: int
    reaped_cpu_seconds: float
    survivors: int


def kill_tree(find: Callable[[], Iterable[psutil.Process]], *, timeout: float = 10.0) -> KillReport:
    """SIGKILL whatever ``find`` returns and reap it, in rounds until nothing is left.

    Rounds catch processes forked while we were killing and orphans that reparented to us
    in the meantime. Our own children are reaped with ``wait4`` by pid; others are waited for
    (init reaps them).
    """
    killed: set[psutil.Process] = set()
    cpu = 0.0
    deadline = time.monotonic() + timeout
    left: list[psutil.Process] = []
    while True:
        left = [p for p in find() if p.is_running()]
        if not left:
            break
        for proc in left:
            if _alive(proc):
                try:
                    proc.kill()
                    killed.add(proc)
                except psutil.Error:
                    pass
        cpu += _reap(left, deadline)
        if time.monotonic() > deadline:
            left = [p for p in find() if p.is_running()]
            break
    return KillReport(killed=len(killed), reaped_cpu_seconds=cpu, survivors=len(left))


def _reap(procs: list[psutil.Process], deadline: float) -> float:
    me = os.getpid()
    cpu = 0.0
    foreign: list[psutil.Process] = []
    for proc in procs:
        try:
            ours = proc.ppid() == me
        except psutil.Error:
            continue
        if not ours:
            foreign.append(proc)
            continue
        # A child of ours cannot be reaped by anyone else, so its pid is still this process.
        while True:
            try:
                pid, _status, usage = os.wait4(proc.pid, os.WNOHANG)
            except ChildProcessError:
                break
            if pid:
                cpu += usage.ru_utime + usage.ru_stime
                break
            if time.monotonic() > deadline:
                break
            time.sleep(0.005)
    if foreign:
        psutil.wait_procs(foreign, timeout=max(0.0, min(1.0, deadline - time.monotonic())))
    return cpu
