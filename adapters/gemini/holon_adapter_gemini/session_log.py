"""Shell exit codes from Gemini CLI's session log, the only place that has them all.

The ``stream-json`` ``tool_result`` says ``status: success`` for a shell command that exited
non-zero and shows only the command's output; the exit code reaches the model (and the chat
log, ``$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl``) as trailing
lines of the tool's response: ``Output: ...``, then ``Exit Code: N`` (only when non-zero),
``Signal: S``, ``Background PIDs: ...``, ``Process Group PGID: P``. The CLI writes that log
after it printed the stream event, so it is read once the engine has exited.

The engine can write its home: the log is opened without following links, must be a regular
file, and is read only up to :data:`MAX_BYTES`.
"""

from __future__ import annotations

import glob
import json
import re
from typing import TYPE_CHECKING, Any

from holon_core.files import read_regular

if TYPE_CHECKING:
    from pathlib import Path

#: A larger log is not read (a real one holds the run's tool output, rarely megabytes).
MAX_BYTES = 64 * 2**20
_WRAPPER = re.compile(r"^\s*<untrusted_context>\n?|\n?</untrusted_context>\s*$")
_EXIT = re.compile(r"^Exit Code: (-?\d+)$")
#: Lines the CLI appends after ``Exit Code`` (see the module docstring).
_AFTER_EXIT = ("Signal: ", "Background PIDs: ", "Process Group PGID: ")


def find_session_log(home: Path, session_id: str | None) -> Path | None:
    """This run's chat log in the run-local home (named after the session's first 8 chars)."""
    tmp = home / ".gemini" / "tmp"
    if not session_id or not tmp.is_dir() or "/" in session_id or "\0" in session_id:
        return None
    found = sorted(tmp.glob(f"*/chats/session-*-{glob.escape(session_id[:8])}.jsonl"))
    return found[-1] if found else None


def shell_exit_codes(path: Path) -> dict[str, int | None]:
    """``run_shell_command`` call id -> exit code (None: ended by a signal or unknowable)."""
    codes: dict[str, int | None] = {}
    for record in _records(path):
        calls = record.get("toolCalls")
        if record.get("type") != "gemini" or not isinstance(calls, list):
            continue
        for call in calls:
            if isinstance(call, dict) and call.get("name") == "run_shell_command":
                text = _response_text(call.get("result"))
                if text is not None and call.get("id"):
                    codes[str(call["id"])] = exit_code_of(text)
    return codes


def exit_code_of(response: str) -> int | None:
    """The exit code in a shell tool's response text; 0 when the CLI printed none."""
    text = _WRAPPER.sub("", response)
    if not text.startswith("Output: "):
        return None  # cancelled, backgrounded or summarized: no exit status to read
    lines = text.split("\n")
    for line in reversed(lines[1:]):
        match = _EXIT.match(line)
        if match:
            return int(match.group(1))
        if line.startswith("Signal: "):
            return None
        if not line.startswith(_AFTER_EXIT):
            break
    return 0


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
