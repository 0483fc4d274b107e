"""The results table on the terminal and ``report.md``: per engine, success rate, median
duration and tokens, then every cell."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from holon_core.batch.results import CellResult

OUTCOMES = ("success", "failure", "needs_human")


def terminal_table(results: Sequence[CellResult]) -> str:
    rows = [("cell", "outcome", "reason", "time", "tokens", "files")]
    for r in results:
        rows.append(
            (
                r.cell,
                r.outcome,
                r.reason or "",
                f"{r.duration_seconds:.1f}s",
                _int(r.tokens.get("total")),
                _int(r.files_changed),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    lines += [f"{r.cell}: {r.error}" for r in results if r.outcome != "success" and r.error]
    return "\n".join(lines) + "\n" + summary_line(results) + "\n"


def summary_line(results: Sequence[CellResult]) -> str:
    counts = {o: sum(r.outcome == o for r in results) for o in OUTCOMES}
    return f"{len(results)} cells: " + ", ".join(f"{n} {o}" for o, n in counts.items())


def engine_rows(results: Sequence[CellResult]) -> list[dict[str, object]]:
    """One summary per engine, in the order the engines first appear."""
    rows: list[dict[str, object]] = []
    for engine in dict.fromkeys(r.engine for r in results):
        mine = [r for r in results if r.engine == engine]
        tokens = [t for r in mine if (t := r.tokens.get("total")) is not None]
        costs = [r.cost_usd for r in mine if r.cost_usd is not None]
        rows.append(
            {
                "engine": engine,
                "cells": len(mine),
                **{o: sum(r.outcome == o for r in mine) for o in OUTCOMES},
                "success_rate": sum(r.outcome == "success" for r in mine) / len(mine),
                "median_seconds": statistics.median(r.duration_seconds for r in mine),
                "median_tokens": statistics.median(tokens) if tokens else None,
                "total_tokens": sum(tokens) if tokens else None,
                "cost_usd": sum(costs) if costs else None,
            }
        )
    return rows


def markdown_report(job_name: str, results: Sequence[CellResult]) -> str:
    lines = [f"# holon batch: {job_name}", "", summary_line(results), "", "## By engine", ""]
    lines += [
        "| engine | cells | success | failure | needs human | success rate | median time "
        "| median tokens | total tokens | cost (USD) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in engine_rows(results):
        rate = float(str(row["success_rate"]))
        cost = row["cost_usd"]
        lines.append(
            f"| {row['engine']} | {row['cells']} | {row['success']} | {row['failure']} "
            f"| {row['needs_human']} | {rate:.0%} | {float(str(row['median_seconds'])):.1f}s "
            f"| {_int(row['median_tokens'])} | {_int(row['total_tokens'])} "
            f"| {'' if cost is None else f'{float(str(cost)):.4f}'} |"
        )
    for engine in dict.fromkeys(r.engine for r in results):
        lines += [
            "",
            f"## {engine}",
            "",
            "| cell | outcome | reason | time | tokens | files | tries |",
        ]
        lines.append("|---|---|---|---|---|---|---|")
        for r in (r for r in results if r.engine == engine):
            lines.append(
                f"| {r.cell} | {r.outcome} | {r.reason or ''} | {r.duration_seconds:.1f}s "
                f"| {_int(r.tokens.get('total'))} | {_int(r.files_changed)} | {r.tries} |"
            )
    return "\n".join(lines) + "\n"


def _int(value: object) -> str:
    if isinstance(value, int | float):
        return f"{value:g}" if isinstance(value, float) else str(value)
    return ""
