"""The detail sections of a run's page: summary, conversation, changes, skills, model calls,
checks and the links to the raw evidence."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from holon_core.report import diff_view, timeline
from holon_core.report.load import RunRecord, evidence_files
from holon_core.report.markup import Markup, href, join, tag
from holon_core.untrusted.json_files import obj, objects

#: Output longer than this many lines (or characters) is folded behind its step's summary.
FOLD_LINES = 12
FOLD_CHARS = 1_200
#: Output shown per tool call; the rest is in evidence/events.ndjson.
OUTPUT_SHOWN = 64 * 1024
#: Files whose diffs are open on load; more than this and all start folded.
OPEN_FILES = 12


def failed_commands(record: RunRecord) -> Markup | None:
    tools = record.meta.get("tools")
    failed = tools.get("failed_commands") if isinstance(tools, dict) else None
    if not isinstance(failed, list) or not failed:
        return None
    rows = []
    for item in failed:
        if not isinstance(item, dict):
            continue
        code = item.get("exit_code")
        why = f"exit {code}" if code is not None else str(item.get("error") or "failed")
        rows.append(
            tag(
                "li",
                tag("code", str(item.get("command") or "")),
                " ",
                tag("span", why, class_="badge failure"),
            )
        )
    return join(
        [
            tag("p", "Commands that failed:", class_="muted"),
            tag("ul", rows, class_="plain", id="failed-commands"),
        ]
    )


def summary(record: RunRecord) -> Markup | None:
    """summary.md, open when the engine wrote it; holon's own repeats this page, so folded."""
    text = record.summary.value
    if not text:
        return None
    by_engine = record.meta.get("summary_source") == "engine"
    label = "summary.md, written by the engine" if by_engine else "summary.md, written by holon"
    return join(
        [
            tag("h2", "Summary", id="summary"),
            tag(
                "details",
                tag("summary", label),
                tag("pre", text.strip()),
                class_="summary",
                open=by_engine,
            ),
        ]
    )


def conversation(record: RunRecord) -> Markup:
    line = timeline.build(record.events, record.network)
    head = tag("h2", f"Conversation ({len(line.steps)} steps)", id="conversation")
    if not line.steps:
        return join(
            [
                head,
                tag(
                    "p",
                    "No conversation was recorded (evidence/events.ndjson is missing or empty).",
                    class_="muted",
                ),
            ]
        )
    toolbar = tag(
        "div",
        tag("button", "Expand all tool calls", type="button", data_fold="open"),
        tag("button", "Collapse all", type="button", data_fold="closed"),
        class_="toolbar",
    )
    # paths in the snapshot are shown relative to it in the one-line summaries
    snapshot = f"{record.run_dir}/workspace/" if record.run_dir is not None else None
    steps = [_step(step, snapshot) for step in line.steps]
    cut = []
    if line.left_out or record.events_cut:
        cut.append(
            tag(
                "div",
                "The conversation is longer than shown here: the rest is in "
                "evidence/events.ndjson.",
                class_="notice",
            )
        )
    return join([head, toolbar, tag("div", steps, class_="timeline"), cut])


def _step(step: timeline.Step, snapshot: str | None) -> Markup:
    if isinstance(step, timeline.ToolStep):
        return _tool_step(step, snapshot)
    if step.kind == "stderr":
        lines = step.lines
        text = "\n".join(lines)
        body = (
            tag("pre", text)
            if len(lines) <= 3
            else tag("details", tag("summary", f"{len(lines)} lines on stderr"), tag("pre", text))
        )
        return tag("div", tag("div", "engine stderr", class_="who"), body, class_="said stderr")
    who = {"message": "assistant", "result": "final answer"}.get(step.kind, step.kind)
    return tag(
        "div",
        tag("div", who, class_="who"),
        tag("pre", step.text, class_="text"),
        class_=f"said {step.kind}",
    )


