"""Test kit for holon and adapter authors: build a task on disk, run the real ``holon-agent``.

``holon_core.testing.plugin`` (a pytest11 plugin) exposes fixtures around these helpers.
"""

from __future__ import annotations

from holon_core.testing.agent_run import (
    AgentResult,
    finish_agent,
    processes_under,
    run_agent,
    start_agent,
)
from holon_core.testing.task import Task, make_task, snapshot_tree

__all__ = [
    "AgentResult",
    "Task",
    "finish_agent",
    "make_task",
    "processes_under",
    "run_agent",
    "snapshot_tree",
    "start_agent",
]
