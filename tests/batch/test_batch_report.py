"""The live progress (terminal or not) and the per-engine figures of report.md."""

from __future__ import annotations

import io
from pathlib import Path

from holon_core.batch.cells import Cell, Task
from holon_core.batch.progress import BatchProgress
from holon_core.batch.report import engine_rows, markdown_report, terminal_table
from holon_core.batch.results import CellResult

TASK = Task("t", Path("/s.yaml"), Path("/w"), None)


def result(engine: str, outcome: str, seconds: float, tokens: int | None) -> CellResult:
    return CellResult(
        f"t.{engine}.{seconds:g}",
        "t",
        engine,
        None,
        1,
        outcome=outcome,
        reason="ok" if outcome == "success" else "engine_error",
        duration_seconds=seconds,
        tokens={"total": tokens},
    )


def test_report_per_engine() -> None:
    rows = [
        result("claude", "success", 10, 100),
        result("claude", "failure", 30, 300),
        result("claude", "success", 20, None),
        result("codex", "needs_human", 5, 50),
    ]
    claude, codex = engine_rows(rows)
    assert claude["success_rate"] == 2 / 3 and claude["median_seconds"] == 20
    assert claude["median_tokens"] == 200 and claude["total_tokens"] == 400
    assert (codex["needs_human"], codex["success_rate"]) == (1, 0.0)
    report = markdown_report("j", rows)
    assert "| claude | 3 | 2 | 1 | 0 | 67% | 20.0s | 200 | 400 |  |" in report
    assert "## codex" in report
    assert terminal_table(rows).endswith("4 cells: 2 success, 1 failure, 1 needs_human\n")


def test_progress_is_live_on_a_terminal_and_plain_lines_otherwise() -> None:
    cell = Cell("t.claude.1", TASK, "claude", None, 1)
    for tty in (True, False):
        stream = io.StringIO()
        progress = BatchProgress(stream, 2, tty=tty)
        progress.start(cell)
        progress.finish(cell, result("claude", "success", 1.5, None))
        progress.close()
        text = stream.getvalue()
        assert "[1/2] t.claude.1: success (ok), 1.5s\n" in text
        assert ("\r\x1b[K" in text) is tty
        assert ("1/2 done, 0 running" in text) is tty
