"""A run the suite has to stop is ended the way a user would end it, and recorded.

The harness sends holon-agent SIGTERM (SIGKILL only after a grace): the agent then stops its
engine and writes a cancelled manifest, and nothing is left running.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from holon_conformance.suite import harness

from holon_core.hooks.manager import load_plugins

#: An engine that never finishes: the suite's run timeout has to end it.
PLUGIN = """
from holon_core.builtin.replay import ReplayEngine
from holon_core.hooks.specs import hookimpl


class Hangs(ReplayEngine):
    name = "test-hangs"
    distribution = "test"

    def launch(self, run):
        plan = super().launch(run)
        plan.argv = ["sleep", "600"]
        return plan


@hookimpl
def holon_register_engines(register):
    register(Hangs())
"""


def test_a_hanging_run_is_stopped_with_sigterm_and_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "hangs_plugin.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("HOLON_PLUGINS", "hangs_plugin")
    # Long enough for holon-agent to be up (its signal handlers come first), far below the
    # engine's 600 s: the run cannot end by itself.
    monkeypatch.setattr(harness, "RUN_TIMEOUT", 10.0)
    (tmp_path / "work").mkdir()
    target = harness.Target("test-hangs", load_plugins(), tmp_path / "work")
    run = target.run("success")
    assert run.timed_out and run.stopped
    assert run.manifest is not None, run.describe()
    assert (run.exit_code, run.manifest["outcome"]) == (1, "failure"), run.describe()
    assert run.manifest["metadata"]["reason"] == "cancelled"
    assert not run.leftovers
