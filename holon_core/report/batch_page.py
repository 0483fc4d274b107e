"""The page of a batch: per-engine charts, the task x engine grid, every cell, filters.

Each grid entry links to its cell's own run page (written beside that cell's record by
``write.write_batch_report``). The filters (outcome checkboxes, a reason menu) hide grid
entries and table rows; they need the page's script, and without it everything is shown.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from holon_core._version import __version__
from holon_core.batch.report import engine_rows, summary_line
from holon_core.batch.results import CellResult
from holon_core.report.charts import Bar, bar_chart
from holon_core.report.load import BatchRecord
from holon_core.report.markup import Markup, href, join, tag
from holon_core.report.page import document
from holon_core.report.run_page import OUTCOMES
from holon_core.untrusted.json_files import integer, obj


def render(batch: BatchRecord, report_dir: Path, pages: Mapping[str, Path]) -> str:
    """``pages``: each cell id's run page, for the links."""
    results = [_result(row) for row in batch.rows]
    links = {cell: href(os.path.relpath(page, report_dir)) for cell, page in pages.items()}
    body = join(
        [
            tag("div", "holon · batch report", class_="brand"),
            tag("h1", batch.name),
            tag("p", summary_line(results) if results else "No cell has a result yet."),
            _charts(results),
            _filters(results),
            _grid(results, links),
            _cells(results, links),
            tag("footer", f"Written by holon {__version__} from {batch.results_dir}"),
        ]
    )
    return document(f"{batch.name} · holon batch", body)


def _result(row: dict[str, Any]) -> CellResult:
    """A results.jsonl line as a cell result, each field checked for its type."""
    text = {k: str(row[k]) for k in ("cell", "task", "engine") if row.get(k) is not None}
    result = CellResult(
        text.get("cell", "?"),
        text.get("task", "?"),
        text.get("engine", "?"),
        _opt_str(row.get("model")),
        integer(row.get("attempt")) or 1,
    )
    result.outcome = str(row.get("outcome") or "failure")
    result.reason = _opt_str(row.get("reason"))
    duration = row.get("duration_seconds")
    result.duration_seconds = float(duration) if isinstance(duration, int | float) else 0.0
    result.tokens = {k: integer(v) for k, v in obj(row.get("tokens")).items()}
    cost = row.get("cost_usd")
    result.cost_usd = float(cost) if isinstance(cost, int | float) else None
    result.files_changed = integer(row.get("files_changed"))
    result.error = _opt_str(row.get("error"))
    return result


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _charts(results: list[CellResult]) -> Markup | None:
    if not results:
        return None
    rows = engine_rows(results)
    names = [str(r["engine"]) for r in rows]
    rate = [
        Bar(n, 100 * float(str(r["success_rate"])), f"{float(str(r['success_rate'])):.0%}")
        for n, r in zip(names, rows, strict=True)
    ]
    cost = [
        Bar(n, c, f"${c:.4f}")
        if isinstance(c := r["cost_usd"], float | int)
        else Bar(n, None, "n/a")
        for n, r in zip(names, rows, strict=True)
    ]
    seconds = [
        Bar(n, float(str(r["median_seconds"])), f"{float(str(r['median_seconds'])):.1f} s")
        for n, r in zip(names, rows, strict=True)
    ]
    return join(
        [
            tag("h2", "By engine", id="engines"),
            tag(
                "div",
                bar_chart("Success rate", rate, maximum=100, tone="ok"),
                bar_chart("Cost (all cells, USD)", cost, tone="cost"),
                bar_chart("Median duration", seconds, tone="time"),
                class_="charts",
            ),
        ]
    )


def _filters(results: list[CellResult]) -> Markup | None:
    if not results:
        return None
    boxes = [
        tag(
            "label",
            tag("input", type="checkbox", value=o, checked=True, data_outcome_filter=o),
            " ",
            o.replace("_", " "),
        )
        for o in OUTCOMES
    ]
    reasons = sorted({r.reason or "" for r in results})
    menu = tag(
        "select",
        tag("option", "every reason", value=""),
        [tag("option", reason, value=reason) for reason in reasons if reason],
        id="reason-filter",
    )
    return tag(
        "div",
        tag("strong", "Show"),
        boxes,
        tag("label", "reason ", menu),
        tag("span", "", id="filter-count", class_="muted"),
        class_="filters",
    )


def _grid(results: list[CellResult], links: Mapping[str, str]) -> Markup | None:
    if not results:
        return None
    engines = list(dict.fromkeys(r.engine for r in results))
    tasks = list(dict.fromkeys(r.task for r in results))
    head = tag("tr", tag("th", "task"), [tag("th", e) for e in engines])
    rows = []
    for task in tasks:
        cells = []
        for engine in engines:
            mine = [r for r in results if r.task == task and r.engine == engine]
            cells.append(tag("td", [_run_link(r, links) for r in mine] or "-"))
        rows.append(tag("tr", tag("th", task), cells))
    return join(
        [
            tag("h2", "Tasks by engine", id="grid"),
            tag("table", tag("thead", head), tag("tbody", rows), class_="grid"),
        ]
    )


def _run_link(result: CellResult, links: Mapping[str, str]) -> Markup:
    label = [
        tag("span", result.outcome.replace("_", " "), class_=f"badge {_tone(result.outcome)}"),
        tag("span", result.reason or "", class_="reason"),
    ]
    if result.model:
        label.append(tag("span", result.model, class_="muted"))
    attrs = {"data_outcome": result.outcome, "data_reason": result.reason or ""}
    link = links.get(result.cell)
    if link is None:
        return tag("span", label, class_="run", title=result.cell, **attrs)
    return tag("a", label, class_="run", href=link, title=result.cell, **attrs)


def _cells(results: list[CellResult], links: Mapping[str, str]) -> Markup | None:
    if not results:
        return None
    titles = ("cell", "outcome", "reason", "time", "tokens", "cost", "files", "error")
    head = tag(
        "tr",
        [
            tag("th", t, class_="num" if t in ("time", "tokens", "cost", "files") else None)
            for t in titles
        ],
    )
    rows = []
    for r in results:
        link = links.get(r.cell)
        name = tag("a", r.cell, href=link) if link else r.cell
        total = r.tokens.get("total")
        rows.append(
            tag(
                "tr",
                tag("td", name, class_="mono"),
                tag(
                    "td",
                    tag("span", r.outcome.replace("_", " "), class_=f"badge {_tone(r.outcome)}"),
                ),
                tag("td", r.reason or "", class_="mono"),
                tag("td", f"{r.duration_seconds:.1f} s", class_="num"),
                tag("td", f"{total:,}" if isinstance(total, int) else "", class_="num"),
                tag("td", f"${r.cost_usd:.4f}" if r.cost_usd is not None else "", class_="num"),
                tag("td", "" if r.files_changed is None else str(r.files_changed), class_="num"),
                tag("td", r.error or "", class_="muted"),
                data_outcome=r.outcome,
                data_reason=r.reason or "",
            )
        )
    return join(
        [
            tag("h2", f"Every cell ({len(results)})", id="cells"),
            tag("table", tag("thead", head), tag("tbody", rows), class_="cells"),
        ]
    )


def _tone(outcome: str) -> str:
    return outcome if outcome in OUTCOMES else "plain"
