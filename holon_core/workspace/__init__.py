"""The workspace layer: baseline, diff and snapshot, none of which touch the user's ``.git``."""

from __future__ import annotations

from holon_core.workspace.baseline import Baseline, borrowed_stores, record_baseline
from holon_core.workspace.diff import DiffResult, nested_repositories, write_diff
from holon_core.workspace.git_state import git_dir_change
from holon_core.workspace.snapshot import Snapshot, make_snapshot, remove_snapshot

__all__ = [
    "Baseline",
    "DiffResult",
    "Snapshot",
    "borrowed_stores",
    "git_dir_change",
    "make_snapshot",
    "nested_repositories",
    "record_baseline",
    "remove_snapshot",
    "write_diff",
]
