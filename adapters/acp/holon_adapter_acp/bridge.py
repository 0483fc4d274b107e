"""The engine holon launches for an ACP agent: an ACP client that prints one JSON line per event.

holon's supervisor starts one process and reads its stdout; ACP is a two-way JSON-RPC
conversation over the agent's stdio. This bridge sits between them: it starts the agent as
its child (same session and process group, so the supervisor's teardown reaches it), runs
``initialize`` (no ``fs`` or ``terminal`` capability), ``authenticate`` when asked to,
``session/new`` with the snapshot as ``cwd`` and ``session/prompt`` with the prompt read from
stdin, answers the agent's requests (``client.py``) and prints what happens (``wire.py``).

SIGTERM (the run's timeout, a cancel, holon stopping) sends ``session/cancel``, gives the
agent ``--cancel-grace`` seconds to answer the prompt ``cancelled``, then stops it. Exit
status: 0 when the prompt was answered, 1 on an error, 143 when stopped, 127 when the agent
could not be started.

With ``--resume ID`` (serve mode) the bridge continues that agent session instead of
``session/new`` (``resume.py``), and sends the ``--fallback`` transcript before the prompt in
a new session when the agent cannot.

Usage: ``python -m holon_adapter_acp.bridge --cwd DIR [--auth ID] [--mode ID]
[--resume ID --fallback FILE] -- AGENT ARGS...``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from holon_adapter_acp.policy import policy_from
from holon_adapter_acp.resume import continue_method, continue_session, with_transcript
from holon_adapter_acp.wire import LineWriter

if TYPE_CHECKING:
    from asyncio.subprocess import Process

    from acp import Client
    from acp.client.connection import ClientSideConnection

    from holon_adapter_acp.client import HeadlessClient

#: One ACP message may carry a whole file or a command's output.
LINE_LIMIT = 64 * 1024 * 1024
EXIT_STOPPED = 128 + signal.SIGTERM


@dataclass(frozen=True, slots=True)
class BridgeConfig:
    command: list[str]
    cwd: str
    auth: str | None = None
    mode: str | None = None
    cancel_grace: float = 2.0
    #: Send the prompt as an embedded resource, not text (see ``prompt_blocks``).
    prompt_resource: bool = False
    #: The agent's session to continue (serve mode), and the transcript sent before the
    #: prompt in a new session when the agent cannot continue it (``resume.py``).
    resume: str | None = None
    fallback: str | None = None


def parse_args(argv: list[str]) -> BridgeConfig:
    parser = argparse.ArgumentParser(prog="holon_adapter_acp.bridge")
    parser.add_argument("--cwd", required=True, help="the session's cwd (absolute)")
    parser.add_argument("--auth", help="authenticate with this method id first")
    parser.add_argument("--mode", help="session/set_mode to this mode id after session/new")
    parser.add_argument("--cancel-grace", type=float, default=2.0)
    parser.add_argument("--prompt-resource", action="store_true")
    parser.add_argument("--resume", help="continue this agent session (session/resume or load)")
    parser.add_argument("--fallback", help="file: the transcript to send if it cannot")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no agent command after --")
    cwd = str(Path(args.cwd).absolute())
    return BridgeConfig(
        command,
        cwd,
        args.auth,
        args.mode,
        args.cancel_grace,
        args.prompt_resource,
        args.resume,
        args.fallback,
    )


class _ShortErrors(logging.Formatter):
    """The SDK logs a bad line with a traceback; one line on stderr says as much."""

    def formatException(self, ei: Any) -> str:
        return f"  ({ei[1]!r})" if ei and ei[1] is not None else ""


def prompt_blocks(prompt: str, *, as_resource: bool) -> list[Any]:
    """The prompt's content: one text block, or one embedded text resource. claude-agent-acp
    asks the model for a session title from a prompt's text blocks, beside the first turn;
    ``claude -p`` makes no such call, and a budget of one model call would go to it."""
    from acp import embedded_text_resource, resource_block, text_block

    if not as_resource:
        return [text_block(prompt)]
    task = embedded_text_resource("holon://task.md", prompt, mime_type="text/markdown")
    return [resource_block(task)]


def request_error(exc: BaseException) -> dict[str, Any]:
    from acp import RequestError

    if isinstance(exc, RequestError):
        message = str(exc)
        details = exc.data.get("details") if isinstance(exc.data, dict) else None
        if isinstance(details, str) and details and details not in message:
            message = f"{message}: {details}"
        return {"code": exc.code, "message": message, "data": exc.data}
    return {"code": None, "message": f"{type(exc).__name__}: {exc}", "data": None}


class Conversation:
    """One prompt turn with one agent, from ``initialize`` to the prompt's answer."""

    def __init__(
        self, conn: ClientSideConnection, proc: Process, out: LineWriter, client: HeadlessClient
    ) -> None:
        self.conn, self.proc, self.out, self.client = conn, proc, out, client
        self.session_id: str | None = None
        self.stage = "initialize"
        #: Set when the bridge was told to stop: the agent's end is then the bridge's doing.
        self.stopping = False

    async def run(self, cfg: BridgeConfig, prompt: str) -> int:
        try:
            if not await self._open(cfg):
                prompt = with_transcript(cfg.fallback, prompt)
            self.stage = "session/prompt"
            session_id = self.session_id or ""
            blocks = prompt_blocks(prompt, as_resource=cfg.prompt_resource)
            answer = await self.conn.prompt(session_id=session_id, prompt=blocks)
        except ConnectionError:
            return await self._agent_gone()
        except Exception as exc:  # a JSON-RPC error, or an answer the schema refuses
            if self.proc.returncode is not None:
                return await self._agent_gone()
            self.out.emit("error", stage=self.stage, **request_error(exc))
            return 1
        meta = answer.field_meta or None
        self.out.emit("stop", stop_reason=str(answer.stop_reason), meta=meta)
        return 0

    async def _open(self, cfg: BridgeConfig) -> bool:
        """Initialize and open the session; False when a session to resume was not resumed."""
        from acp import PROTOCOL_VERSION
        from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

        capabilities = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=False, write_text_file=False), terminal=False
        )
        info = Implementation(name="holon", title="holon", version=_holon_version())
        init = await self.conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities, client_info=info
        )
        agent = init.agent_info
        self.out.emit(
            "initialized",
            protocol_version=init.protocol_version,
            agent={"name": agent.name, "version": agent.version} if agent else None,
            auth_methods=[method.id for method in init.auth_methods or []],
            load_session=bool(init.agent_capabilities and init.agent_capabilities.load_session),
            continues=continue_method(init.agent_capabilities),
        )
        if cfg.auth:
            self.stage = "authenticate"
            await self.conn.authenticate(method_id=cfg.auth)
        resumed = False
        if cfg.resume:
            resumed = await continue_session(self, cfg, continue_method(init.agent_capabilities))
        if not resumed:
            self.stage = "session/new"
            session = await self.conn.new_session(cwd=cfg.cwd, mcp_servers=[])
            self.session_id = session.session_id
            self.emit_session(session, resumed=False)
        if cfg.mode:
            self.stage = "session/set_mode"
            await self.conn.set_session_mode(session_id=self.session_id or "", mode_id=cfg.mode)
        return resumed or not cfg.resume

    def emit_session(self, session: Any, *, resumed: bool) -> None:
        """The session line: its id (the one serve resumes next), model, and whether resumed."""
        models = getattr(session, "models", None)
        current = getattr(models, "current_model_id", None) if models is not None else None
        self.out.emit("session", session_id=self.session_id, model=current, resumed=resumed)

    async def _agent_gone(self) -> int:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), 5.0)
        if not self.stopping:
            self.out.emit("agent_exit", code=self.proc.returncode, stage=self.stage)
        return 1

    async def cancel(self) -> None:
        """``session/cancel`` for the running prompt (best effort: the agent may be gone)."""
        if self.session_id is not None and self.proc.returncode is None:
            with contextlib.suppress(Exception):
                await self.conn.cancel(session_id=self.session_id)


