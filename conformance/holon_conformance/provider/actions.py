"""Map a logical scenario action onto the tools one client offered in this request.

The mapping is chosen by the wire API the client speaks and the tools it offers, never by
who the client is: each client has its own tool names and argument shapes (engines.md
section 3). When the tool an action needs is not offered, the closest offered one is used
(a Responses client without ``apply_patch`` writes with its shell) and a warning is recorded
either way.
"""

from __future__ import annotations

import posixpath
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from holon_conformance.provider.apis import (
    ANTHROPIC_MESSAGES,
    GOOGLE_GENERATE_CONTENT,
    OPENAI_RESPONSES,
    wire_api,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from holon_conformance.provider.conversation import Conversation
    from holon_conformance.provider.scenario import Turn


@dataclass(slots=True)
class ToolCall:
    """One tool call in the engine's own terms.

    ``kind`` is "function" (JSON ``args``), "custom" (freeform ``text`` input, an OpenAI
    Responses apply_patch) or "local_shell" (a Responses ``local_shell_call`` with ``args``
    as the action).
    """

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    kind: str = "function"
    text: str = ""


@dataclass(slots=True)
class Reply:
    """What the scripted model says on this turn: optional text, then a tool call or not."""

    text: str = ""
    call: ToolCall | None = None
    warnings: list[str] = field(default_factory=list)


def _substitute(value: Any, conv: Conversation) -> Any:
    if isinstance(value, str):
        return value.replace("{api}", conv.api).replace("{cwd}", conv.workspace or ".")
    if isinstance(value, dict):
        return {k: _substitute(v, conv) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, conv) for v in value]
    return value


def _absolute(path: str, conv: Conversation) -> str:
    if posixpath.isabs(path) or not conv.workspace:
        return path
    return posixpath.normpath(posixpath.join(conv.workspace, path))


def _shell_write(path: str, content: str) -> str:
    return f"printf %s {shlex.quote(content)} > {shlex.quote(path)}"


def _add_file_patch(path: str, content: str) -> str:
    lines = content.splitlines() or [""]
    body = "".join(f"+{line}\n" for line in lines)
    return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"


def _responses_shell(
    command: str, conv: Conversation, reply: Reply, timeout: float | None = None
) -> ToolCall:
    workdir = conv.workspace or "."
    tools = conv.tools
    if "exec_command" in tools:
        call: dict[str, Any] = {"cmd": command, "workdir": workdir}
        if timeout is not None:
            call["yield_time_ms"] = int(timeout * 1000)
        return ToolCall("exec_command", call)
    if "shell_command" in tools:
        return ToolCall("shell_command", {"command": command, "workdir": workdir})
    if "local_shell" in tools:
        action = {"type": "exec", "command": ["bash", "-lc", command], "working_directory": workdir}
        return ToolCall("local_shell", action, kind="local_shell")
    if "shell" not in tools:
        reply.warnings.append(f"the client offered no shell tool (tools: {sorted(tools)})")
        return ToolCall("exec_command", {"cmd": command, "workdir": workdir})
    return ToolCall("shell", {"command": ["bash", "-lc", command], "workdir": workdir})


def _lowercase_tools(turn: Turn, args: dict[str, Any], conv: Conversation) -> ToolCall | None:
    """An Anthropic Messages client whose tools are ``write``/``bash``/``skill`` (camelCase
    arguments), told apart by the tools it offers, not by who it is."""
    if turn.action == "write_file" and "Write" not in conv.tools and "write" in conv.tools:
        return ToolCall(
            "write", {"filePath": _absolute(args["path"], conv), "content": args["content"]}
        )
    if turn.action == "run_shell" and "Bash" not in conv.tools and "bash" in conv.tools:
        call = {"command": args["command"], "description": args.get("description", "Run a command")}
        if "timeout" in args:
            call["timeout"] = int(float(args["timeout"]) * 1000)
        return ToolCall("bash", call)
    if turn.action == "use_skill" and "Skill" not in conv.tools and "skill" in conv.tools:
        return ToolCall("skill", {"name": args["name"]})
    return None


