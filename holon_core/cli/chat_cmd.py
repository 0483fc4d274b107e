"""``holon chat``: talk to an engine turn by turn through ``holon-agent serve``.

It attaches to the serve process of a chat dir when one answers on its socket, else starts
one (its log in ``serve.log``). Each turn continues the previous one (``previous_response_id``,
remembered in ``last_response`` so a later ``holon chat`` picks the conversation up) and
streams live: assistant text as it arrives, tool calls and their status on their own lines.
By default every turn works on a copy of the workspace kept under the chat dir (its changes
are in the turn's ``diff.patch``); ``--in-place`` lets the engine edit the workspace itself.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from holon_core.errors import InputError


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("chat", help="chat with an engine, turn by turn, through serve mode")
    parser.add_argument("--workspace", default=".", help="the workspace (default: .)")
    parser.add_argument("--engine", help="engine name (else HOLON_ENGINE, else the only adapter)")
    parser.add_argument("--model", help="model name passed to the engine")
    parser.add_argument("--dir", help="chat dir (default: $XDG_STATE_HOME/holon/chat/<workspace>)")
    parser.add_argument("--socket", help="serve socket (default: <chat dir>/agent.sock)")
    parser.add_argument(
        "-m", "--message", action="append", default=[], help="send this turn (repeat); no prompt"
    )
    parser.add_argument("--new", action="store_true", help="start a new conversation")
    parser.add_argument(
        "--in-place", action="store_true", help="let the engine edit the workspace itself"
    )
    parser.add_argument(
        "--keep", action="store_true", help="leave a serve process this chat started running"
    )


def run(args: argparse.Namespace) -> int:
    from holon_core.serve.client import ServeClient, ServeClientError, start_server

    workspace = Path(args.workspace).expanduser().resolve()
    if not workspace.is_dir():
        raise InputError(f"workspace {workspace} is not a directory", hint="pass --workspace DIR")
    chat_dir = Path(args.dir).expanduser().absolute() if args.dir else _default_dir(workspace)
    socket = Path(args.socket).expanduser().absolute() if args.socket else chat_dir / "agent.sock"
    server = None
    if not _answers(socket):
        server = _start(chat_dir, socket, workspace, args, start_server)
    last_file = chat_dir / "last_response"
    previous = None if args.new or not last_file.is_file() else last_file.read_text().strip()
    code = 0
    try:
        with ServeClient(socket) as client:
            for text in _messages(args.message):
                try:
                    previous, ok = _turn(client, text, previous, args.model, sys.stdout)
                except ServeClientError as exc:
                    print(f"holon chat: {exc}", file=sys.stderr)
                    if exc.status == 404:  # the remembered response is gone: start over
                        previous = None
                    code = 1
                    continue
                chat_dir.mkdir(parents=True, exist_ok=True)
                last_file.write_text(previous + "\n")
                code = code or (0 if ok else 1)
            if server is not None and not args.keep:
                client.shutdown()
    finally:
        if server is not None and not args.keep:
            server.wait(timeout=120)
    return code


def _default_dir(workspace: Path) -> Path:
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    digest = hashlib.sha256(str(workspace).encode()).hexdigest()[:12]
    return base / "holon" / "chat" / f"{workspace.name or 'root'}-{digest}"


def _answers(socket: Path) -> bool:
    from holon_core.serve.client import ServeClient

    if not socket.exists():
        return False
    try:
        with ServeClient(socket, timeout=2.0) as client:
            client.health()
    except Exception:
        return False
    return True


def _start(
    chat_dir: Path, socket: Path, workspace: Path, args: argparse.Namespace, start: Any
) -> subprocess.Popen[bytes]:
    for name in ("input", "output", "state"):
        (chat_dir / name).mkdir(parents=True, exist_ok=True)
    flags = ["--workspace", str(workspace)]
    for name in ("input", "output", "state"):
        flags += [f"--{name}", str(chat_dir / name)]
    if args.engine:
        flags += ["--engine", args.engine]
    if not args.in_place:
        flags.append("--isolate")
    with (chat_dir / "serve.log").open("ab") as log:
        process: subprocess.Popen[bytes] = start(socket, flags, stderr=log)
    print(f"holon chat: started holon-agent serve on {socket} (log: {chat_dir}/serve.log)")
    return process


def _messages(given: list[str]) -> list[str] | Any:
    if given:
        return given
    return _prompted()


def _prompted() -> Any:
    tty = sys.stdin.isatty()
    while True:
        if tty:
            print("you> ", end="", flush=True)
        line = sys.stdin.readline()
        if not line or not line.strip():
            return
        yield line.strip()


def _turn(
    client: Any, text: str, previous: str | None, model: str | None, out: IO[str]
) -> tuple[str, bool]:
    """Send one turn and render its stream; (response id, succeeded)."""
    final: dict[str, Any] = {}
    tools: dict[str, str] = {}  # call_id -> the tool's name, from its function_call item
    for event in client.stream(text, previous_response_id=previous, model=model):
        kind = event["type"]
        if kind == "response.output_text.delta":
            out.write(event["delta"])
            out.flush()
        elif kind == "response.output_text.done":
            out.write("\n")
        elif kind == "response.output_item.done" and event["item"]["type"] == "function_call":
            tools[event["item"]["call_id"]] = event["item"]["name"]
        elif kind == "response.output_item.done" and event["item"]["type"] in _RESULTS:
            out.write(_tool_line(event["item"], tools))
        elif kind in ("response.completed", "response.failed", "response.incomplete"):
            final = event["response"]
    holon = final.get("holon", {})
    out.write(f"  ({holon.get('outcome')}: {holon.get('reason')}; {holon.get('output_dir')})\n")
    return final["id"], final.get("status") == "completed"


_RESULTS = ("function_call_output",)


def _tool_line(item: dict[str, Any], tools: dict[str, str]) -> str:
    """``  [run] failed (exit 2)``: the tool's name, how it ended (holon's details when there)."""
    name = tools.get(item["call_id"], "tool")
    holon = item.get("holon") or {}
    status = holon.get("status") or item["status"]
    code = holon.get("exit_code")
    return f"  [{name}] {status}{'' if code is None else f' (exit {code})'}\n"
