"""``holon report`` on records of the wrong shape: what an RFC-0002 agent that is not
holon-agent, or an engine writing into its output dir, may leave. The page is still written,
shows what it can, and says what it could not read; nothing of it raises."""

from __future__ import annotations

import json
from pathlib import Path

from .kit import holon_report

ODD_METADATA = {
    "reason": 7,
    "engine": "a string",
    "adapter": ["x"],
    "usage": [1, 2],
    "cost": {"usd": "lots", "source": None},
    "skills": 5,
    "checks": "all fine",
    "tools": {"calls": "many", "failed_commands": "none"},
    "warnings": "one warning",
    "files_changed": True,
}
ODD_EVENTS = [
    "not json at all",
    json.dumps([1, 2, 3]),
    json.dumps({"type": "message", "text": 5, "ts": "soon"}),
    json.dumps({"type": "tool_call", "data": "a string", "tool": ["x"]}),
    json.dumps({"type": "tool_result", "status": 3, "data": {"exit_code": "1", "output": 9}}),
    json.dumps({"type": "tool_call", "tool_id": "a", "data": {"input": {"command": ["ls", 1]}}}),
    json.dumps({"type": "tool_result", "tool_id": "a", "data": {"error": ["x"]}}),
    json.dumps({"type": "stderr", "text": None}),
]
ODD_PATCH = """garbage before any file
diff --git a/bin.dat b/bin.dat
new file mode 100644
index 0000000..1111111
GIT binary patch
literal 3
KcmZQzWMT#Y01f~L

diff --git a/odd name.py b/odd name.py
--- a/odd name.py
+++ b/odd name.py
@@ not a real hunk header
+x = 1
\\ No newline at end of file
"""


def test_a_record_of_the_wrong_shape_still_gives_a_page(tmp_path: Path) -> None:
    out = tmp_path / "output"
    (out / "evidence").mkdir(parents=True)
    manifest = {"status": "failed", "outcome": "failure", "duration": 12,
                "artifacts": "all", "error": ["not", "text"], "metadata": ODD_METADATA}  # fmt: skip
    (out / "manifest.json").write_text(json.dumps(manifest))
    (out / "evidence" / "events.ndjson").write_text("\n".join(ODD_EVENTS) + "\n")
    (out / "evidence" / "model-calls.ndjson").write_text('{"usage": 5, "latency_ms": [1]}\n')
    (out / "diff.patch").write_text(ODD_PATCH)
    (out / "summary.md").write_bytes(b"\xff\xfe not utf-8 \x80\n")

    done = holon_report(tmp_path, out)
    assert done.returncode == 0, done.stderr
    page = (out / "report.html").read_text()
    assert "bin.dat" in page and "binary" in page
    assert "odd name.py" in page


def test_a_results_file_of_the_wrong_shape_still_gives_a_page(tmp_path: Path) -> None:
    results = tmp_path / "job.results"
    (results / "cells").mkdir(parents=True)
    rows = [
        {"cell": "a.x.1", "task": "a", "engine": "x", "outcome": "success", "tokens": [1],
         "duration_seconds": "slow", "cost_usd": "free", "run_dir": 5, "attempt": "one"},
        {"cell": None, "engine": ["y"], "outcome": 3, "run_dir": "/nonexistent"},
        "not an object",
    ]  # fmt: skip
    (results / "results.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\njunk\n")
    (results / "job.json").write_text(json.dumps({"name": ["not", "text"]}))

    done = holon_report(tmp_path, results)
    assert done.returncode == 0, done.stderr
    page = (results / "report.html").read_text()
    assert "a.x.1" in page and "job.results" in page


def test_a_long_error_keeps_the_verdict_on_the_first_screen(tmp_path: Path) -> None:
    """300 lines of error: the first lines, the reason and the figures stay on the first
    screen; the whole error is one click away."""
    from .browser import browser_page

    out = tmp_path / "output"
    out.mkdir()
    error = "\n".join(f"Traceback line {i}" for i in range(300))
    manifest = {"status": "failed", "outcome": "failure", "duration": "3.0s", "artifacts": [],
                "error": error, "metadata": {"reason": "engine_crashed"}}  # fmt: skip
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert holon_report(tmp_path, out).returncode == 0
    with browser_page((out / "report.html").as_uri()) as seen:
        page = seen.page
        facts = page.locator("#facts").bounding_box()
        assert facts is not None and facts["y"] + facts["height"] <= 900
        assert page.get_by_text("Traceback line 7").first.is_visible()
        assert not page.get_by_text("Traceback line 299").is_visible()
        page.get_by_text("the whole error").click()
        assert page.get_by_text("Traceback line 299").is_visible()
        assert seen.errors == []


#: JSON nested deeper than Python's decoder recurses: it raises RecursionError, not ValueError.
TOO_DEEP = "[" * 100_000 + "]" * 100_000


def test_json_nested_too_deep_is_skipped_like_any_damaged_line(tmp_path: Path) -> None:
    """An engine can write JSON nested past the decoder's recursion limit into its output dir:
    the manifest is said to be unreadable and such a line skipped, as for any damaged JSON."""
    out = tmp_path / "output"
    (out / "evidence").mkdir(parents=True)
    (out / "manifest.json").write_text(TOO_DEEP)
    events = [TOO_DEEP, json.dumps({"type": "message", "text": "still shown"})]
    (out / "evidence" / "events.ndjson").write_text("\n".join(events) + "\n")
    (out / "evidence" / "model-calls.ndjson").write_text(TOO_DEEP + "\n")

    done = holon_report(tmp_path, out)
    assert done.returncode == 0, done.stderr
    page = (out / "report.html").read_text()
    assert "still shown" in page
    assert "manifest.json is not JSON" in page
