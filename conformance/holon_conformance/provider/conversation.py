"""Read what a request says about the conversation: wire API, turn, tools offered, workspace.

The turn index is the number of tool calls the model already made in the conversation the
client sent (never a request counter), so retries and side calls never shift the script.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from holon_conformance.provider.apis import ANTHROPIC_MESSAGES, OPENAI_RESPONSES

if TYPE_CHECKING:
    from collections.abc import Iterator

_RESPONSES_CALL_TYPES = {"function_call", "custom_tool_call", "local_shell_call"}
_WORKSPACE_PATTERNS = (
    re.compile(r"Primary working directory:\s*(\S+)"),
    re.compile(r"<cwd>\s*([^<\n]+?)\s*</cwd>"),
    re.compile(r"Workspace Directories:\*\*\s*\n\s*-\s*(\S[^\n]*)"),
)
_SKILL_LINE = re.compile(r"-\s*([\w.:-]+):.*\(file:\s*([^)\s]+)\)")
_SKILL_ROOT = re.compile(r"`?(r\d+)`?\s*(?:=|:|\|)\s*`?(/[^`|\s]+)`?")


@dataclass(slots=True)
class Conversation:
    """The facts a scripted answer needs, taken from one request body."""

    #: The wire API the client spoke (``provider.apis``).
    api: str
    tool_calls: int
    #: Offered tool name -> kind ("function", "custom", "local_shell", ...).
    tools: dict[str, str] = field(default_factory=dict)
    workspace: str | None = None
    #: JSON schema of a structured side call (session title, router), else None.
    aux_schema: dict[str, Any] | None = None
    model: str = "scripted-model"
    #: OpenAI Responses clients that list skills as files: skill name -> SKILL.md path.
    skill_files: dict[str, str] = field(default_factory=dict)


def iter_strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value, depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from iter_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from iter_strings(item)


def find_workspace(body: Any) -> str | None:
    for text in iter_strings(body):
        for pattern in _WORKSPACE_PATTERNS:
            match = pattern.search(text)
            if match:
                return match.group(1).strip()
    return None


def _anthropic(body: dict[str, Any]) -> Conversation:
    calls = 0
    for message in body.get("messages") or []:
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list):
            calls += sum(1 for block in content if block.get("type") == "tool_use")
    tools = {t.get("name", ""): str(t.get("type", "custom")) for t in body.get("tools") or []}
    fmt = (body.get("output_config") or {}).get("format") or {}
    schema = fmt.get("schema") if fmt.get("type") == "json_schema" else None
    return Conversation(
        ANTHROPIC_MESSAGES, calls, tools, aux_schema=schema, model=body.get("model", "")
    )


def _responses(body: dict[str, Any]) -> Conversation:
    items = body.get("input") or []
    calls = sum(1 for item in items if item.get("type") in _RESPONSES_CALL_TYPES)
    tools: dict[str, str] = {}
    for tool in body.get("tools") or []:
        kind = str(tool.get("type", "function"))
        tools[str(tool.get("name") or kind)] = kind
    fmt = (body.get("text") or {}).get("format") or {}
    schema = fmt.get("schema") if fmt.get("type") == "json_schema" else None
    conv = Conversation(
        OPENAI_RESPONSES, calls, tools, aux_schema=schema, model=body.get("model", "")
    )
    conv.skill_files = listed_skill_files(body)
    return conv


def listed_skill_files(body: dict[str, Any]) -> dict[str, str]:
    """Skill name -> absolute SKILL.md path, resolving ``rN/`` roots from the roots table."""
    files: dict[str, str] = {}
    for text in iter_strings(body.get("input") or []):
        if "SKILL.md" not in text:
            continue
        roots = dict(_SKILL_ROOT.findall(text))
        for name, path in _SKILL_LINE.findall(text):
            head, _, rest = path.partition("/")
            files.setdefault(name, f"{roots[head]}/{rest}" if head in roots else path)
    return files


def _generate_content(api: str, body: dict[str, Any], path: str) -> Conversation:
    calls = 0
    for content in body.get("contents") or []:
        if content.get("role") == "model":
            calls += sum(1 for part in content.get("parts") or [] if "functionCall" in part)
    tools: dict[str, str] = {}
    for group in body.get("tools") or []:
        for decl in group.get("functionDeclarations") or []:
            tools[str(decl.get("name", ""))] = "function"
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if schema is None and config.get("responseMimeType") == "application/json":
        schema = {}
    match = re.search(r"models/([^:/]+):", path)
    model = match.group(1) if match else "scripted-model"
    return Conversation(api, calls, tools, aux_schema=schema, model=model)


def read_conversation(api: str, body: dict[str, Any], path: str) -> Conversation:
    if api == ANTHROPIC_MESSAGES:
        conv = _anthropic(body)
    elif api == OPENAI_RESPONSES:
        conv = _responses(body)
    else:
        conv = _generate_content(api, body, path)
    conv.workspace = find_workspace(body)
    conv.model = conv.model or "scripted-model"
    return conv
