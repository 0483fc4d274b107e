"""Where a ``holon run`` lives on disk: one private ``run-<id>-<token>`` directory per run.

The run directory sits outside the workspace (under ``$HOLON_RUNS_DIR``, else
``$XDG_STATE_HOME/holon/runs``, else ``~/.local/state/holon/runs``) so the snapshot of the
workspace never contains holon's own bookkeeping and the user's tree is never written to.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from holon_core.errors import InputError
from holon_core.runner.runs import record_runner


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


def new_layout(runs_dir: Path, output: Path | None) -> RunLayout:
    """Create a fresh, private run directory; ``output`` None puts the output inside it."""
    run_id = time.strftime("%Y%m%dT%H%M%S")
    try:
        runs_dir.mkdir(parents=True, exist_ok=True)
        while True:
            root = runs_dir / f"run-{run_id}-{secrets.token_hex(3)}"
            try:
                root.mkdir(mode=0o700)
                break
            except FileExistsError:
                continue
        record_runner(root)  # pid and start time: `holon runs` tells live runs from orphans
        for sub in ("input", "state", "home", "tmp"):
            (root / sub).mkdir()
    except OSError as exc:
        raise InputError(
            f"cannot create a run directory under {runs_dir}: {exc.strerror or exc}",
            hint="pass --runs-dir DIR (or set HOLON_RUNS_DIR) to a writable directory",
        ) from exc
    return RunLayout(run_id, root, output if output is not None else root / "output")
