"""What the step reports, read back from the record holon left in the output dir.

Read with caps and without following links (``read_regular``): the output dir holds what an
engine wrote too. No ``manifest.json`` (holon stopped before the agent could write one, or
the action's own inputs were refused) is a failure whose reason says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holon_core.untrusted.files import read_regular
from holon_core.untrusted.json_files import integer, number, obj, read_json_object

_MANIFEST_CAP = 8 * 1024 * 1024
_PATCH_CAP = 8 * 1024 * 1024
_SUMMARY_CAP = 64 * 1024
#: The most file names the summary lists (the count is always whole).
MAX_FILES = 50
_DIFF_HEADER = re.compile(r"^diff --git a/(.*) b/(.*)$", re.MULTILINE)
_EXIT_CODES = {"success": 0, "failure": 1, "needs_human": 2}


@dataclass
class RunResult:
    """The step's figures: its outputs and what the job summary shows."""

    outcome: str
    reason: str
    exit_code: int
    error: str | None = None
    engine: str | None = None
    model: str | None = None
    duration: str | None = None
    cost_usd: float | None = None
    cost_source: str | None = None
    tokens: int | None = None
    files_changed: int | None = None
    files: list[str] = field(default_factory=list)
    summary: str | None = None
    manifest: Path | None = None
    patch: Path | None = None
    report: Path | None = None
    trajectory: Path | None = None
    pull_request: str | None = None


def refused(reason: str, error: str) -> RunResult:
    """The result of a step that ran nothing (its inputs were refused)."""
    return RunResult("failure", reason, 1, error=error)


def read_result(output: Path, exit_code: int | None) -> RunResult:
    """The result of the run whose output dir is ``output``; ``exit_code`` is holon's."""
    manifest = read_json_object(output / "manifest.json", _MANIFEST_CAP)
    if manifest is None:
        code = 1 if exit_code is None or exit_code == 0 else exit_code
        return RunResult(
            "failure",
            "no_manifest",
            code,
            error=f"holon left no readable manifest.json in {output} (exit code {exit_code}); "
            "the step's log above says why",
        )
    meta = obj(manifest.get("metadata"))
    outcome = str(manifest.get("outcome") or "failure")
    result = RunResult(
        outcome,
        str(meta.get("reason") or "unknown"),
        exit_code if exit_code is not None else _EXIT_CODES.get(outcome, 1),
        error=_text(manifest.get("error")) or _text(meta.get("detail")),
        duration=_text(manifest.get("duration")),
        manifest=output / "manifest.json",
    )
    _figures(result, meta)
    patch = read_regular(output / "diff.patch", _PATCH_CAP)
    if patch is not None:
        result.patch = output / "diff.patch"
        names = [m.group(2) for m in _DIFF_HEADER.finditer(patch.decode("utf-8", "replace"))]
        result.files = list(dict.fromkeys(names))
    summary = read_regular(output / "summary.md", _SUMMARY_CAP)
    if summary is not None:
        result.summary = summary[:_SUMMARY_CAP].decode("utf-8", "replace")
    result.pull_request = _pull_request(
        read_json_object(output / "publish-result.json", _MANIFEST_CAP)
    )
    for name, attr in (("report.html", "report"), ("evidence/trajectory.json", "trajectory")):
        if (output / name).is_file() and not (output / name).is_symlink():
            setattr(result, attr, output / name)
    return result


def _figures(result: RunResult, meta: dict[str, Any]) -> None:
    engine = obj(meta.get("engine"))
    result.engine, result.model = _text(engine.get("name")), _text(engine.get("model"))
    cost = obj(meta.get("cost"))
    result.cost_usd = number(cost.get("usd"))
    result.cost_source = _text(cost.get("source"))
    usage = obj(meta.get("usage"))
    given, made = integer(usage.get("input_tokens")), integer(usage.get("output_tokens"))
    result.tokens = integer(usage.get("total_tokens"))
    if result.tokens is None and given is not None and made is not None:
        result.tokens = given + made
    result.files_changed = integer(meta.get("files_changed"))


def _pull_request(published: dict[str, Any] | None) -> str | None:
    """The pull request ``holon solve --publish`` opened or updated (publish-result.json)."""
    actions = published.get("actions") if published else None
    for action in actions if isinstance(actions, list) else []:
        if isinstance(action, dict) and action.get("action") == "pull_request":
            url = action.get("url")
            if isinstance(url, str) and url.startswith(("https://", "http://")):
                return url
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
