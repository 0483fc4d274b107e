"""Find, measure, kill and reap every process an engine run started.

A process-group kill is not enough: Codex and Gemini start tool processes with ``setsid``
(research/engines.md section 5), and daemons double-fork away from their parent. So the agent
becomes a child subreaper (orphans of the tree reparent to us instead of init), and a tree
member is any process that descends from the engine, was ever seen as a member, shares the
engine's session, or carries the run's marker variable in its environment. Statuses are only
ever collected by pid, never with ``waitpid(-1)``, so other code's children stay untouched.
Processes are read by one cheap scan of ``/proc`` (:mod:`.proc_scan`); which children are
another run's is kept in :mod:`.claims`, the subreaper and parent-death signal in
:mod:`.reaper`. The rest of holon imports those names from here (``__all__``).
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from holon_core.process.claims import Claims, claiming, release_claims, runs_side_by_side
from holon_core.process.proc_scan import (
    TREE_MARKER_ENV,
    Proc,
    ProcStat,
    children_map,
    children_of,
    descendants,
    has_marker,
    proc_stat,
    scan,
)
from holon_core.process.reaper import become_subreaper, die_with_parent, is_subreaper

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

#: The names the rest of holon imports from here; each lives in the module it is imported from.
__all__ = [
    "TREE_MARKER_ENV",
    "Claims",
    "KillReport",
    "Proc",
    "ProcessTree",
    "become_subreaper",
    "children_of",
    "claiming",
    "descendants",
    "die_with_parent",
    "kill_tree",
    "release_claims",
    "runs_side_by_side",
    "scan",
]


class ProcessTree:
    """The processes one engine run owns, with their peak memory and CPU time.

    Identity is (pid, start time), so a reused pid is never mistaken for a member.
    """

    def __init__(
        self,
        root_pid: int,
        marker: str | None = None,
        foreign: Iterable[Proc] | None = None,
    ) -> None:
        self.root_pid = root_pid
        self.marker = marker
        self.seen: set[Proc] = set()
        self._rejected: set[Proc] = set()
        self._cpu: dict[Proc, float] = {}
        self.peak_rss_bytes = 0
        #: Our children from before the engine started (None: adoption is not tracked). Any
        #: other child of ours besides the engine is an orphan of the engine's tree that
        #: reparented to us, the subreaper, whatever session or environment it gave itself.
        self.foreign = None if foreign is None else set(foreign)
        root = proc_stat(root_pid)
        if root is not None:
            self.seen.add(Proc(root_pid, root.start))

    @property
    def sampled_cpu_seconds(self) -> float:
        """User+system time of every member ever sampled, at its last sample."""
        return sum(self._cpu.values())

    def members(self, *, everywhere: bool = False) -> list[Proc]:
        """The members alive now (zombies included, so they can be reaped).

        Walks this process's subtree, where the engine and, thanks to the subreaper, its
        orphans live. ``everywhere`` also checks every other process for the marker (for
        platforms without a subreaper, where orphans go to init).
        """
        return list(self._members(scan(), everywhere=everywhere))

    def _members(self, procs: dict[int, ProcStat], *, everywhere: bool) -> dict[Proc, ProcStat]:
        children = children_map(procs)
        found: dict[Proc, ProcStat] = {}
        visited: set[int] = set()
        adopting = is_subreaper()
        with Claims.lock:  # after the scan: a child it saw is claimed by now, if ever
            engines, helpers = Claims.engines - {self.root_pid}, set(Claims.helpers)
        queue = [
            (
                pid,
                adopting
                and self._adopted(Proc(pid, procs[pid].start), procs[pid], engines, helpers),
            )
            for pid in children.get(os.getpid(), [])
        ]
        while queue:
            pid, parent_member = queue.pop()
            if pid in visited:  # a pid reused while the scan ran must not loop the walk
                continue
            visited.add(pid)
            stat = procs[pid]
            proc = Proc(pid, stat.start)
            member = parent_member or proc in self.seen or self._claims(proc, stat, True)
            if member:
                found[proc] = stat
            queue.extend((child, member) for child in children.get(pid, []))
        for proc in list(self.seen):
            now = procs.get(proc.pid)
            if now is None or now.start != proc.start:
                self.seen.discard(proc)  # gone for good
            elif proc not in found:
                found[proc] = now
        if everywhere and self.marker is not None:
            for pid, stat in procs.items():
                proc = Proc(pid, stat.start)
                if proc not in found and self._claims(proc, stat, False):
                    found[proc] = stat
        self.seen.update(found)
        return found

    def _adopted(self, proc: Proc, stat: ProcStat, engines: set[int], helpers: set[int]) -> bool:
        """A direct child of ours that is neither the engine nor one we had before it, nor
        claimed (another run's engine, a watchdog), nor in another run's engine session.

        While other runs may be live, an orphan that left its session could be any run's, or
        another run's own child: it is ours only if it carries our marker (one that also
        cleared its environment is then nobody's, and the run that started it does not find
        it either).
        """
        if self.foreign is None or proc.pid == self.root_pid or proc in self.foreign:
            return False
        if proc.pid in engines or proc.pid in helpers or stat.session in engines:
            return False
        if (engines or Claims.side_by_side) and self.marker is not None:
            return has_marker(proc.pid, self.marker)
        return True

    def _claims(self, proc: Proc, stat: ProcStat, by_session: bool) -> bool:
        if proc in self._rejected:
            return False
        if by_session and stat.session == self.root_pid:
            return True
        if self.marker is not None and has_marker(proc.pid, self.marker):
            return True
        self._rejected.add(proc)
        return False

    def sample(self) -> None:
        """Record the tree's current RSS sum (keeping the peak) and each member's CPU time."""
        rss = 0
        for proc, stat in self._members(scan(), everywhere=False).items():
            rss += stat.rss_bytes
            self._cpu[proc] = stat.cpu_seconds
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


def kill_tree(find: Callable[[], Iterable[Proc]], *, timeout: float = 10.0) -> KillReport:
    """SIGKILL whatever ``find`` returns and reap it, in rounds until nothing is left.

    Rounds catch processes forked while we were killing and orphans that reparented to us
    in the meantime. Our own children are reaped with ``wait4`` by pid; others are waited for
    (their parent or init reaps them).
    """
    killed: set[Proc] = set()
    cpu = 0.0
    deadline = time.monotonic() + timeout
    left: list[Proc] = []
    while True:
        left = list(find())
        if not left:
            break
        killed.update(proc for proc in left if _kill(proc))
        cpu += _reap(left, deadline)
        if time.monotonic() > deadline:
            left = list(find())
            break
    return KillReport(killed=len(killed), reaped_cpu_seconds=cpu, survivors=len(left))


def _kill(proc: Proc) -> bool:
    """SIGKILL ``proc`` if it is still that process and not yet a zombie."""
    stat = proc_stat(proc.pid)
    if stat is None or stat.start != proc.start or stat.zombie:
        return False
    try:
        os.kill(proc.pid, signal.SIGKILL)
    except OSError:
        return False
    return True


def _reap(procs: list[Proc], deadline: float) -> float:
    """Wait until ``procs`` are gone, reaping our own children; their CPU time.

    Others are waited for at most a second: their parent (or init) reaps them, and a
    member whose parent dies in the meantime becomes our child and is reaped here.
    """
    me = os.getpid()
    cpu = 0.0
    pending = set(procs)
    others_until = min(deadline, time.monotonic() + 1.0)
    delay = 0.001
    while pending:
        ours = False
        for proc in list(pending):
            stat = proc_stat(proc.pid)
            if stat is None or stat.start != proc.start:
                pending.discard(proc)  # reaped by its parent or by init
                continue
            if stat.ppid != me:
                continue
            ours = True
            # A child of ours cannot be reaped by anyone else, so its pid is still this process.
            try:
                pid, _status, usage = os.wait4(proc.pid, os.WNOHANG)
            except ChildProcessError:
                pending.discard(proc)
                continue
            if pid:
                cpu += usage.ru_utime + usage.ru_stime
                pending.discard(proc)
        if not pending or time.monotonic() > (deadline if ours else others_until):
            break
        time.sleep(delay)
        delay = min(delay * 2, 0.02)
    return cpu
