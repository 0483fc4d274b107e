"""Find, measure, kill and reap every process an engine run started.

A process-group kill is not enough: Codex and Gemini start tool processes with ``setsid``
(research/engines.md section 5), and daemons double-fork away from their parent. So the agent
becomes a child subreaper (orphans of the tree reparent to us instead of init), and a tree
member is any process that descends from the engine, was ever seen as a member, shares the
engine's session, or carries the run's marker variable in its environment. Statuses are only
ever collected by pid, never with ``waitpid(-1)``, so other code's children stay untouched.
Processes are read straight from ``/proc`` (psutil only where there is none): kernels built
without ``CONFIG_PROC_CHILDREN`` list no process's children, so finding the tree means a scan
of every process, and that scan must be cheap.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

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


class Claims:
    """Pids this process started for its runs, while each run lasts: engine roots and
    holon's own helpers (watchdogs).

    serve mode runs turns side by side in one process, so a child of ours that appeared after
    a run's start is not always an orphan of that run's engine: it may be another run's engine
    or watchdog. Starting such a process (:func:`claiming`) and sorting our children happen
    under one lock, so a tree never adopts a process another run is about to claim.
    """

    lock = threading.Lock()
    engines: ClassVar[set[int]] = set()
    helpers: ClassVar[set[int]] = set()
    #: Several runs may be under way at once (:func:`runs_side_by_side`).
    side_by_side = False


@contextlib.contextmanager
def claiming() -> Iterator[type[Claims]]:
    """Hold while starting a process no other run may adopt, and record its pid in it."""
    with Claims.lock:
        yield Claims


@contextlib.contextmanager
def runs_side_by_side(enabled: bool = True) -> Iterator[None]:
    """Inside, several runs of this process may be under way at once (serve mode with
    ``--max-concurrent`` above 1). Each run's own children (its git, its copies) are then
    children of ours that no claim covers, so an orphan is adopted only by the run whose
    marker it carries."""
    before = Claims.side_by_side
    Claims.side_by_side = enabled or before
    try:
        yield
    finally:
        Claims.side_by_side = before


def release_claims(*pids: int | None) -> None:
    """The run that claimed these pids is over: they are nobody's any more."""
    with Claims.lock:
        gone = {pid for pid in pids if pid is not None}
        Claims.engines.difference_update(gone)
        Claims.helpers.difference_update(gone)


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


@dataclass(frozen=True, slots=True)
class Proc:
    """One process by identity: pid and start time, so a reused pid is never taken for it."""

    pid: int
    start: float


class _Stat(NamedTuple):
    """What one read of ``/proc/<pid>/stat`` tells (a tuple: a scan makes one per process)."""

    ppid: int
    session: int
    zombie: bool
    start: float
    cpu_seconds: float
    rss_bytes: int


_HAS_PROC = Path("/proc/self").is_dir()
_TICKS = os.sysconf("SC_CLK_TCK") if _HAS_PROC else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if _HAS_PROC else 4096


def scan() -> dict[int, _Stat]:
    """Every process on the machine by pid.

    One read of ``/proc/<pid>/stat`` a process and no psutil objects: ~2 ms of CPU for 110
    processes where psutil's ``process_iter`` took ~12 ms, and the supervisor scans at the
    launch, every sample and each kill round.
    """
    if not _HAS_PROC:
        return _scan_psutil()
    with os.scandir("/proc") as entries:
        pids = [int(entry.name) for entry in entries if entry.name.isdigit()]
    found = {}
    for pid in pids:
        if (stat := _stat(pid)) is not None:
            found[pid] = stat
    return found


def _stat(pid: int) -> _Stat | None:
    if not _HAS_PROC:
        try:
            return _scan_psutil([pid]).get(pid)
        except Exception:  # psutil.NoSuchProcess: gone
            return None
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        try:
            data = os.read(fd, 4096)
        finally:
            os.close(fd)
        # Fields after the command name, which may itself hold spaces and parentheses.
        fields = data[data.rindex(b")") + 2 :].split()
        return _Stat(
            ppid=int(fields[1]),
            session=int(fields[3]),
            zombie=fields[0] in (b"Z", b"X"),
            start=int(fields[19]),
            cpu_seconds=(int(fields[11]) + int(fields[12])) / _TICKS,
            rss_bytes=int(fields[21]) * _PAGE,
        )
    except (OSError, ValueError, IndexError):
        return None


def _scan_psutil(pids: list[int] | None = None) -> dict[int, _Stat]:
    """:func:`scan` (or one :func:`_stat` each of ``pids``) where there is no ``/proc``."""
    import psutil

    found = {}
    for proc in psutil.process_iter() if pids is None else map(psutil.Process, pids):
        try:
            with proc.oneshot():
                times = proc.cpu_times()
                found[proc.pid] = _Stat(
                    ppid=proc.ppid(),
                    session=os.getsid(proc.pid),
                    zombie=proc.status() == psutil.STATUS_ZOMBIE,
                    start=proc.create_time(),
                    cpu_seconds=times.user + times.system,
                    rss_bytes=proc.memory_info().rss,
                )
        except (psutil.Error, OSError):
            continue
    return found


def _has_marker(pid: int, marker: str) -> bool:
    """Whether the process's environment holds the tree's marker variable."""
    if not _HAS_PROC:
        import psutil

        try:
            return bool(psutil.Process(pid).environ().get(TREE_MARKER_ENV) == marker)
        except psutil.Error:
            return False
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:  # gone, or not ours to read: no claim
        return False
    return f"{TREE_MARKER_ENV}={marker}".encode() in environ.split(b"\0")


def _children(procs: dict[int, _Stat]) -> dict[int, list[int]]:
    children: dict[int, list[int]] = defaultdict(list)
    for pid, stat in procs.items():
        children[stat.ppid].append(pid)
    return children


def children_of(pid: int) -> list[Proc]:
    """The direct children of ``pid`` alive now (zombies included)."""
    return [Proc(p, s.start) for p, s in scan().items() if s.ppid == pid]


def descendants(pid: int) -> list[Proc]:
    """All live descendants of ``pid`` (empty when it is gone)."""
    procs = scan()
    if pid not in procs:
        return []
    children, found, queue = _children(procs), {pid}, [pid]
    while queue:
        for child in children.get(queue.pop(), []):
            if child not in found:
                found.add(child)
                queue.append(child)
    return [Proc(p, procs[p].start) for p in found - {pid}]


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
        root = _stat(root_pid)
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

    def _members(self, procs: dict[int, _Stat], *, everywhere: bool) -> dict[Proc, _Stat]:
        children = _children(procs)
        found: dict[Proc, _Stat] = {}
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

    def _adopted(self, proc: Proc, stat: _Stat, engines: set[int], helpers: set[int]) -> bool:
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
            return _has_marker(proc.pid, self.marker)
        return True

    def _claims(self, proc: Proc, stat: _Stat, by_session: bool) -> bool:
        if proc in self._rejected:
            return False
        if by_session and stat.session == self.root_pid:
            return True
        if self.marker is not None and _has_marker(proc.pid, self.marker):
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
    stat = _stat(proc.pid)
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
            stat = _stat(proc.pid)
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
