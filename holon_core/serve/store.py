"""Serve mode's state under the state dir: stored responses and per-session engine homes.

Layout (``<state>`` is ``--state`` / ``HOLON_STATE_DIR``)::

    <state>/responses/<response_id>.json   the response object and what the next turn needs
    <state>/sessions/<session_id>/home/     the engine's home, kept so a resume finds it
    <state>/sessions/<session_id>/workspaces/<turn_id>/   per-turn isolated workspaces

Every record is written to a temporary file, flushed to disk and renamed into place, so a
crash or a restart of the serve process leaves the previous or the new record, never half
of one. Ids are checked before they become file names (no path traversal).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from holon_core.serve.protocol import valid_id

#: Earlier turns rendered into a prompt at most (the newest are kept).
TRANSCRIPT_TURNS = 50
TRANSCRIPT_CHARS = 200_000
#: Statuses of a response whose turn has not ended (queued: accepted, waiting to start).
UNFINISHED = ("in_progress", "queued")


class Store:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.responses = root / "responses"
        self.sessions = root / "sessions"
        for path in (self.responses, self.sessions):
            path.mkdir(parents=True, exist_ok=True, mode=0o700)

    def session_dir(self, session_id: str) -> Path:
        if not valid_id(session_id):
            raise ValueError(f"not a session id: {session_id!r}")
        return self.sessions / session_id

    def save(
        self,
        redact: Callable[[str], str],
        response_id: str,
        record: dict[str, Any],
        *,
        durable: bool = True,
    ) -> None:
        """Write one response record atomically (temp file, rename); ``durable``: fsync too.

        The in-progress record of a starting turn skips the fsyncs: after a crash it is
        either there or not, and nothing continues from an unfinished turn.
        """
        if not valid_id(response_id):
            raise ValueError(f"not a response id: {response_id!r}")
        text = redact(json.dumps(record, indent=1))  # credentials never reach the state dir
        write_atomic(self.responses / f"{response_id}.json", text, durable=durable)

    def load(self, response_id: str) -> dict[str, Any] | None:
        """The stored record, or None for an unknown (or malformed) id."""
        if not valid_id(response_id):
            return None
        try:
            data = json.loads((self.responses / f"{response_id}.json").read_text("utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def settle_interrupted(self, redact: Callable[[str], str]) -> list[str]:
        """Mark responses left ``in_progress`` or ``queued`` by a server that died as failed;
        their ids."""
        settled = []
        for path in sorted(self.responses.glob("*.json")):
            record = self.load(path.stem)
            response = (record or {}).get("response")
            if not isinstance(response, dict) or response.get("status") not in UNFINISHED:
                continue
            response["status"] = "failed"
            response["error"] = {
                "code": "interrupted",
                "message": "the serve process stopped before this turn ended",
            }
            assert record is not None
            self.save(redact, path.stem, record)
            settled.append(path.stem)
        return settled

    def chain(self, response_id: str) -> list[dict[str, Any]]:
        """The records from the first turn to ``response_id``, oldest first (cycle-safe).

        The first stored turn's ``history`` (the earlier turns a stateless client sent with
        it) comes before it, so continuing such a turn by id keeps the whole conversation.
        """
        records: list[dict[str, Any]] = []
        seen: set[str] = set()
        current: str | None = response_id
        while current and current not in seen and len(records) < TRANSCRIPT_TURNS:
            seen.add(current)
            record = self.load(current)
            if record is None:
                break
            records.append(record)
            current = record.get("previous_response_id")
        records.reverse()
        # a chain that began with a stateless client's history carries those turns first
        carried = records[0].get("history") if records else None
        if isinstance(carried, list):
            records = [r for r in carried if isinstance(r, dict)] + records
        return records[-TRANSCRIPT_TURNS:]


def render_transcript(records: list[dict[str, Any]]) -> str:
    """Earlier turns as prompt text, for an engine that cannot resume its own session."""
    blocks = []
    for number, record in enumerate(records, 1):
        user = str(record.get("input_text", "")).strip()
        files = record.get("attachments")
        if isinstance(files, list) and files:  # where the turn's images and files are
            named = [f"(attached: {f})" for f in files if isinstance(f, str)]
            user = "\n\n".join([user, *named]).strip()
        blocks.append(
            f"## Turn {number}\n\n### User\n\n{user}\n\n"
            f"### Assistant\n\n{record.get('output_text', '').strip() or '(no text)'}"
        )
    body = "\n\n".join(blocks)
    if len(body) > TRANSCRIPT_CHARS:
        body = "…(earlier turns cut)\n\n" + body[-TRANSCRIPT_CHARS:]
    return (
        "# Conversation so far\n\nThis task continues an earlier conversation; "
        f"its turns, oldest first:\n\n{body}\n\n# This turn"
    )


def write_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        Path(tmp).replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
        raise
    if not durable:
        return
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