def _tool_step(step: timeline.ToolStep, snapshot: str | None) -> Markup:
    code = step.exit_code
    if step.status is None:
        state = tag("span", "no result", class_="badge plain")
    elif code is not None:
        state = tag(
            "span", f"exit {code}", class_=f"badge {'failure' if step.failed else 'success'}"
        )
    else:
        state = tag(
            "span",
            "failed" if step.failed else "ok",
            class_=f"badge {'failure' if step.failed else 'success'}",
        )
    output = step.output
    long = output.count("\n") > FOLD_LINES or len(output) > FOLD_CHARS
    body = [
        tag("div", "command" if step.command is not None else "input", class_="label"),
        tag("pre", step.command if step.command is not None else _input(step.call)),
    ]
    if step.error:
        body += [tag("div", "error", class_="label"), tag("pre", step.error)]
    if output:
        shown = output[:OUTPUT_SHOWN]
        more = f" (first {OUTPUT_SHOWN // 1024} KiB)" if len(output) > OUTPUT_SHOWN else ""
        body += [tag("div", f"output{more}", class_="label"), tag("pre", shown, class_="output")]
    if step.network:
        body += [tag("div", "network (the room's proxy)", class_="label"), _attempts(step)]
    denied = (
        [tag("span", f"{step.denied} denied", class_="badge failure denied")] if step.denied else []
    )
    return tag(
        "details",
        tag(
            "summary",
            tag("span", step.tool, class_="tool"),
            tag(
                "span",
                step.subject.replace(snapshot, "") if snapshot else step.subject,
                class_="subject mono",
            ),
            state,
            denied,
        ),
        tag("div", body, class_="body"),
        class_=f"step{' failed' if step.failed else ''}",
        open=(step.failed or bool(step.denied)) and not long,
        data_tool_id=step.tool_id,
    )


def _attempts(step: timeline.ToolStep) -> Markup:
    """The connections a tool call tried, denied ones first: verdict, host, why."""
    items = []
    for attempt in _denied_first(step.network):
        where, verdict, why = _cells(attempt)
        line = [tag("span", verdict, class_="verdict"), f" {where}: ", why]
        items.append(tag("li", line, class_=f"attempt {verdict}"))
    return tag("ul", items, class_="network")


def _denied_first(attempts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(attempts, key=lambda a: a.get("allowed") is True)


def _cells(attempt: dict[str, Any]) -> tuple[str, str, str]:
    """One egress-proxy attempt as (host:port, allowed or denied, why) for both views."""
    where = f"{attempt.get('host') or '?'}:{attempt.get('port') or '?'}"
    verdict = "allowed" if attempt.get("allowed") is True else "denied"
    return where, verdict, str(attempt.get("error") or attempt.get("why") or "")


def _input(call: dict[str, Any]) -> str:
    given = call.get("input", call)
    return json.dumps(given, indent=2, ensure_ascii=False, default=str)


def changes(record: RunRecord) -> Markup:
    patch = record.diff.value
    files = diff_view.split(patch) if patch else []
    head = tag("h2", f"Changes ({_files(len(files))})", id="changes")
    if not files:
        why = "diff.patch is missing" if patch is None else "The engine changed no file."
        return join([head, tag("p", why, class_="muted")])
    blocks = []
    for diff in files:
        stat = [
            tag("span", f"+{diff.added}", class_="stat-add"),
            tag("span", f"-{diff.removed}", class_="stat-del"),
        ]
        blocks.append(
            tag(
                "details",
                tag(
                    "summary",
                    tag("span", diff.name),
                    tag("span", diff.status, class_="muted"),
                    stat,
                ),
                diff_view.render_file(diff),
                class_="file",
                open=len(files) <= OPEN_FILES,
            )
        )
    cut = (
        tag("div", "diff.patch is larger than shown here.", class_="notice")
        if record.diff.cut
        else None
    )
    return join([head, join(blocks), cut])


def skills(record: RunRecord) -> Markup | None:
    found = objects(record.meta.get("skills"))
    if not found:
        return None
    seen_words = {True: "yes", False: "no", None: "cannot tell"}
    rows = [
        tag(
            "tr",
            tag("td", str(s.get("name"))),
            tag("td", str(s.get("version") or "")),
            tag("td", str(s.get("source") or "")),
            tag("td", str(s.get("staging") or "")),
            tag("td", seen_words.get(s.get("seen_by_engine"), str(s.get("seen_by_engine")))),
        )
        for s in found
    ]
    header = tag(
        "tr", [tag("th", h) for h in ("skill", "version", "from", "staged", "seen by the engine")]
    )
    return join(
        [
            tag("h2", f"Skills ({len(found)})", id="skills"),
            tag("table", tag("thead", header), tag("tbody", rows)),
        ]
    )


def model_calls(record: RunRecord) -> Markup | None:
    calls = record.model_calls
    if not calls:
        return None
    header = tag(
        "tr",
        [
            tag("th", h, class_=c)
            for h, c in (
                ("time", None),
                ("model", None),
                ("status", None),
                ("tokens in", "num"),
                ("tokens out", "num"),
                ("cost", "num"),
                ("latency", "num"),
            )
        ],
    )
    rows = []
    for call in calls:
        usage, latency = obj(call.get("usage")), obj(call.get("latency_ms"))
        cost = call.get("cost_usd")
        total = latency.get("total")
        rows.append(
            tag(
                "tr",
                tag("td", str(call.get("time") or "")),
                tag("td", str(call.get("model") or "")),
                tag("td", str(call.get("status") or call.get("error") or "")),
                tag("td", str(usage.get("input_tokens", "")), class_="num"),
                tag("td", str(usage.get("output_tokens", "")), class_="num"),
                tag("td", f"${cost:.4f}" if isinstance(cost, int | float) else "", class_="num"),
                tag(
                    "td", f"{total:.0f} ms" if isinstance(total, int | float) else "", class_="num"
                ),
            )
        )
    table = tag("table", tag("thead", header), tag("tbody", rows))
    return join(
        [
            tag("h2", f"Model calls ({len(calls)})", id="model-calls"),
            tag("details", tag("summary", "Every call through holon's model gateway"), table),
        ]
    )


def network(record: RunRecord) -> Markup | None:
    """The room's egress proxy: what the engine's tools tried to reach, denied ones first."""
    attempts = record.network
    if not attempts:
        return None
    header = tag("tr", [tag("th", h) for h in ("time", "host", "verdict", "why")])
    rows = [
        tag("tr", tag("td", str(a.get("time") or "")), [tag("td", cell) for cell in _cells(a)])
        for a in _denied_first(attempts)
    ]
    denied = sum(1 for a in attempts if a.get("allowed") is not True)
    table = tag("table", tag("thead", header), tag("tbody", rows))
    words = f"{denied} denied, {len(attempts) - denied} allowed"
    return join(
        [
            tag("h2", f"Network ({words})", id="network"),
            tag("details", tag("summary", "Every connection through the room's proxy"), table),
        ]
    )


def checks(record: RunRecord) -> Markup | None:
    found = objects(record.meta.get("checks"))
    if not found:
        return None
    found.sort(key=lambda c: bool(c.get("ok")))
    rows = [
        tag(
            "tr",
            tag(
                "td",
                tag(
                    "span",
                    "ok" if c.get("ok") else "failed",
                    class_=f"badge {'success' if c.get('ok') else 'failure'}",
                ),
            ),
            tag("td", str(c.get("name"))),
            tag("td", str(c.get("detail") or "")),
            tag("td", str(c.get("hint") or "")),
        )
        for c in found
    ]
    return join(
        [tag("h2", "Checks before the launch", id="checks"), tag("table", tag("tbody", rows))]
    )


def evidence(record: RunRecord, report_dir: Path) -> Markup:
    paths = [record.output_dir / name for name in evidence_files(record.output_dir)]
    if record.run_dir is not None:  # holon run writes run.json right after the report
        known = {"run.json": record.verdict is not None}
        paths += [
            record.run_dir / n
            for n in ("run.json", "agent.stderr.log")
            if (record.run_dir / n).is_file() or known.get(n)
        ]
    items = [
        tag(
            "li",
            tag("a", os.path.relpath(p, report_dir), href=href(os.path.relpath(p, report_dir))),
        )
        for p in paths
    ]
    return join(
        [
            tag("h2", "Raw evidence", id="evidence"),
            tag("p", "The files this page was made from, beside it:", class_="muted"),
            tag("ul", items, class_="plain mono"),
        ]
    )


def _files(count: int) -> str:
    return "1 file" if count == 1 else f"{count} files"
