"""Shell exit codes from Gemini CLI's session log, the only place that has them all.

The ``stream-json`` ``tool_result`` says ``status: success`` for a shell command that exited
non-zero and shows only the command's output; the exit code reaches the model (and the chat
log, ``$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl``) as trailing
lines of the tool's response, read where the CLI writes them (``shell_end.py``). The CLI
writes that log after it printed the stream event, so it is read once the engine has exited.

One session can leave several logs (see :func:`find_session_log`); the one holding the
conversation is the one read, by the parser and by ``resume.py``.

The engine can write its home: the log is opened without following links, must be a regular
file, and is read only up to :data:`MAX_BYTES`.
"""

from __future__ import annotations

import glob
import json
from typing import TYPE_CHECKING, Any

from holon_adapter_gemini.shell_end import ShellEnd, shell_end
from holon_core import read_regular

if TYPE_CHECKING:
    from pathlib import Path

#: A larger log is not read (a real one holds the run's tool output, rarely megabytes).
MAX_BYTES = 64 * 2**20
#: User messages the CLI writes itself or never sends as a prompt (slash and ``?`` commands).
_NOT_A_PROMPT = ("<session_context>", "<hook_context>", "/", "?")


def find_session_log(home: Path, session_id: str | None) -> Path | None:
    """The chat log holding ``session_id``'s conversation in the run-local home.

    Logs are named ``session-<start minute>-<id8>.jsonl``. A run resuming the session in a
    later minute writes a stub under a newer name (header and session context only) and
    appends the conversation to the resumed log; an import (``--session-file``) is named
    ``session-<epoch ms>-<id8>.jsonl`` beside its stub. So, as the CLI's ``--resume`` does,
    the log with conversation and the latest ``lastUpdated`` wins, never the newest name.
    """
    tmp = home / ".gemini" / "tmp"
    if not session_id or not tmp.is_dir() or "/" in session_id or "\0" in session_id:
        return None
    best: tuple[bool, str, str] | None = None
    found = None
    for path in tmp.glob(f"*/chats/session-*-{glob.escape(session_id[:8])}.jsonl"):
        owner, last_updated, conversation = _log_summary(_records(path))
        if owner not in (None, session_id):
            continue  # another session sharing the first 8 chars
        key = (conversation, last_updated, path.name)
        if best is None or key > best:
            best, found = key, path
    return found


def _log_summary(records: list[dict[str, Any]]) -> tuple[str | None, str, bool]:
    """A log's session id, last ``lastUpdated`` and whether it holds any conversation."""
    owner: str | None = None
    last_updated = ""
    conversation = False
    for record in records:
        update = record.get("$set")
        fields: dict[str, Any] = update if isinstance(update, dict) else record
        if isinstance(fields.get("sessionId"), str):
            owner = fields["sessionId"]
        if isinstance(fields.get("lastUpdated"), str):
            last_updated = max(last_updated, fields["lastUpdated"])
        listed = fields.get("messages")
        messages: list[Any] = listed if isinstance(listed, list) else []
        conversation = conversation or any(map(_is_conversation, [record, *messages]))
    return owner, last_updated, conversation


def _is_conversation(message: Any) -> bool:
    """A prompt or a model turn, not the CLI's own context (what ``--resume`` would restore)."""
    if not isinstance(message, dict):
        return False
    text = _content_text(message.get("content")).strip()
    if message.get("type") == "user":
        return bool(text) and not text.startswith(_NOT_A_PROMPT)
    return message.get("type") == "gemini" and bool(
        text or message.get("toolCalls") or message.get("thoughts")
    )


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    return "".join(
        part["text"]
        for part in parts
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    )


def shell_ends(path: Path) -> dict[str, ShellEnd]:
    """``run_shell_command`` call id -> how it ended; calls whose end is unknown are left out."""
    ends: dict[str, ShellEnd] = {}
    for record in _records(path):
        calls = record.get("toolCalls")
        if record.get("type") != "gemini" or not isinstance(calls, list):
            continue
        for call in calls:
            if isinstance(call, dict) and call.get("name") == "run_shell_command":
                text = _response_text(call.get("result"))
                end = None if text is None else shell_end(text, call.get("resultDisplay"))
                if end is not None and call.get("id"):
                    ends[str(call["id"])] = end
    return ends


def _response_text(result: Any) -> str | None:
    if not isinstance(result, list):
        return None
    for part in result:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        output = response.get("response") if isinstance(response, dict) else None
        if isinstance(output, dict) and isinstance(output.get("output"), str):
            return str(output["output"])
    return None


def _records(path: Path) -> list[dict[str, Any]]:
    data = read_regular(path, MAX_BYTES)
    if data is None or len(data) > MAX_BYTES:
        return []
    records = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: found by fuzzing (deep line)
            continue
        if isinstance(record, dict):
            records.append(record)
    return records
