"""``holon cassette check``: replay a cassette through ``holon run`` and compare with the
recording: outcome, reason, ``diff.patch`` and the tool calls (docs/cassettes.md, "Check").

The replay is a real ``holon run`` (a snapshot of the workspace, the real engine, the
gateway answering from the cassette, strict mode unless told otherwise), so a passing check
is what a user's CI would see. The workspace must be at the recorded baseline: the replay's
``metadata.baseline.tree`` is compared with the cassette's first, and a different tree is
reported as such rather than as a changed diff.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from holon_core.cassette.format import Cassette, CassetteError, read_cassette


@dataclass
class CheckResult:
    """What a check found: ``differences`` empty means the replay agrees."""

    cassette: Path
    output: Path
    differences: list[str] = field(default_factory=list)
    outcome: str | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return not self.differences

    def report(self) -> str:
        head = f"cassette {self.cassette}: replayed, {self.outcome} ({self.reason})"
        if self.ok:
            return head + "; outcome, reason, diff.patch and tool calls agree with the recording"
        lines = [head + f"; {len(self.differences)} difference(s) from the recording:"]
        lines += [f"  - {difference}" for difference in self.differences]
        lines.append(f"  the replay's record: {self.output}")
        return "\n".join(lines)


#: Runs the replay: (spec file, the settings for the agent) -> the replay's output dir.
#: ``holon cassette check`` gives one that calls ``holon run`` (the runner is a layer above).
Replayer = Callable[[Path, dict[str, str]], Path]


def check_cassette(root: Path, replayer: Replayer, *, mode: str = "strict") -> CheckResult:
    """Replay ``root`` with ``replayer`` and compare the result with the recording."""
    cassette = read_cassette(root)
    scratch = Path(tempfile.mkdtemp(prefix="holon-cassette-check-"))
    spec = _write_spec(cassette, scratch)
    output = replayer(spec, {"HOLON_CASSETTE": str(root), "HOLON_CASSETTE_MODE": mode})
    checked = CheckResult(root, output)
    checked.differences = compare(cassette, output, checked)
    return checked


def _write_spec(cassette: Cassette, scratch: Path) -> Path:
    extra = [entry.path for entry in cassette.info.input if entry.path != "spec.yaml"]
    if extra:
        raise CassetteError(
            f"the recorded run's input held files besides spec.yaml ({', '.join(extra[:5])}); "
            "the cassette lists them but does not keep them",
            hint="replay it with holon run --cassette DIR and the same input instead",
        )
    spec = scratch / "spec.yaml"
    spec.write_text(yaml.safe_dump(cassette.info.spec, sort_keys=False), encoding="utf-8")
    return spec


def compare(cassette: Cassette, output: Path, checked: CheckResult) -> list[str]:
    """The differences between the recording and a replay's output dir."""
    info = cassette.info
    try:
        manifest = json.loads((output / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        return [f"the replay left no readable manifest.json in {output} ({exc})"]
    meta: dict[str, Any] = manifest.get("metadata") or {}
    differences = []
    recorded_tree = info.baseline.tree if info.baseline is not None else None
    tree = (meta.get("baseline") or {}).get("tree")
    if recorded_tree and tree and tree != recorded_tree:
        differences.append(
            f"the workspace is not at the recorded baseline (tree {tree[:12]}, recorded "
            f"{recorded_tree[:12]}): check out the recorded commit or pass --workspace"
        )
    reason = meta.get("reason")
    checked.outcome, checked.reason = manifest.get("outcome"), reason
    if (manifest.get("outcome"), reason) != (info.outcome, info.reason):
        differences.append(
            f"outcome {manifest.get('outcome')} ({reason}), recorded {info.outcome} "
            f"({info.reason})" + (f": {manifest.get('error')}" if manifest.get("error") else "")
        )
    patch = output / "diff.patch"
    replayed = patch.read_text() if patch.is_file() else ""
    if replayed != cassette.diff():
        differences.append(_patch_difference(cassette.diff(), replayed))
    differences += _tool_differences(cassette, output)
    return differences


def _patch_difference(recorded: str, replayed: str) -> str:
    import difflib

    lines = list(
        difflib.unified_diff(
            recorded.splitlines(), replayed.splitlines(), "recorded", "replayed", lineterm="", n=0
        )
    )
    shown = "\n      ".join(lines[2:12])
    return f"diff.patch differs ({len(lines) - 2} diff lines):\n      {shown}"


def _tool_differences(cassette: Cassette, output: Path) -> list[str]:
    recorded = [(t.tool, t.ok) for t in cassette.info.tool_calls]
    replayed = replayed_tools(output)
    if replayed == recorded:
        return []
    return [f"tool calls differ: recorded {_tools(recorded)}, replayed {_tools(replayed)}"]


def replayed_tools(output: Path) -> list[tuple[str | None, bool]]:
    """(tool, ok) of each finished tool call in the replay's ``evidence/events.ndjson``, in
    order; a later result of the same call (an amended one, e.g. Gemini's exit codes read
    from its session log) corrects the earlier."""
    path = output / "evidence" / "events.ndjson"
    found: dict[object, tuple[str | None, bool]] = {}
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return []
    for number, line in enumerate(lines):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "tool_result":
            key = event.get("tool_id") or f"line {number}"
            found[key] = (event.get("tool"), event.get("status") == "ok")
    return list(found.values())


def _tools(calls: list[tuple[str | None, bool]]) -> str:
    return "[" + ", ".join(f"{tool}{'' if ok else ' (failed)'}" for tool, ok in calls) + "]"
