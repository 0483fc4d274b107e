"""Deliberately broken adapters: the suite's self-test (load with ``HOLON_PLUGINS``).

``HOLON_PLUGINS=holon_conformance.suite.broken`` registers them next to the real ones; each
is the built-in replay engine with exactly one contract violation, and :data:`TARGETS` says
which requirement the suite must report FAIL for it. They are never loaded by default.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.builtin.replay import ReplayEngine, ReplayParser
from holon_core.events import Event
from holon_core.hookspecs import hookimpl

if TYPE_CHECKING:
    from holon_core.adapter import (
        EngineAdapter,
        EventParser,
        LaunchPlan,
        RunContext,
    )

#: Broken adapter -> the requirement the suite must fail it on.
TARGETS = {
    "broken-writes-input": "RFC2-IN-001",
    "broken-writes-home": "RFC2-OUT-003",
    "broken-exit0-on-failure": "RFC2-EXIT-002",
    "broken-leaves-daemon": "HOLON-PROC-001",
    "broken-needs-tty": "RFC2-HEAD-001",
    "broken-prompts": "RFC2-HEAD-002",
    "broken-no-manifest": "RFC2-OUT-004",
    "broken-dirties-workspace": "HOLON-PATCH-001",
    "broken-reads-user-env": "HOLON-HERM-001",
}


class _Broken(ReplayEngine):
    distribution = "holon-conformance"


class WritesInput(_Broken):
    """Leaves a scratch note in the read-only input dir."""

    name = "broken-writes-input"

    def launch(self, run: RunContext) -> LaunchPlan:
        (run.input_dir / "context" / "scratch.md").write_text("notes\n", encoding="utf-8")
        return super().launch(run)


class WritesHome(_Broken):
    """Caches something in the operator's HOME instead of the run-local one."""

    name = "broken-writes-home"

    def launch(self, run: RunContext) -> LaunchPlan:
        home = Path(run.env.get("HOME", "~")).expanduser()
        (home / ".broken-engine-cache").write_text("{}\n", encoding="utf-8")
        return super().launch(run)


class _SuccessParser(ReplayParser):
    def feed(self, line: str) -> list[Event]:
        try:
            raw = json.loads(line)
        except ValueError:
            raw = None
        if isinstance(raw, dict) and raw.get("type") == "result":
            raw["outcome"] = "success"  # the bug: a failed run read as a success
            line = json.dumps(raw)
        return super().feed(line)


class Exit0OnFailure(_Broken):
    """Its parser calls every finished run a success, so failures exit 0."""

    name = "broken-exit0-on-failure"

    def event_parser(self, run: RunContext) -> EventParser:
        return _SuccessParser()


class LeavesDaemon(_Broken):
    """Starts a helper daemon from the agent process, outside the supervisor, and forgets it."""

    name = "broken-leaves-daemon"

    def launch(self, run: RunContext) -> LaunchPlan:
        subprocess.Popen(
            ["sleep", "300"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        return super().launch(run)


class NeedsTty(_Broken):
    """Its engine refuses to start without a terminal on stdin."""

    name = "broken-needs-tty"

    def launch(self, run: RunContext) -> LaunchPlan:
        plan = super().launch(run)
        guard = '[ -t 0 ] || { echo "error: this engine needs a terminal" >&2; exit 1; }'
        plan.argv = ["sh", "-c", f'{guard}; exec "$@"', "sh", *plan.argv]
        return plan


class Prompts(_Broken):
    """Asks an onboarding question whenever it finds a terminal."""

    name = "broken-prompts"

    def launch(self, run: RunContext) -> LaunchPlan:
        if sys.stdin.isatty():
            sys.stdout.write("Do you trust the files in this folder? [y/N] ")
            sys.stdout.flush()
            sys.stdin.readline()
        return super().launch(run)


class NoManifest(_Broken):
    """Ends the agent process from inside the adapter (the reference's silent exit 0), so no
    manifest.json is ever written. holon-agent survives an adapter that merely raises."""

    name = "broken-no-manifest"

    def launch(self, run: RunContext) -> LaunchPlan:
        sys.stdout.flush()
        os._exit(0)


class DirtiesWorkspace(_Broken):
    """Drops its instruction file into the workspace and leaves it there: it ends up in the
    patch, so applying the patch would commit holon's prompt to the user's repository."""

    name = "broken-dirties-workspace"

    def launch(self, run: RunContext) -> LaunchPlan:
        (run.workspace / "AGENTS.md").write_text(run.prompt.system, encoding="utf-8")
        return super().launch(run)


class ReadsUserEnv(_Broken):
    """Loads the nearest ``.env`` above the workspace into its engine's environment, as an
    engine that walks up the directory tree for ``.env`` files does."""

    name = "broken-reads-user-env"

    def launch(self, run: RunContext) -> LaunchPlan:
        plan = super().launch(run)
        found = next((d / ".env" for d in run.workspace.parents if (d / ".env").is_file()), None)
        if found is not None:
            for line in found.read_text(encoding="utf-8").splitlines():
                name, sep, value = line.partition("=")
                if sep and name.strip():
                    plan.env[name.strip()] = value.strip()
        return plan


@hookimpl
def holon_register_engines(register: Callable[[EngineAdapter], None]) -> None:
    for cls in (
        WritesInput,
        WritesHome,
        Exit0OnFailure,
        LeavesDaemon,
        NeedsTty,
        Prompts,
        NoManifest,
        DirtiesWorkspace,
        ReadsUserEnv,
    ):
        register(cls())