def _holon_version() -> str:
    from holon_core import __version__

    return __version__


async def _stop_agent(proc: Process, grace: float) -> None:
    if proc.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.terminate()
    try:
        await asyncio.wait_for(proc.wait(), grace)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()


async def converse(cfg: BridgeConfig, prompt: str, out: LineWriter) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(signum, stop.set)
    pipe = asyncio.subprocess.PIPE
    try:
        proc = await asyncio.create_subprocess_exec(
            *cfg.command,
            stdin=pipe,
            stdout=pipe,
            cwd=cfg.cwd,
            env=dict(os.environ),
            limit=LINE_LIMIT,
        )
    except OSError as exc:
        out.emit("error", stage="spawn", code=None, message=f"cannot start {cfg.command[0]}: {exc}")
        return 127
    # The agent starts up (node: a second or more) while this process imports the SDK
    # (its schema models: about 0.65 s of CPU), instead of after it.
    from acp import connect_to_agent

    from holon_adapter_acp.client import HeadlessClient

    client = HeadlessClient(out, policy_from(os.environ))
    conn = connect_to_agent(
        cast("Client", client), proc.stdin, proc.stdout, observers=[client.observe]
    )
    try:
        talk = Conversation(conn, proc, out, client)
        return await _supervise(talk, client, cfg, prompt, stop)
    finally:
        await conn.close()
        await _close_agent(proc)


async def _close_agent(proc: Process) -> None:
    """End of the conversation: the agent's stdin closed, a second to exit, then stopped."""
    if proc.stdin is not None:
        with contextlib.suppress(Exception):
            proc.stdin.close()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), 1.0)
    await _stop_agent(proc, 1.0)


async def _supervise(
    talk: Conversation, client: HeadlessClient, cfg: BridgeConfig, prompt: str, stop: asyncio.Event
) -> int:
    work = asyncio.create_task(talk.run(cfg, prompt))
    stopper = asyncio.create_task(stop.wait())
    await asyncio.wait({work, stopper}, return_when=asyncio.FIRST_COMPLETED)
    if work.done():
        stopper.cancel()
        return work.result()
    talk.out.emit("cancel", session_id=talk.session_id, stage=talk.stage)
    client.cancelled = talk.stopping = True
    await talk.cancel()
    with contextlib.suppress(TimeoutError, Exception):
        await asyncio.wait_for(asyncio.shield(work), cfg.cancel_grace)
    await _stop_agent(talk.proc, 1.0)
    if not work.done():
        work.cancel()
    return EXIT_STOPPED


def main(argv: list[str] | None = None) -> int:
    cfg = parse_args(sys.argv[1:] if argv is None else argv)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_ShortErrors("holon-acp-bridge: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    prompt = sys.stdin.read()
    return asyncio.run(converse(cfg, prompt, LineWriter()))


if __name__ == "__main__":
    sys.exit(main())
