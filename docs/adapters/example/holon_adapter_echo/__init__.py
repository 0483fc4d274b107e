"""holon-adapter-echo: the example adapter of docs/writing-an-adapter.md."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from holon_core import (
    Capabilities,
    Check,
    EngineAdapter,
    EngineReport,
    Event,
    EventParser,
    JsonLinesParser,
    LaunchPlan,
    RunContext,
    ToolOutcome,
    base_env,
    command_ok,
    hookimpl,
)


class EchoParser(JsonLinesParser):
    """Maps the engine's events onto holon's and fills the report the outcome rule reads."""

    def handle(self, raw: dict[str, Any]) -> list[Event]:
        report = self.report
        kind = raw.get("type")
        if kind == "start":
            report.session_id, report.model = raw.get("session"), raw.get("model")
            return [Event(type="session", data={"session_id": report.session_id})]
        if kind == "text":  # assistant text: serve mode streams it as the answer's output_text
            return [Event(type="message", text=str(raw.get("text", "")))]
        if kind == "tool":  # one finished tool call: the call and its result
            report.tool_calls += 1
            tool, args, ok = str(raw.get("name")), raw.get("input") or {}, bool(raw.get("ok"))
            command = args.get("command") if tool == "Bash" else None
            if command is not None and raw.get("code") is not None:  # holon's rule for shells
                ok = command_ok(str(command), int(raw["code"]))
            result = ToolOutcome(str(raw.get("id")), tool, ok, command, raw.get("code"))
            report.record_tool_result(result)  # the outcome rule reads failed tools
            return [
                Event(type="tool_call", tool=tool, tool_id=result.tool_id, data=args),
                Event(type="tool_result", tool_id=result.tool_id, status="ok" if ok else "error"),
            ]
        if kind == "done":  # the terminal event: without it a run is never a success
            report.terminal_seen = True
            report.is_error = False
            report.final_text = str(raw.get("text", ""))
            report.usage = {"input_tokens": raw["tokens_in"], "output_tokens": raw["tokens_out"]}
            return [Event(type="result", status="ok", text=report.final_text)]
        if kind == "error":  # also terminal: the model call failed
            report.terminal_seen = True
            report.is_error = True
            report.reason = "auth_failed" if raw.get("status") in (401, 403) else "engine_error"
            report.error = f"model API error {raw.get('status')}: {raw.get('message')}"
            return [Event(type="result", status="error", text=report.error)]
        return []


class EchoAdapter(EngineAdapter):
    name = "echo"
    distribution = "holon-adapter-echo"
    capabilities = Capabilities(model_selection=True, session_id=True, usage_reporting=True)
    credential_env = ("ECHO_API_KEY",)
    # The engine speaks the Anthropic Messages API to ECHO_BASE_URL: the conformance suite
    # points it at its scripted model server through endpoint_env().
    model_api = "anthropic-messages"
    passthrough_env = ("ECHO_BASE_URL",)

    def preflight(self, env: Mapping[str, str]) -> list[Check]:
        # The engine is a Python module here; a real adapter keeps the base class's binary
        # and version checks (set binary_name) and adds its own.
        engine = Check(name="engine_binary", ok=True, detail=f"{sys.executable} (echo)")
        return [engine, *super().preflight(env)]

    def endpoint_env(self, base_url: str) -> dict[str, str]:
        return {"ECHO_BASE_URL": base_url}

    def launch(self, run: RunContext) -> LaunchPlan:
        env = base_env(run)  # run-local HOME/TMPDIR, PATH, and only credential_env passed in
        env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # write nothing outside the workspace
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
