"""The batch report of a 12-cell job (4 tasks x replay, Claude Code and Codex against the
scripted model server), opened in a real browser: the grid, the per-engine charts, a cell's
own page one click away, the filters."""

from __future__ import annotations

from pathlib import Path

from holon_conformance.provider import ScriptedProvider, load_scenario

from tests.batch.kit import ENGINES, four_tasks, provider_env, results, run_batch, write_job

from .browser import browser_page, keep_screenshot, only_file_requests

WRITE_AND_RUN = "write-and-run"


def test_twelve_cell_batch_report(engine_binary, tmp_path: Path) -> None:
    for engine in ("claude", "codex"):
        engine_binary(engine)
    job = write_job(
        tmp_path, four_tasks(tmp_path), ENGINES, limits={"concurrency": 3, "timeout": "5m"}
    )
    with ScriptedProvider(load_scenario(WRITE_AND_RUN)) as provider:
        done = run_batch(job, env=provider_env(provider))
    assert done.returncode == 0, done.stderr + done.stdout
    out = tmp_path / "job.results"
    report = out / "report.html"
    assert f"report: {report}\n" in done.stdout
    rows = results(out)
    assert len(rows) == 12
    for row in rows:  # each cell's own page, beside its record
        assert (Path(row["run_dir"]) / "output" / "report.html").is_file(), row["cell"]

    with browser_page(report.as_uri()) as seen:
        page = seen.page
        grid = page.locator("table.grid")
        assert grid.locator("thead th").all_text_contents() == ["task", *ENGINES]
        assert grid.locator("tbody tr").count() == 4
        assert grid.locator("a.run").count() == 12
        assert grid.locator("a.run .badge.success").count() == 12
        charts = page.locator("svg.chart")
        assert charts.count() == 3
        labels = [charts.nth(i).get_attribute("aria-label") or "" for i in range(3)]
        assert labels[0] == "Success rate: replay 100%; claude 100%; codex 100%"
        # the replay engine calls no model: it reports a cost of 0
        assert labels[1].startswith("Cost (all cells, USD): replay $0.0000; claude $")
        assert labels[2].startswith("Median duration: replay ")
        for engine in ENGINES:  # a bar per engine in every chart, drawn
            for i in range(3):
                assert charts.nth(i).locator("rect title", has_text=f"{engine}: ").count() == 1
        keep_screenshot(seen, tmp_path, "report-batch", full_page=True)

        # the filters: no success shown, then back
        page.locator("input[data-outcome-filter=success]").uncheck()
        assert grid.locator("a.run:visible").count() == 0
        assert page.locator("#filter-count").inner_text() == "0 shown"
        page.locator("input[data-outcome-filter=success]").check()
        assert page.locator("#filter-count").inner_text() == "12 shown"
        page.locator("#reason-filter").select_option("ok")
        assert grid.locator("a.run:visible").count() == 12

        # one click from the grid to a cell's page
        grid.locator("tbody tr", has_text="dirty").locator("a.run").nth(1).click()
        page.wait_for_load_state()
        assert page.url.endswith("/output/report.html")
        assert "dirty.claude.1" in page.url
        assert "success" in page.locator("#verdict").inner_text()
        assert page.locator(".file", has_text="hello.txt").locator(".dl.add").count() == 1
        assert seen.errors == []
        assert seen.dialogs == []
        assert only_file_requests(seen, out) == []


def test_no_report_writes_no_page(tmp_path: Path) -> None:
    """holon batch --no-report: report.md as ever, no report.html for the job or its cells."""
    from tests.batch.kit import REPLAY_STEPS, replay_tasks

    job = write_job(tmp_path, replay_tasks(tmp_path, 2, REPLAY_STEPS), ["replay"])
    done = run_batch(job, "--no-report")
    assert done.returncode == 0, done.stderr + done.stdout
    out = tmp_path / "job.results"
    assert (out / "report.md").is_file()
    assert list(out.rglob("report.html")) == []
    assert "report: " not in done.stdout
