"""``holon batch`` with the local executor: the real holon-agent and the real pinned engines,
pointed at the scripted model server (the issue's 12-cell job)."""

from __future__ import annotations

from pathlib import Path

from holon_conformance.provider import ScriptedProvider, load_scenario

from .kit import (
    ENGINES,
    EXPECTED,
    four_tasks,
    manifest,
    provider_env,
    results,
    run_batch,
    scenario_429,
    table,
    write_job,
)


def test_twelve_cells_local(tmp_path: Path) -> None:
    """4 tasks x replay/claude/codex: every cell a real run with its own run dir under the
    results dir; tokens from the manifests; a rate-limited run retried and recorded once;
    per-engine report; plain progress lines off a terminal; no credential written."""
    job = write_job(
        tmp_path,
        four_tasks(tmp_path),
        ENGINES,
        limits={"concurrency": 3, "timeout": "5m", "backoff": "100ms", "per_engine": {"claude": 1}},
    )
    with ScriptedProvider(load_scenario(scenario_429(tmp_path))) as provider:
        env = provider_env(provider)
        done = run_batch(job, env=env)
    assert done.returncode == 0, done.stderr + done.stdout
    out = tmp_path / "job.results"
    rows = results(out)
    assert table(rows) == EXPECTED
    for row in rows:
        run_dir = Path(row["run_dir"])
        assert run_dir.parent == out / "cells" / row["cell"]
        assert manifest(row)["outcome"] == "success"
        assert (run_dir / "output" / "diff.patch").read_text().count("+hello from holon") == 1
        if row["engine"] != "replay":
            assert row["tokens"]["total"] > 0, row
    claude = [r for r in rows if r["engine"] == "claude"]
    assert sorted(r["tries"] for r in claude) == [1, 1, 1, 2]  # the 429, retried once
    retried = next(r for r in claude if r["tries"] == 2)
    runs = sorted((out / "cells" / retried["cell"]).glob("run-*"))
    assert len(runs) == 2 and Path(retried["run_dir"]) in runs  # both kept, recorded once
    # the cloned task ran on the tag, not on the branch head
    cloned = out / "workspaces" / "cloned" / "README.md"
    assert cloned.read_text() == "from git\n"
    report = (out / "report.md").read_text()
    for engine in ENGINES:
        assert f"| {engine} | 4 | 4 | 0 | 0 | 100% |" in report
    assert "[12/12] " in done.stderr and "\x1b[" not in done.stderr
    assert "12 cells: 12 success" in done.stdout
    key = env["ANTHROPIC_API_KEY"]
    for path in out.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert key.encode() not in path.read_bytes(), path
