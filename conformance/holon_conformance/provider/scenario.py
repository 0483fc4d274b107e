"""Scenarios: the script a provider replays, as plain YAML or JSON files.

A scenario is an ordered list of turns. Each turn is one logical action (``write_file``,
``run_shell``, ``use_skill``, ``final``, ``tool``) or an injected failure (``error``,
``stall``, ``drop``). Failures are *gates*: they sit in front of the next action and are
served (``times`` times, or forever) before it, without consuming a tool-call slot, which
is what keeps the turn index derivable from the conversation alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

ACTIONS = ("write_file", "run_shell", "use_skill", "final", "tool")
GATES = ("error", "stall", "drop")
#: Upper bound for a stall, so a forgotten stall never hangs a test suite.
MAX_STALL_SECONDS = 120.0


class ScenarioError(ValueError):
    """A scenario file is missing or malformed."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One scripted step. ``args`` holds the action's parameters as written in the file."""

    action: str
    args: dict[str, Any] = field(default_factory=dict)
    say: str | None = None
    delay: float = 0.0
    #: Gates: how often to serve the failure (None = forever). Actions: how many
    #: consecutive tool-call slots this turn covers (None = every later slot).
    times: int | None = 1

    @property
    def is_gate(self) -> bool:
        return self.action in GATES


@dataclass(frozen=True, slots=True)
class Slot:
    """A tool-call position in the script and the gates that guard it."""

    turn: Turn
    gates: tuple[tuple[int, Turn], ...]


@dataclass(frozen=True, slots=True)
class Scenario:
    """An ordered script of turns; ``slot_for(n)`` answers the model call after n tool calls."""

    name: str
    turns: tuple[Turn, ...]
    description: str = ""

    def slot_for(self, tool_calls: int) -> Slot:
        """The action (with its gates) to serve once ``tool_calls`` tool calls were made.

        Beyond the end of the script the last action is repeated, so a chatty client
        gets the final answer again instead of an error.
        """
        gates: list[tuple[int, Turn]] = []
        position = 0
        last: Slot | None = None
        for index, turn in enumerate(self.turns):
            if turn.is_gate:
                gates.append((index, turn))
                continue
            last = Slot(turn, tuple(gates))
            span = turn.times
            consumes = turn.action != "final"
            if span is None or not consumes or tool_calls < position + span:
                return last
            position += span
            gates = []
        if gates:
            return Slot(last.turn if last else Turn("final", {"text": ""}), tuple(gates))
        if last is None:
            return Slot(Turn("final", {"text": ""}), ())
        return last


def _parse_turn(raw: Any, where: str) -> Turn:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: a turn must be a mapping, got {type(raw).__name__}")
    raw = dict(raw)
    say = raw.pop("say", None)
    delay = float(raw.pop("delay", 0) or 0)
    times_raw = raw.pop("times", raw.pop("repeat", None))
    found = [key for key in raw if key in ACTIONS or key in GATES]
    if len(found) != 1:
        allowed = ", ".join((*ACTIONS, *GATES))
        raise ScenarioError(f"{where}: exactly one action expected (one of {allowed}), got {raw}")
    action = found[0]
    extra = set(raw) - {action}
    if extra:
        raise ScenarioError(f"{where}: unknown keys {sorted(extra)}")
    args = raw[action]
    if args is None:
        args = {}
    if action == "final" and isinstance(args, str):
        args = {"text": args}
    if action == "run_shell" and isinstance(args, str):
        args = {"command": args}
    if action == "use_skill" and isinstance(args, str):
        args = {"name": args}
    if action == "error" and isinstance(args, int):
        args = {"status": args}
    if not isinstance(args, dict):
        raise ScenarioError(f"{where}: arguments of {action} must be a mapping")
    times = _parse_times(times_raw if times_raw is not None else args.pop("times", None), action)
    _check_args(action, args, where)
    return Turn(action=action, args=args, say=say, delay=delay, times=times)


def _parse_times(value: Any, action: str) -> int | None:
    if value is None:
        return None if action in GATES else 1
    if value is True or value == "forever":
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    raise ScenarioError(f"times/repeat must be a positive integer or 'forever', got {value!r}")


def _check_args(action: str, args: dict[str, Any], where: str) -> None:
    required = {
        "write_file": ("path", "content"),
        "run_shell": ("command",),
        "use_skill": ("name",),
        "final": ("text",),
        "error": ("status",),
    }.get(action, ())
    missing = [key for key in required if key not in args]
    if missing:
        raise ScenarioError(f"{where}: {action} needs {', '.join(missing)}")
    if action == "tool" and not (args and all(isinstance(v, dict) for v in args.values())):
        raise ScenarioError(
            f"{where}: tool needs one raw call (a mapping) per client, "
            "keyed by wire API or engine name"
        )
    if action == "stall" and float(args.get("seconds", MAX_STALL_SECONDS)) > MAX_STALL_SECONDS:
        raise ScenarioError(f"{where}: stall is capped at {MAX_STALL_SECONDS:.0f} s")


def parse_scenario(data: Any, name: str = "scenario") -> Scenario:
    """Build a scenario from already-parsed YAML/JSON (a mapping with ``turns``, or a list)."""
    description = ""
    if isinstance(data, dict):
        description = str(data.get("description", ""))
        name = str(data.get("name", name))
        data = data.get("turns")
    if not isinstance(data, list) or not data:
        raise ScenarioError(f"{name}: a scenario needs a non-empty list of turns")
    turns = tuple(_parse_turn(raw, f"{name} turn {i}") for i, raw in enumerate(data))
    return Scenario(name=name, turns=turns, description=description)


def library_names() -> list[str]:
    """Names of the ready scenarios shipped with the package."""
    folder = resources.files("holon_conformance.provider") / "scenarios"
    return sorted(p.name.rsplit(".", 1)[0] for p in folder.iterdir() if p.name.endswith(".yaml"))


def load_scenario(source: str | Path) -> Scenario:
    """A scenario from a file path, or a name from the ready library (``write-and-run``)."""
    path = Path(source)
    if isinstance(source, str) and not path.suffix and "/" not in source:
        folder = resources.files("holon_conformance.provider") / "scenarios"
        entry = folder / f"{source}.yaml"
        if not entry.is_file():
            known = ", ".join(library_names())
            raise ScenarioError(f"unknown scenario {source!r}; ready ones: {known}")
        return parse_scenario(yaml.safe_load(entry.read_text("utf-8")), source)
    if not path.is_file():
        raise ScenarioError(f"scenario file not found: {path}")
    text = path.read_text("utf-8")
    data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    return parse_scenario(data, path.stem)
