"""The page of one run: why it ended as it did first, then the figures, then the detail.

The first screen answers "what happened and why": the outcome, its reason code, the reason
in plain words, the error or detail the record gives, and the commands that failed. Below:
engine, model, duration, tokens, cost; warnings; the summary; then ``run_sections``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from holon_core._version import __version__
from holon_core.report import run_sections
from holon_core.report.explain import explain
from holon_core.report.load import RunRecord
from holon_core.report.markup import Markup, join, tag
from holon_core.report.page import document
from holon_core.untrusted.json_files import integer, obj, objects

OUTCOMES = ("success", "failure", "needs_human")
_GOAL_SHOWN = 600
_ERROR_LINES = 8
_ERROR_CHARS = 1_200


def render(record: RunRecord, report_dir: Path) -> str:
    title, goal = _task(record)
    outcome, reason = verdict_of(record)
    body = join(
        [
            tag("div", "holon · run report", class_="brand"),
            tag("h1", title),
            _goal(goal) if goal != title else None,
            _verdict(record, outcome, reason),
            _facts(record),
            _warnings(record),
            run_sections.summary(record),
            run_sections.conversation(record),
            run_sections.changes(record),
            run_sections.skills(record),
            run_sections.model_calls(record),
            run_sections.network(record),
            run_sections.checks(record),
            run_sections.evidence(record, report_dir),
            tag("footer", f"Written by holon {__version__} from {record.output_dir}"),
        ]
    )
    return document(f"{outcome} ({reason}) · {title} · holon", body)


def verdict_of(record: RunRecord) -> tuple[str, str]:
    """``holon run``'s verdict when there is one (it checks the agent's record), else the
    manifest's own."""
    source = record.verdict or {}
    outcome = source.get("outcome") or (record.manifest or {}).get("outcome")
    reason = source.get("reason") or record.meta.get("reason")
    if record.manifest is None and record.verdict is None:
        return "failure", "missing_manifest"
    return str(outcome or "failure"), str(reason or "")


def _task(record: RunRecord) -> tuple[str, str | None]:
    """The page's title and the task's goal, from the spec holon run kept."""
    name = obj(record.task.get("metadata")).get("name")
    goal = record.task.get("goal")
    if isinstance(goal, dict):  # the v1 spec's long form
        goal = goal.get("description")
    goal = goal.strip() if isinstance(goal, str) else None
    if not name or name == "goal":  # holon run --goal names every task "goal"
        name = goal.splitlines()[0][:100] if goal else None
    run_id = (record.verdict or {}).get("run_id")
    title = str(name or (f"run {run_id}" if run_id else record.output_dir.name))
    return title, goal


def _goal(goal: str | None) -> Markup | None:
    if not goal:
        return None
    if len(goal) <= _GOAL_SHOWN:
        return tag("p", tag("span", "Task: ", class_="muted"), goal)
    return tag(
        "details",
        tag("summary", tag("span", "Task: ", class_="muted"), goal[:_GOAL_SHOWN] + "…"),
        tag("pre", goal),
    )


def _verdict(record: RunRecord, outcome: str, reason: str) -> Markup:
    tone = outcome if outcome in OUTCOMES else "plain"
    verdict = record.verdict or {}
    error = verdict.get("error") or verdict.get("detail")
    if error is None:
        error = (record.manifest or {}).get("error") or record.meta.get("detail")
    problems = [p.get("message") for p in objects(verdict.get("problems"))]
    agent_said = (record.manifest or {}).get("outcome")
    differs = record.verdict is not None and agent_said and agent_said != outcome
    return tag(
        "section",
        tag("span", outcome.replace("_", " "), class_=f"badge {tone}"),
        tag("span", reason, class_="reason") if reason else None,
        tag("p", explain(reason), class_="why"),
        _error(str(error)) if error else None,
        tag(
            "p",
            f"The agent's own record says {agent_said}; holon run's checks decided {outcome}.",
            class_="muted",
        )
        if differs
        else None,
        _list("Problems holon run found", [str(p) for p in problems if p and p != error]),
        run_sections.failed_commands(record),
        tag("p", f"The record could not be read: {record.manifest_problem}", class_="muted")
        if record.manifest is None and record.manifest_problem
        else None,
        class_=f"verdict {tone}",
        id="verdict",
    )


