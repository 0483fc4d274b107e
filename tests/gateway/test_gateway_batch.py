"""``holon batch`` with codex and gemini cells through the gateway: every cell's cost comes
from the wire (engines that report none themselves), per engine in results and report.md."""

from __future__ import annotations

from tests.batch.kit import four_tasks, results, run_batch, write_job

from .test_gateway_engines import engine_env

PRICES = "models:\n  batch-priced-model: {input: 2, output: 10}\n"


def test_batch_reports_cost_per_engine_for_codex_and_gemini(
    engine_binary, https_provider, ca_file, tmp_path
):
    for engine in ("codex", "gemini"):
        engine_binary(engine)
    server = https_provider("write-and-run")
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES)
    tasks = [t for t in four_tasks(tmp_path) if t["id"] == "inline"]
    job = write_job(tmp_path, tasks, ["codex", "gemini"], limits={"concurrency": 1})
    env = engine_env(server, "codex", ca_file) | engine_env(server, "gemini", ca_file)
    env |= {"HOLON_MODEL": "batch-priced-model", "HOLON_PRICES": str(prices)}
    done = run_batch(job, env=env)
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-2000:]
    rows = results(tmp_path / "job.results")
    assert sorted(r["engine"] for r in rows) == ["codex", "gemini"]
    for row in rows:
        assert row["outcome"] == "success", row
        assert row["cost_usd"] is not None and row["cost_usd"] > 0, row
    report = (tmp_path / "job.results" / "report.md").read_text()
    for row in rows:
        line = next(x for x in report.splitlines() if x.startswith(f"| {row['engine']} |"))
        assert f"{row['cost_usd']:.4f}" in line, line


def test_a_job_wide_cost_limit_stops_starting_cells(
    engine_binary, https_provider, ca_file, tmp_path
):
    engine_binary("codex")
    server = https_provider("write-and-run")
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES)
    tasks = [t for t in four_tasks(tmp_path) if t["id"] in ("inline", "one")]
    limits = {"concurrency": 1, "max_cost_usd": 0.0001}
    job = write_job(tmp_path, tasks, ["codex"], limits=limits)
    env = engine_env(server, "codex", ca_file)
    env |= {"HOLON_MODEL": "batch-priced-model", "HOLON_PRICES": str(prices)}
    done = run_batch(job, env=env)
    rows = results(tmp_path / "job.results")
    # The first cell spent more than the whole job may: the second never started.
    assert len(rows) == 1 and rows[0]["cost_usd"] > 0.0001, rows
    assert done.returncode == 1
    assert "reaching limits.max_cost_usd $0.0001: 1 cells were not started" in done.stderr
