"""Normalized events: every engine's stream becomes these lines in ``evidence/events.ndjson``.

A plain dataclass rather than a pydantic model: events are built once per engine line, so
they stay cheap, and adapters can import them without pulling pydantic onto the probe path.

Tool results mean the same on every engine: a ``tool_result`` has ``status`` ``error`` when
the tool did not do its job, whatever the engine called it; for a shell command that is a
non-zero exit code (see :func:`command_ok`), and ``data.exit_code`` carries the code when
the engine's evidence shows it. An engine that reveals exit codes only after the run (Gemini
CLI writes them to its session log, not its stream) gets a second ``tool_result`` for the
same ``tool_id`` with ``data.amended: true``; the later event is the truth.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

#: Commands whose exit status 1 is an answer, not a failure: ``grep`` found no match,
#: ``diff``/``cmp`` found a difference, ``test``/``[`` evaluated to false. An exploratory
#: ``grep`` that finds nothing is normal work (Claude Code already reports it as no error).
ANSWER_COMMANDS = frozenset({"grep", "egrep", "fgrep", "rg", "diff", "cmp", "test", "["})
ANSWER_GIT_COMMANDS = frozenset({"grep", "diff"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
_OPERATORS = frozenset({"|", "||", "&&", ";", "&", "|&", ";;"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")

EventType = Literal[
    "phase",  # a pipeline phase started (preflight, baseline, launch, ...)
    "session",  # the engine announced a session (id, model, tools, skills)
    "message",  # assistant text
    "tool_call",  # the engine called a tool
    "tool_result",  # a tool finished (status ok/error)
    "retry",  # the engine is retrying a model request
    "error",  # the engine reported an error
    "usage",  # token usage update
    "result",  # the engine's terminal event
    "stderr",  # a line the engine wrote to stderr
    "note",  # holon says something about the record itself (e.g. events were capped)
]
EVENT_TYPES: tuple[str, ...] = EventType.__args__  # type: ignore[attr-defined]


@dataclass(slots=True)
class Event:
    """One normalized event; ``data`` carries the type-specific fields."""

    type: EventType
    text: str | None = None
    tool: str | None = None
    tool_id: str | None = None
    status: Literal["ok", "error"] | None = None
    data: dict[str, Any] = field(default_factory=dict)
    seq: int = 0
    ts: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seq": self.seq, "ts": round(self.ts, 3), "type": self.type}
        for key in ("text", "tool", "tool_id", "status"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.data:
            out["data"] = self.data
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str)


@dataclass(slots=True)
class ToolOutcome:
    """One finished tool call as the outcome rule sees it (kept in order on the report)."""

    tool_id: str
    tool: str | None
    ok: bool
    #: The shell command line, for shell tools only.
    command: str | None = None
    exit_code: int | None = None
    #: Why it failed when no exit code tells (e.g. the engine refused to run the command).
    error: str | None = None


def command_ok(command: str, exit_code: int) -> bool:
    """Did a shell command succeed? Exit 0, or exit 1 of a command that answers no with it.

    The exit status of a command line is that of its last simple command, so that one
    decides (``grep x f || true`` is judged by ``true``; ``cd d && grep x`` by ``grep``).
    """
    if exit_code == 0:
        return True
    if exit_code != 1:
        return False
    words = last_simple_command(command)
    if not words:
        return False
    name = words[0].rsplit("/", 1)[-1]
    if name == "git":
        return _git_subcommand(words[1:]) in ANSWER_GIT_COMMANDS
    return name in ANSWER_COMMANDS


def _git_subcommand(args: list[str]) -> str | None:
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word in ("-C", "-c"):
            skip = True  # these two take a separate value
        elif not word.startswith("-"):
            return word
    return None


def last_simple_command(command: str) -> list[str]:
    """The words of the last simple command in ``command`` (``bash -lc '...'`` unwrapped)."""
    import shlex

    # A newline separates commands like ``;`` does; shlex would treat it as a space.
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: nothing can be said about it
        return []
    words: list[str] = []
    for token in tokens:
        if token in _OPERATORS:
            words = []
        elif token not in ("(", ")"):  # a subshell's status is its last command's
            words.append(token)
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in _SHELLS and words[1] in ("-c", "-lc"):
        return last_simple_command(words[2])
    return words