def _error(error: str) -> Markup:
    """The error, its first lines only when long: the verdict stays on the first screen."""
    lines = error.splitlines()
    if len(lines) <= _ERROR_LINES and len(error) <= _ERROR_CHARS:
        return tag("pre", error, class_="error")
    head = "\n".join(lines[:_ERROR_LINES])[:_ERROR_CHARS]
    return tag(
        "div",
        tag("pre", head + " …"),
        tag("details", tag("summary", "the whole error"), tag("pre", error)),
        class_="error",
    )


def _facts(record: RunRecord) -> Markup:
    meta = record.meta
    engine = obj(meta.get("engine"))
    usage = obj(meta.get("usage"))
    tools = obj(meta.get("tools"))
    verdict = record.verdict or {}
    name = engine.get("name") or verdict.get("engine") or obj(meta.get("adapter")).get("name")
    facts: list[tuple[str, Any, str | None]] = [
        ("Engine", name or "unknown", engine.get("version")),
        ("Model", engine.get("model") or "not recorded", None),
        ("Duration", _duration(record), None),
        ("Tokens", *_tokens(usage)),
        ("Cost", *_cost(meta)),
        ("Files changed", _count(meta.get("files_changed", verdict.get("files_changed"))), None),
        (
            "Tool calls",
            _count(tools.get("calls")),
            f"{tools.get('failed')} failed" if tools.get("failed") else None,
        ),
    ]
    if usage.get("model_calls") is not None:
        facts.append(("Model calls", _count(usage.get("model_calls")), "through the gateway"))
    items = [
        tag(
            "div",
            tag("dt", label),
            tag("dd", str(value), " ", tag("small", note) if note else None),
        )
        for label, value, note in facts
    ]
    return tag("dl", join(items), class_="facts", id="facts")


def _warnings(record: RunRecord) -> Markup | None:
    found = [
        *_strings(record.meta.get("warnings")),
        *_strings((record.verdict or {}).get("warnings")),
    ]
    if not found:
        return None
    notes = [tag("div", w, class_="notice") for w in dict.fromkeys(found)]
    return join([tag("h2", f"Warnings ({len(notes)})", id="warnings"), join(notes)])


def _duration(record: RunRecord) -> str:
    seconds = (record.verdict or {}).get("duration_seconds")
    if not isinstance(seconds, int | float):
        text = str((record.manifest or {}).get("duration") or "")
        try:
            seconds = float(text.rstrip("s"))
        except ValueError:
            return "not recorded"
    minutes, rest = divmod(float(seconds), 60)
    return f"{int(minutes)} min {rest:.0f} s" if minutes else f"{rest:.1f} s"


def _tokens(usage: dict[str, Any]) -> tuple[str, str | None]:
    total = usage.get("total_tokens")
    given, made = usage.get("input_tokens"), usage.get("output_tokens")
    if total is None and isinstance(given, int) and isinstance(made, int):
        total = given + made
    if total is None:
        return "not reported", None
    note = f"{_count(given)} in · {_count(made)} out" if given is not None else None
    return _count(total), note


def _cost(meta: dict[str, Any]) -> tuple[str, str | None]:
    cost = obj(meta.get("cost"))
    usd = cost.get("usd")
    source = cost.get("source")
    if not isinstance(usd, int | float):
        return "not known", "no price" if source == "unavailable" else source
    return f"${usd:,.4f}", {
        "gateway": "metered by holon",
        "reported": "as the engine reported",
        "estimated": "estimated",
    }.get(str(source), source)


def _list(title: str, items: list[str]) -> Markup | None:
    if not items:
        return None
    return join(
        [tag("p", title, class_="muted"), tag("ul", [tag("li", i) for i in items], class_="plain")]
    )


def _count(value: Any) -> str:
    count = integer(value)
    return "-" if count is None else f"{count:,}"


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []
