"""``holon report`` on a run dir that was copied or moved (a CI artifact unpacked, a run dir
kept for later): the page is made from the copy's own record and written beside it, never
from or into the directory ``run.json`` named when the run was made."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.runner import kit as runner_kit

from .kit import holon_report


def test_a_copied_run_dir_is_reported_from_and_into_the_copy(tmp_path: Path) -> None:
    ws = runner_kit.make_workspace(tmp_path / "ws", "git")
    spec = runner_kit.write_task(tmp_path / "task", runner_kit.ENGINE_STEPS)
    argv = [str(spec), "--workspace", str(ws), "--engine", "replay", "--no-report", "--json"]
    ran = runner_kit.holon_run(tmp_path, argv)
    assert ran.exit_code == 0, ran.stderr
    original = Path(ran.json["paths"]["run_dir"])
    copy = tmp_path / "kept" / original.name
    shutil.copytree(original, copy, symlinks=True)
    manifest = json.loads((copy / "output" / "manifest.json").read_text())
    manifest["metadata"]["warnings"] = ["only-in-the-copy-7731"]
    (copy / "output" / "manifest.json").write_text(json.dumps(manifest))

    done = holon_report(tmp_path, copy)

    assert done.returncode == 0, done.stderr
    page = copy / "output" / "report.html"
    assert done.stdout.strip() == str(page)
    assert "only-in-the-copy-7731" in page.read_text(encoding="utf-8")
    assert not (original / "output" / "report.html").exists()


def test_a_copied_batch_results_dir_is_reported_from_and_into_the_copy(tmp_path: Path) -> None:
    from tests.batch import kit as batch_kit

    root = tmp_path / "job"
    tasks = batch_kit.replay_tasks(root, 1, batch_kit.REPLAY_STEPS)
    job = batch_kit.write_job(root, tasks, ["replay"])
    done = batch_kit.run_batch(job, "--no-report", "--quiet")
    assert done.returncode == 0, done.stderr
    original = root / "job.results"
    copy = tmp_path / "kept" / "job.results"
    shutil.copytree(original, copy, symlinks=True)

    ran = holon_report(tmp_path, copy)

    assert ran.returncode == 0, ran.stderr
    assert sorted(original.rglob("report.html")) == []
    (cell_page,) = sorted((copy / "cells").rglob("report.html"))
    assert cell_page.parent.name == "output"
    page = (copy / "report.html").read_text(encoding="utf-8")
    assert str(cell_page.relative_to(copy)) in page
