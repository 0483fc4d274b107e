"""The room's network attempts in ``report.html``: each under the tool call that made it
(issue 33: "the HTML report shows denied attempts next to the tool call that made them"),
opened in a real browser (Debian's Chromium via Playwright)."""

from __future__ import annotations

import json
from pathlib import Path

from holon_core.report.timeline import ToolStep, build

from .browser import browser_page, only_file_requests
from .kit import replay_run

DENIED = "denied.holon-report.example"
QUIET = "echo no network here"
REACHING = f"curl -sS -m 10 http://{DENIED}/ || echo refused"


def test_a_denied_attempt_is_shown_under_the_tool_call_that_made_it(tmp_path: Path) -> None:
    script = [{"run": QUIET}, {"run": REACHING}, {"run": QUIET}, {"say": "done"}]
    result = replay_run(tmp_path, script, {"goal": "reach out"})
    output = Path(result["paths"]["manifest"]).parent
    attempts = [
        json.loads(line)
        for line in (output / "evidence" / "network.ndjson").read_text().splitlines()
    ]
    assert [(a["host"], a["allowed"]) for a in attempts] == [(DENIED, False)]
    assert isinstance(attempts[0]["ts"], float)  # on the clock of events.ndjson

    report = Path(result["paths"]["report"])
    with browser_page(report.as_uri()) as seen:
        page = seen.page
        steps = page.locator("details.step")
        assert steps.count() == 3
        reaching = steps.nth(1)
        assert reaching.get_attribute("open") is not None  # opened: it holds a denial
        assert reaching.locator("summary .badge.denied").inner_text() == "1 denied"
        listed = reaching.locator("ul.network li").all_inner_texts()
        assert listed == [f"denied {DENIED}:80: not in the run's allowed hosts (--allow-host)"]
        for quiet in (steps.nth(0), steps.nth(2)):
            assert quiet.locator("ul.network, .badge.denied").count() == 0
        assert seen.errors == []
        assert only_file_requests(seen, report.parent) == []


def _call(tool_id: str, ts: float, end: float) -> list[dict[str, object]]:
    return [
        {"type": "tool_call", "tool": "run", "tool_id": tool_id, "ts": ts, "data": {}},
        {"type": "tool_result", "tool_id": tool_id, "ts": end, "status": "ok", "data": {}},
    ]


def test_an_attempt_goes_to_one_call_or_stays_unplaced() -> None:
    """Inside one call's window: that call. Just before a call's event (its output still in
    the pipe) with none running: that call. Inside two calls side by side: neither."""
    events = [*_call("a", 1.0, 2.0), *_call("b", 3.0, 4.0)]
    events += [*_call("c", 5.0, 7.0), *_call("d", 6.0, 8.0)]
    network = [{"host": h, "ts": t} for h, t in
               (("in-a", 1.5), ("lead-b", 2.9), ("both", 6.5), ("none", 9.5))]  # fmt: skip
    calls = [s for s in build(events, network).steps if isinstance(s, ToolStep)]
    placed = {c.tool_id: [a["host"] for a in c.network] for c in calls}
    assert placed == {"a": ["in-a"], "b": ["lead-b"], "c": [], "d": []}
