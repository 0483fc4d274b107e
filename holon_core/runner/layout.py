"""Where a ``holon run`` lives on disk: one private ``run-<id>-<token>`` directory per run.

The run directory sits outside the workspace (under ``$HOLON_RUNS_DIR``, else
``$XDG_STATE_HOME/holon/runs``, else ``~/.local/state/holon/runs``) so the snapshot of the
workspace never contains holon's own bookkeeping and the user's tree is never written to.

The engine works in ``workspace/`` and so can reach its siblings (it runs as the same user).
The runner therefore holds the run directory open from the moment it makes it and writes its
own files (``run.json``) through that descriptor, never following a link planted at a name;
scratch dirs are deleted only while they are still the directories the runner made.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from holon_core.errors import InputError
from holon_core.runner.runs import record_runner
from holon_core.untrusted.files import HeldDir, open_up

SUBDIRS = ("input", "state", "home", "tmp")


def default_runs_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("HOLON_RUNS_DIR"):
        return Path(env["HOLON_RUNS_DIR"]).expanduser().absolute()
    state = env.get("XDG_STATE_HOME") or str(Path(env.get("HOME", "~")) / ".local" / "state")
    return Path(state).expanduser().absolute() / "holon" / "runs"


@dataclass(frozen=True)
class RunLayout:
    """The fixed sub-directories of one run; the output dir may live elsewhere (``--output``)."""

    run_id: str
    root: Path
    output: Path
    held: HeldDir | None = field(default=None, compare=False)
    #: directories above ``root`` this run created (outermost first), removed if it is refused
    created: tuple[Path, ...] = ()
    identities: Mapping[str, tuple[int, int]] = field(default_factory=dict, compare=False)

    @property
    def input(self) -> Path:
        return self.root / "input"

    @property
    def snapshot(self) -> Path:
        return self.root / "workspace"

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def record(self) -> Path:
        """The runner's own verdict (the ``--json`` payload), kept beside the output."""
        return self.root / "run.json"

    def agent_log(self, stream: str) -> Path:
        return self.root / f"agent.{stream}.log"

    def scratch(self) -> tuple[Path, ...]:
        """What is deleted after the run unless the user keeps the snapshot."""
        return (self.snapshot, self.state, self.home, self.tmp)

    def write_record(self, text: str) -> None:
        """Write ``run.json`` through the held run dir: a link planted there is replaced."""
        if self.held is None:
            raise OSError(f"the run directory {self.root} is not held open")
        self.held.write_atomic(self.record.name, text)

    def seal(self) -> None:
        """Before the launch: create the agent's log files, then make the run dir itself
        read-only (0500), so an engine cannot plant a name beside the snapshot without first
        chmodding it back (modes do not bind root; the held descriptor still protects then)."""
        if self.held is None:
            return
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        for stream in ("stdout", "stderr"):
            os.close(os.open(self.agent_log(stream).name, flags, 0o600, dir_fd=self.held.fd))
        os.fchmod(self.held.fd, 0o500)

    def unseal(self) -> None:
        """After the agent exited: the runner writes its record and removes scratch dirs."""
        if self.held is not None:
            os.fchmod(self.held.fd, 0o700)

    def remove_scratch(self, path: Path) -> None:
        """Delete one scratch dir, only if it is still the one made here (a link or a dir
        moved into its place by the engine is unlinked or left alone, never followed)."""
        if self.held is None or path.parent != self.root:
            return
        st = self.held.lstat(path.name)
        if st is None:
            return
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(path.name, dir_fd=self.held.fd)
            return
        expected = self.identities.get(path.name)
        if expected is not None and expected != (st.st_dev, st.st_ino):
            return  # not ours: the engine moved something here; better kept than deleted
        _make_owner_writable(self.held, path.name)
        shutil.rmtree(path.name, dir_fd=self.held.fd, ignore_errors=True)

    def discard(self) -> None:
        """Remove the whole run (a refused run leaves nothing behind), then the dirs above it
        that this run created, if they are empty."""
        if self.held is not None:
            with contextlib.suppress(OSError):
                self.unseal()
            if not self.held.replaced():
                _rmtree(self.root)
            self.held.close()
        for path in reversed(self.created):
            with contextlib.suppress(OSError):
                path.rmdir()

    def close(self) -> None:
        if self.held is not None:
            self.held.close()


def register(layout: RunLayout, name: str) -> None:
    """Remember the identity of a sub-dir made after the layout (the snapshot)."""
    if layout.held is not None:
        st = layout.held.lstat(name)
        if st is not None and isinstance(layout.identities, dict):
            layout.identities[name] = (st.st_dev, st.st_ino)


def new_layout(runs_dir: Path, output: Path | None, workspace: Path | None = None) -> RunLayout:
    """Create a fresh, private run directory; ``output`` None puts the output inside it.

    A relative ``runs_dir`` is taken from the caller's working directory, now: the agent
    starts elsewhere and would resolve it again. ``..`` and links are resolved, so the
    paths holon hands on are the ones the engine sees (a cassette's paths must match)."""
    runs_dir = runs_dir.expanduser().resolve()
    if workspace is not None and _inside(runs_dir, workspace):
        raise InputError(
            f"the runs directory {runs_dir} is inside the workspace {workspace}; the run's "
            "bookkeeping and snapshot would land in the tree holon must leave alone",
            hint="pass --runs-dir DIR (or set HOLON_RUNS_DIR) outside the workspace",
        )
    run_id = time.strftime("%Y%m%dT%H%M%S")
    created: list[Path] = []
    root: Path | None = None
    try:
        created = make_parents(runs_dir)
        while True:
            root = runs_dir / f"run-{run_id}-{secrets.token_hex(3)}"
            try:
                root.mkdir(mode=0o700)
                break
            except FileExistsError:
                continue
        record_runner(root)  # pid and start time: `holon runs` tells live runs from orphans
        held = HeldDir.open(root)
        identities = {}
        for sub in SUBDIRS:
            os.mkdir(sub, 0o700, dir_fd=held.fd)
            st = os.stat(sub, dir_fd=held.fd, follow_symlinks=False)
            identities[sub] = (st.st_dev, st.st_ino)
    except OSError as exc:
        if root is not None:
            _rmtree(root)
        for path in reversed(created):
            with contextlib.suppress(OSError):
                path.rmdir()
        raise InputError(
            f"cannot create a run directory under {runs_dir}: {exc.strerror or exc}",
            hint="pass --runs-dir DIR (or set HOLON_RUNS_DIR) to a writable directory",
        ) from exc
    out = output if output is not None else root / "output"
    return RunLayout(run_id, root, out, held, tuple(created), identities)


def make_parents(path: Path) -> list[Path]:
    """``mkdir -p path``, returning the directories it created (outermost first)."""
    missing: list[Path] = []
    current = path
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    created: list[Path] = []
    try:
        for directory in reversed(missing):
            directory.mkdir()
            created.append(directory)
    except OSError:
        for directory in reversed(created):
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise
    return created


def _inside(path: Path, root: Path) -> bool:
    resolved = path.resolve()
    return resolved == root or resolved.is_relative_to(root)


def _make_owner_writable(held: HeldDir, name: str) -> None:
    open_up(Path(f"/proc/self/fd/{held.fd}") / name)


def _rmtree(path: Path) -> None:
    def retry(func: object, failed: str, _exc: object) -> None:
        parent = Path(failed).parent
        with contextlib.suppress(OSError):
            parent.chmod(parent.stat().st_mode | stat.S_IRWXU)
            if callable(func):
                func(failed)

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, onerror=retry)
