"""``holon batch`` with codex and gemini cells through the gateway: every cell's cost comes
from the wire (engines that report none themselves), per engine in results and report.md."""

from __future__ import annotations

import yaml

from tests.batch.kit import SCENARIO_429, four_tasks, manifest, results, run_batch, write_job

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


def test_max_cost_is_each_cells_budget(engine_binary, https_provider, ca_file, tmp_path):
    engine_binary("codex")
    server = https_provider("write-and-run")
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES)
    tasks = [t for t in four_tasks(tmp_path) if t["id"] in ("inline", "one")]
    job = write_job(tmp_path, tasks, ["codex"], limits={"concurrency": 1})
    env = engine_env(server, "codex", ca_file)
    env |= {"HOLON_MODEL": "batch-priced-model", "HOLON_PRICES": str(prices)}
    done = run_batch(job, "--max-cost", "0.0001", env=env)
    rows = results(tmp_path / "job.results")
    # unlike the job-wide limit, every cell ran, each stopped by its own budget
    assert [r["reason"] for r in rows] == ["budget_exceeded"] * 2, rows
    assert done.returncode == 1
    for row in rows:
        budget = manifest(row)["metadata"]["budget"]
        assert (budget["max_cost_usd"], budget["exceeded"]) == (0.0001, "max_cost_usd")


#: Seconds: the retry-after the scripted server announces with its 429. An immediate retry
#: comes within the failed cell's end and a new claude start (2 to 3 s on a loaded 2-core
#: machine), so 8 s tells a wait from none without holding a test worker for long.
RESET_AFTER = 8


def _rate_limited_job(tmp_path, https_provider, ca_file, retries):
    """Two claude cells, one at a time, behind one 429 announcing a reset; no backoff."""
    scenario = dict(SCENARIO_429)
    gate = {"status": 429, "message": "slow down", "headers": {"retry-after": str(RESET_AFTER)}}
    scenario["turns"] = [{"error": gate, "times": 1}, *SCENARIO_429["turns"][1:]]
    path = tmp_path / "limit.yaml"
    path.write_text(yaml.safe_dump(scenario))
    server = https_provider(str(path))
    tasks = [t for t in four_tasks(tmp_path) if t["id"] in ("one", "inline")]
    limits = {"concurrency": 1, "retries": retries, "backoff": 0}
    job = write_job(tmp_path, tasks, ["claude"], limits=limits)
    env = engine_env(server, "claude", ca_file) | {"HOLON_CLAUDE_MAX_RETRIES": "0"}
    return server, job, env


def _after_the_429(server):
    """The 429's time, and the time of the first model call after it."""
    limited = next(r for r in server.requests if r.served.startswith("error"))
    later = [r.time for r in server.requests if r.time > limited.time and r.kind == "turn"]
    return limited.time, min(later)


def test_a_rate_limited_cell_retries_once_the_announced_reset_is_past(
    engine_binary, https_provider, ca_file, tmp_path
):
    engine_binary("claude")
    server, job, env = _rate_limited_job(tmp_path, https_provider, ca_file, retries=1)
    done = run_batch(job, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = results(tmp_path / "job.results")
    assert [(r["outcome"], r["tries"]) for r in rows] == [("success", 2), ("success", 1)]
    limited, retried = _after_the_429(server)
    # with no backoff the retry would come at once: it waited for the reset instead
    assert retried >= limited + RESET_AFTER


def test_an_engine_is_held_back_until_its_reset_and_its_cells_resume_by_themselves(
    engine_binary, https_provider, ca_file, tmp_path
):
    engine_binary("claude")
    server, job, env = _rate_limited_job(tmp_path, https_provider, ca_file, retries=0)
    done = run_batch(job, env=env)
    rows = results(tmp_path / "job.results")
    assert [r["reason"] for r in rows] == ["rate_limited", "ok"], rows
    assert rows[0]["rate_limit_reset_at"] is not None  # when the quota resets, in results
    assert done.returncode == 1
    limited, next_cell = _after_the_429(server)
    assert next_cell >= limited + RESET_AFTER  # the second cell waited for the reset
