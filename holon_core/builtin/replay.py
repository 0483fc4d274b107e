"""The built-in ``replay`` engine: a deterministic, offline engine registered like any adapter.

Its script comes from ``HOLON_REPLAY_SCRIPT``, else ``context/replay.yaml`` in the input
directory. Like every adapter it passes only named variables into the engine: list extra
ones in ``HOLON_REPLAY_PASS_ENV`` (comma-separated). It is the embedded default of
``make demo`` and drives the core's own tests.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from holon_core.engine.adapter import (
    Capabilities,
    EngineAdapter,
    EventParser,
    JsonLinesParser,
    LaunchPlan,
    RunContext,
    base_env,
)
from holon_core.engine.checks import Check
from holon_core.engine.events import Event, ToolOutcome, command_ok
from holon_core.hooks.specs import hookimpl

if TYPE_CHECKING:
    from holon_core.engine.adapter import EngineReport


def replay_script_path(input_dir: Path, env: Mapping[str, str]) -> Path:
    override = env.get("HOLON_REPLAY_SCRIPT")
    return Path(override) if override else input_dir / "context" / "replay.yaml"


class ReplayParser(JsonLinesParser):
    def __init__(self) -> None:
        super().__init__()
        #: tool id -> (tool name, shell command) of each call, to judge its result.
        self._calls: dict[str, tuple[str | None, str | None]] = {}

    def handle(self, raw: dict[str, Any]) -> list[Event]:
        kind = raw.get("type")
        report = self.report
        if kind == "init":
            report.session_id = raw.get("session_id")
            report.model = raw.get("model")
            report.skills_seen = set(raw.get("skills") or [])
            return [Event(type="session", data={"session_id": report.session_id})]
        if kind == "say":
            return [Event(type="message", text=raw.get("text", ""))]
        if kind == "tool":
            report.tool_calls += 1
            detail = {k: v for k, v in raw.items() if k not in ("type", "id", "name")}
            tool_id = str(raw.get("id"))
            self._calls[tool_id] = (_text(raw.get("name")), _text(raw.get("command")))
            return [
                Event(type="tool_call", tool=raw.get("name"), tool_id=raw.get("id"), data=detail)
            ]
        if kind == "tool_result":
            tool_id = str(raw.get("id"))
            name, command = self._calls.get(tool_id, (None, None))
            exit_code = raw.get("exit_code")
            if command is not None and type(exit_code) is int:  # not a bool
                ok = command_ok(command, exit_code)  # the rule every adapter applies
            else:
                ok = raw.get("status") == "ok"
            code = exit_code if type(exit_code) is int else None
            report.record_tool_result(ToolOutcome(tool_id, name, ok, command, code))
            data: dict[str, Any] = {k: raw[k] for k in ("exit_code", "output") if k in raw}
            status: Literal["ok", "error"] = "ok" if ok else "error"
            return [Event(type="tool_result", tool_id=raw.get("id"), status=status, data=data)]
        if kind == "result":
            report.terminal_seen = True
            outcome = raw.get("outcome", "success")
            report.final_text = raw.get("text") or ""
            report.turns = raw.get("turns")
            # It called no model: it reports what it spent, 0, as an engine reports its cost
            # (a budget holon batch --max-cost sets is kept, and a job's total adds up).
            report.cost_usd, report.cost_source = 0.0, "reported"
            report.is_error = outcome == "failure"
            if outcome in ("success", "failure", "needs_human"):
                report.declared_outcome = outcome
            if raw.get("error"):
                report.error = str(raw["error"])
                report.reason = "engine_error"
            return [Event(type="result", status="error" if report.is_error else "ok", data=raw)]
        return []


class ReplayEngine(EngineAdapter):
    name = "replay"
    distribution = "holon-core"
    capabilities = Capabilities(session_id=True, needs_credentials=False)
    binary_name = None
    calls_models = False  # its "model" is the script: a cost budget is kept at 0

    def preflight(self, env: Mapping[str, str]) -> list[Check]:
        return [Check(name="engine_binary", ok=True, detail=f"{sys.executable} (replay)")]

    def launch(self, run: RunContext) -> LaunchPlan:
        prompt_file = run.run_dir / "prompt.md"
        prompt_file.write_text(f"{run.prompt.system}\n\n{run.prompt.user}", encoding="utf-8")
        script = _in_reach(replay_script_path(run.input_dir, run.env), run)
        passed = tuple(n.strip() for n in run.env.get("HOLON_REPLAY_PASS_ENV", "").split(","))
        env = base_env(run, tuple(n for n in passed if n))
        env["HOLON_OUTPUT_DIR"] = str(run.output_dir)
        env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
        argv = [
            sys.executable,
            "-m",
            "holon_core.builtin.replay_engine",
            str(script),
            str(prompt_file),
        ]
        return LaunchPlan(argv=argv, env=env, cwd=run.workspace)

    def event_parser(self, run: RunContext) -> EventParser:
        return ReplayParser()

    def manifest_metadata(self, run: RunContext, report: EngineReport) -> dict[str, Any]:
        return {"replay_script": str(replay_script_path(run.input_dir, run.env))}


@hookimpl
def holon_register_engines(register: Callable[[EngineAdapter], None]) -> None:
    register(ReplayEngine())


def _in_reach(script: Path, run: RunContext) -> Path:
    """A ``HOLON_REPLAY_SCRIPT`` from anywhere, copied into the run dir: the engine's room
    mounts the run's own dirs, not the place a test or a user keeps the script."""
    if script.is_relative_to(run.input_dir) or not script.is_file():
        return script
    copy = run.run_dir / "replay-script.yaml"
    shutil.copyfile(script, copy)
    return copy


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
