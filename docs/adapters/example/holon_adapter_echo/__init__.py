"""holon-adapter-echo: the example adapter of docs/writing-an-adapter.md."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from holon_core import (
    Capabilities,
    EngineAdapter,
    EngineReport,
    EventParser,
    JsonLinesParser,
    LaunchPlan,
    RunContext,
    base_env,
    hookimpl,
)
from holon_core.checks import Check
from holon_core.events import Event


class EchoParser(JsonLinesParser):
    """Maps the engine's events onto holon's and fills the report the outcome rule reads."""

    def handle(self, raw: dict[str, Any]) -> list[Event]:
        report = self.report
        kind = raw.get("type")
        if kind == "start":
            report.session_id, report.model = raw.get("session"), raw.get("model")
            return [Event(type="session", data={"session_id": report.session_id})]
        if kind == "tool":
            report.tool_calls += 1
            if not raw.get("ok"):
                report.tool_failures += 1
            return [
                Event(type="tool_call", tool=str(raw.get("name")), data={"path": raw.get("path")})
            ]
        if kind == "done":  # the terminal event: without it a run is never a success
            report.terminal_seen = True
            report.is_error = False
            report.final_text = str(raw.get("text", ""))
            report.usage = {"input_tokens": raw["tokens_in"], "output_tokens": raw["tokens_out"]}
            return [Event(type="result", status="ok", text=report.final_text)]
        return []


class EchoAdapter(EngineAdapter):
    name = "echo"
    distribution = "holon-adapter-echo"
    capabilities = Capabilities(model_selection=True, session_id=True, usage_reporting=True)
    credential_env = ("ECHO_API_KEY",)

    def preflight(self, env: Mapping[str, str]) -> list[Check]:
        # The engine is a Python module here; a real adapter keeps the base class's binary
        # and version checks (set binary_name) and adds its own.
        engine = Check(name="engine_binary", ok=True, detail=f"{sys.executable} (echo)")
        return [engine, *super().preflight(env)]

    def launch(self, run: RunContext) -> LaunchPlan:
        env = base_env(run)  # run-local HOME/TMPDIR, PATH, and only credential_env passed in
        env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
        if run.model:
            env["ECHO_MODEL"] = run.model
        argv = [sys.executable, "-m", "holon_adapter_echo.engine"]
        prompt = f"{run.prompt.user}\n\n{run.prompt.system}".encode()
        return LaunchPlan(argv=argv, env=env, cwd=run.workspace, stdin=prompt)

    def event_parser(self, run: RunContext) -> EventParser:
        return EchoParser()

    def manifest_metadata(self, run: RunContext, report: EngineReport) -> dict[str, Any]:
        return {"echo": {"model": report.model}}


@hookimpl
def holon_register_engines(register: Callable[[EngineAdapter], None]) -> None:
    register(EchoAdapter())
