"""Facts Codex writes only to its session log, read after the run.

``codex exec --json`` carries neither the model nor the duration, and on a failed turn no
usage at all. The session log (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl``)
has them: ``turn_context.model``, ``event_msg/task_complete.duration_ms``, cumulative
``event_msg/token_count`` and one ``token_usage_record`` per model response. It also holds
the developer message listing the skills the model was offered.
"""

from __future__ import annotations

import glob
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from holon_core import read_regular

if TYPE_CHECKING:
    from pathlib import Path

#: ``- name: description (file: r0/name/SKILL.md)`` lines of ``<skills_instructions>``.
_SKILL_LINE = re.compile(r"^- ([a-z0-9][a-z0-9-]*): .*\(file: [^)]*/SKILL\.md\)\s*$", re.M)
#: A session log is read up to this size (it lives in the engine-writable home).
MAX_ROLLOUT_BYTES = 64 * 1024 * 1024


@dataclass(slots=True)
class Rollout:
    path: Path
    model: str | None = None
    provider: str | None = None
    duration_ms: int | None = None
    first_token_ms: int | None = None
    responses: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    skills_listed: set[str] = field(default_factory=set)
    last_agent_message: str | None = None


def find_rollout(codex_home: Path, session_id: str | None) -> Path | None:
    """This run's session log; the newest one when the stream never named the session."""
    sessions = codex_home / "sessions"
    if not sessions.is_dir():
        return None
    if session_id and ("/" in session_id or "\0" in session_id):
        return None  # not an id codex made: the stream is not to be trusted with paths
    pattern = f"rollout-*-{glob.escape(session_id)}.jsonl" if session_id else "rollout-*.jsonl"
    found = sorted(sessions.rglob(pattern), key=lambda p: p.lstat().st_mtime)
    return found[-1] if found else None


def skills_in(text: str) -> set[str]:
    """Skill names in a ``<skills_instructions>`` block (bundled ``.system`` ones included)."""
    if "<skills_instructions>" not in text:
        return set()
    return set(_SKILL_LINE.findall(text))


def read_rollout(path: Path) -> Rollout:
    out = Rollout(path=path)
    # It lives in the engine's home: no link, no FIFO, a bounded read (the first part kept).
    data = read_regular(path, MAX_ROLLOUT_BYTES - 1)
    if data is None:  # absent, or e.g. a directory named like a log
        return out
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict) and isinstance(record.get("payload"), dict):
            _apply(out, str(record.get("type")), record["payload"])
    return out


def _apply(out: Rollout, kind: str, payload: dict[str, Any]) -> None:
    if kind == "turn_context":
        out.model = _text(payload.get("model")) or out.model
    elif kind == "token_usage_record":
        out.responses += 1
    elif kind == "event_msg":
        _apply_event(out, payload)
    elif kind == "response_item" and payload.get("role") == "developer":
        content = payload.get("content")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                out.skills_listed |= skills_in(part["text"])


def _apply_event(out: Rollout, payload: dict[str, Any]) -> None:
    kind = payload.get("type")
    if kind == "thread_settings_applied":
        settings = _dict(payload.get("thread_settings"))
        out.model = _text(settings.get("model")) or out.model
        out.provider = _text(settings.get("model_provider_id")) or out.provider
    elif kind == "token_count":
        total = _dict(payload.get("info")).get("total_token_usage")
        if isinstance(total, dict):
            out.usage = {k: int(v) for k, v in total.items() if isinstance(v, int)}
    elif kind == "task_complete":
        if isinstance(payload.get("duration_ms"), int):
            out.duration_ms = payload["duration_ms"]
        if isinstance(payload.get("time_to_first_token_ms"), int):
            out.first_token_ms = payload["time_to_first_token_ms"]
        if isinstance(payload.get("last_agent_message"), str):
            out.last_agent_message = payload["last_agent_message"]


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
