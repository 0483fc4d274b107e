"""A tiny ACP agent for the tests, on the official SDK's agent side: ``scripted_agent.py WHAT``.

It calls no model: each behaviour is a fixed turn, so the tests see exactly what the bridge and
the parser make of it. Behaviours:

``write-and-run``         writes hello.txt, runs ``cat hello.txt``, a plan, usage, end_turn
``ask-permission``        asks permission before writing; writes only if allowed
``unknown-request``       asks the client for a method no client serves, fails the prompt with
                          an error when told "method not found"
``never-answer``          never answers the prompt, ignores session/cancel and SIGTERM
``failed-tool-end-turn``  its only command exits 2, then it claims end_turn
``empty-end-turn``        prints a model error on stderr and answers end_turn with nothing
``crash``                 exits 3 in the middle of the prompt
``sleep-tool``            starts ``sleep 300`` as a tool and waits for it (ignores cancel)
``show-env``              runs ``printenv MY_AGENT_TOKEN`` and ``printenv NOT_PASSED``
``meta-error-end-turn``   reports a model error it will not retry in ``_meta`` (as codex-acp
                          does), shows it as text and answers end_turn
``echo``                  answers with the prompt's text (offers no session/load)
``echo-load``             the same, offers session/load and loads any session it made, after
                          replaying an earlier message as session/load does
``echo-load-fails``       the same, offers session/load and fails it
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from acp import (
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    plan_entry,
    run_agent,
    start_tool_call,
    update_agent_message_text,
    update_plan,
    update_tool_call,
)
from acp.schema import (
    AgentCapabilities,
    Implementation,
    PermissionOption,
    SessionInfoUpdate,
    UsageUpdate,
)

if TYPE_CHECKING:
    from acp import Agent


class ScriptedAgent:
    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.cwd = Path.cwd()
        self.conn: Any = None
        self.prompt_text = ""

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=protocol_version,
            agent_capabilities=AgentCapabilities(load_session=self.behaviour.startswith("echo-")),
            agent_info=Implementation(name="scripted-agent", version="0.0.1"),
        )

    async def new_session(self, cwd: str, **_: Any) -> NewSessionResponse:
        self.cwd = Path(cwd)
        return NewSessionResponse(session_id=f"scripted-{uuid.uuid4().hex[:8]}")

    async def load_session(self, cwd: str, session_id: str, **_: Any) -> LoadSessionResponse:
        if self.behaviour == "echo-load-fails" or not session_id.startswith("scripted-"):
            raise RequestError(-32603, f"session {session_id} not found")
        self.cwd = Path(cwd)
        await self.say(session_id, "REPLAYED-EARLIER-MESSAGE")
        return LoadSessionResponse()

    async def cancel(self, session_id: str, **_: Any) -> None:
        """Ignored on purpose by the behaviours that test a stuck agent."""

    async def say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(session_id, update_agent_message_text(text))

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> PromptResponse:
        self.prompt_text = "\n".join(str(getattr(block, "text", "")) for block in prompt)
        name = "echo" if self.behaviour.startswith("echo") else self.behaviour
        turn = getattr(self, "turn_" + name.replace("-", "_"))
        stop: str = await turn(session_id)
        return PromptResponse(stop_reason=stop)

    async def run_command(self, session_id: str, call_id: str, command: str) -> int:
        start = start_tool_call(
            call_id, command, kind="execute", status="in_progress", raw_input={"command": command}
        )
        await self.conn.session_update(session_id, start)
        done = subprocess.run(
            command, check=False, shell=True, cwd=self.cwd, capture_output=True, text=True
        )
        raw = {"exit_code": done.returncode, "output": done.stdout + done.stderr}
        update = update_tool_call(call_id, status="completed", raw_output=raw)
        await self.conn.session_update(session_id, update)
        return done.returncode

    async def write(self, session_id: str, name: str, text: str) -> None:
        start = start_tool_call(
            "write-1",
            f"Write {name}",
            kind="edit",
            status="pending",
            raw_input={"path": name, "content": text},
        )
        await self.conn.session_update(session_id, start)
        (self.cwd / name).write_text(text, encoding="utf-8")
        await self.conn.session_update(session_id, update_tool_call("write-1", status="completed"))

    async def turn_write_and_run(self, session_id: str) -> str:
        await self.conn.session_update(session_id, update_plan([plan_entry("write hello.txt")]))
        await self.say(session_id, "I will create hello.txt. ")
        await self.write(session_id, "hello.txt", "hello from holon\n")
        await self.run_command(session_id, "run-1", "cat hello.txt")
        usage = UsageUpdate(session_update="usage_update", used=1234, size=200000)
        await self.conn.session_update(session_id, usage)
        await self.say(session_id, "Created hello.txt and checked its content.")
        return "end_turn"

    async def turn_ask_permission(self, session_id: str) -> str:
        options = [
            PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
            PermissionOption(option_id="no", name="Reject", kind="reject_once"),
        ]
        call = update_tool_call("write-1", title="Write hello.txt", kind="edit", status="pending")
        answer = await self.conn.request_permission(
            session_id=session_id, tool_call=call, options=options
        )
        if getattr(answer.outcome, "option_id", None) == "yes":
            await self.write(session_id, "hello.txt", "allowed\n")
            await self.say(session_id, "Wrote hello.txt with permission.")
        else:
            update = update_tool_call("write-1", status="failed")
            await self.conn.session_update(session_id, update)
            await self.say(session_id, "Permission refused; wrote nothing.")
        return "end_turn"

    async def turn_unknown_request(self, session_id: str) -> str:
        try:
            await self.conn._conn.send_request("holon/test_unknown", {"sessionId": session_id})
        except RequestError as exc:
            raise RequestError(
                -32603, f"the client cannot serve holon/test_unknown ({exc})"
            ) from None
        return "end_turn"

    async def turn_never_answer(self, session_id: str) -> str:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        await self.say(session_id, "Thinking...")
        await asyncio.Event().wait()
        return "end_turn"

    async def turn_failed_tool_end_turn(self, session_id: str) -> str:
        await self.run_command(session_id, "run-1", "exit 2")
        await self.say(session_id, "All done, everything works.")
        return "end_turn"

    async def turn_empty_end_turn(self, session_id: str) -> str:
        print("model request failed: HTTP 500 Internal Server Error", file=sys.stderr, flush=True)
        return "end_turn"

    async def turn_crash(self, session_id: str) -> str:
        await self.say(session_id, "About to crash.")
        sys.stdout.flush()
        import os

        os._exit(3)

    async def turn_sleep_tool(self, session_id: str) -> str:
        start = start_tool_call(
            "run-1",
            "sleep 300",
            kind="execute",
            status="in_progress",
            raw_input={"command": "sleep 300"},
        )
        await self.conn.session_update(session_id, start)
        proc = await asyncio.create_subprocess_exec("sleep", "300", cwd=self.cwd)
        await proc.wait()
        return "end_turn"

    async def turn_show_env(self, session_id: str) -> str:
        await self.run_command(session_id, "run-1", "printenv MY_AGENT_TOKEN")
        await self.run_command(session_id, "run-2", "printenv NOT_PASSED || echo absent")
        await self.say(session_id, "Shown.")
        return "end_turn"

    async def turn_echo(self, session_id: str) -> str:
        await self.say(session_id, f"Prompt was: {self.prompt_text}")
        return "end_turn"

    async def turn_meta_error_end_turn(self, session_id: str) -> str:
        error = {"message": "stream failed", "willRetry": False}
        error["codexErrorInfo"] = {"responseStreamFailed": {"httpStatusCode": 500}}
        update = SessionInfoUpdate(
            session_update="session_info_update", field_meta={"agent": {"error": error}}
        )
        await self.conn.session_update(session_id, update)
        await self.say(session_id, "stream failed")
        return "end_turn"


if __name__ == "__main__":
    asyncio.run(run_agent(cast("Agent", ScriptedAgent(sys.argv[1]))))
