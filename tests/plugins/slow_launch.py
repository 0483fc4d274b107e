"""An engine whose launch() blocks before any engine process exists (HOLON_PLUGINS).

Like an adapter that installs or warms something up in launch(): ``SLOW_LAUNCH=python``
sleeps in Python, ``SLOW_LAUNCH=child`` waits for a shell that started a background child
of its own (``sleep 318``, a grandchild of the agent) and became ``sleep 319``. Either way it
first writes ``SLOW_LAUNCH_MARKER``, so a test knows launch() is under way.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from holon_core import hookimpl
from holon_core.builtin.replay import ReplayEngine
from holon_core.engine.adapter import EngineAdapter, LaunchPlan, RunContext


class SlowLaunch(ReplayEngine):
    name = "slow-launch"

    def launch(self, run: RunContext) -> LaunchPlan:
        marker = Path(run.env["SLOW_LAUNCH_MARKER"])
        if run.env.get("SLOW_LAUNCH") == "child":
            script = 'sleep 318 & echo started > "$1"; exec sleep 319'
            subprocess.run(["sh", "-c", script, "sh", str(marker)], check=False)
        else:
            marker.write_text("started\n")
            time.sleep(300)
        return super().launch(run)


@hookimpl
def holon_register_engines(register: Callable[[EngineAdapter], None]) -> None:
    register(SlowLaunch())