def _anthropic(turn: Turn, args: dict[str, Any], conv: Conversation, reply: Reply) -> ToolCall:
    lowercase = _lowercase_tools(turn, args, conv)
    if lowercase is not None:
        return lowercase
    if turn.action == "write_file":
        path = _absolute(args["path"], conv)
        if "Write" not in conv.tools and "Bash" in conv.tools:
            reply.warnings.append("the client offered no Write tool; writing with Bash")
            return ToolCall("Bash", {"command": _shell_write(path, args["content"])})
        return ToolCall("Write", {"file_path": path, "content": args["content"]})
    if turn.action == "run_shell":
        description = args.get("description", "Run a scripted command")
        call = {"command": args["command"], "description": description}
        if "timeout" in args:
            call["timeout"] = int(float(args["timeout"]) * 1000)
        return ToolCall("Bash", call)
    if turn.action == "use_skill":
        return ToolCall("Skill", {"skill": args["name"]})
    raw = _raw_call(args, conv)
    return ToolCall(raw["name"], dict(raw.get("input") or {}))


def _responses(turn: Turn, args: dict[str, Any], conv: Conversation, reply: Reply) -> ToolCall:
    if turn.action == "write_file":
        kind = conv.tools.get("apply_patch")
        if kind == "custom":
            return ToolCall("apply_patch", kind="custom", text=_add_file_patch(*_pc(args)))
        if kind == "function":
            return ToolCall("apply_patch", {"input": _add_file_patch(*_pc(args))})
        reply.warnings.append("the client offered no apply_patch tool; writing with the shell")
        return _responses_shell(_shell_write(args["path"], args["content"]), conv, reply)
    if turn.action == "run_shell":
        timeout = float(args["timeout"]) if "timeout" in args else None
        return _responses_shell(args["command"], conv, reply, timeout)
    if turn.action == "use_skill":
        path = conv.skill_files.get(args["name"])
        if path is None:
            reply.warnings.append(f"the client listed no skill named {args['name']!r}")
            path = f".agents/skills/{args['name']}/SKILL.md"
        return _responses_shell(f"cat {shlex.quote(path)}", conv, reply)
    raw = _raw_call(args, conv)
    if "input" in raw and isinstance(raw["input"], str):
        return ToolCall(raw["name"], kind="custom", text=raw["input"])
    return ToolCall(raw["name"], dict(raw.get("arguments") or {}))


def _pc(args: dict[str, Any]) -> tuple[str, str]:
    return str(args["path"]), str(args["content"])


def _generate_content(
    turn: Turn, args: dict[str, Any], conv: Conversation, reply: Reply
) -> ToolCall:
    if turn.action == "write_file":
        path = _absolute(args["path"], conv)
        return ToolCall("write_file", {"file_path": path, "content": args["content"]})
    if turn.action == "run_shell":
        description = args.get("description", "Run a scripted command")
        return ToolCall(
            "run_shell_command", {"command": args["command"], "description": description}
        )
    if turn.action == "use_skill":
        return ToolCall("activate_skill", {"name": args["name"]})
    raw = _raw_call(args, conv)
    return ToolCall(raw["name"], dict(raw.get("args") or {}))


_MAPPERS: dict[str, Callable[[Turn, dict[str, Any], Conversation, Reply], ToolCall]] = {
    ANTHROPIC_MESSAGES: _anthropic,
    OPENAI_RESPONSES: _responses,
    GOOGLE_GENERATE_CONTENT: _generate_content,
}


def _speaks(key: str, api: str) -> bool:
    """Whether a raw call keyed ``key`` (a wire API or an installed engine) fits ``api``."""
    try:
        return wire_api(key) == api
    except Exception:  # an engine not installed here, or one speaking another API
        return False


def _raw_key(args: dict[str, Any], conv: Conversation) -> str | None:
    if conv.api in args:
        return conv.api
    return next((key for key in args if _speaks(key, conv.api)), None)


def _raw_call(args: dict[str, Any], conv: Conversation) -> dict[str, Any]:
    key = _raw_key(args, conv)
    return dict(args[key]) if key is not None else {}


def build_reply(turn: Turn, conv: Conversation) -> Reply:
    """The scripted answer for ``turn`` in the terms of ``conv``'s wire API and tools."""
    args = _substitute(dict(turn.args), conv)
    reply = Reply(text=_substitute(turn.say or "", conv))
    if turn.action == "final":
        reply.text = (reply.text + "\n\n" if reply.text else "") + str(args["text"])
        return reply
    if turn.action == "tool" and _raw_key(args, conv) is None:
        reply.warnings.append(f"tool turn has no raw call for {conv.api}; answering with text")
        reply.text = reply.text or "(no scripted tool call for this client)"
        return reply
    call = _MAPPERS[conv.api](turn, args, conv, reply)
    if conv.tools and call.name not in conv.tools:
        reply.warnings.append(
            f"the client did not offer tool {call.name!r} (offered: {sorted(conv.tools)})"
        )
    reply.call = call
    return reply
