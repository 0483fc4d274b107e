"""``holon report --out FILE``: a file that exists is replaced only when it is a page holon
wrote (a typo must not turn ``~/.bashrc`` into a report), and a target that cannot be written
is an error with the fix, exit 1, never a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.runner import kit as runner_kit

from .kit import holon_report as report


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output dir of one finished replay run (no report.html of its own)."""
    tmp = tmp_path_factory.mktemp("run")
    ws = runner_kit.make_workspace(tmp / "ws", "git")
    spec = runner_kit.write_task(tmp / "task", runner_kit.ENGINE_STEPS)
    argv = [str(spec), "--workspace", str(ws), "--engine", "replay", "--no-report", "--json"]
    ran = runner_kit.holon_run(tmp, argv)
    assert ran.exit_code == 0, ran.stderr
    return Path(ran.json["paths"]["output_dir"])


def test_a_file_that_is_not_a_report_is_never_replaced(record: Path, tmp_path: Path) -> None:
    precious = tmp_path / "notes.txt"
    precious.write_text("my notes\n")
    done = report(tmp_path, str(record), "--out", str(precious))
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stderr
    assert f"{precious} exists and is not a report holon wrote" in done.stderr, done.stderr
    assert "give --out a new file name" in done.stderr
    assert precious.read_text() == "my notes\n"


def test_a_report_holon_wrote_is_replaced(record: Path, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    assert report(tmp_path, str(record), "--out", str(page)).returncode == 0
    first = page.stat().st_ino
    done = report(tmp_path, str(record), "--out", str(page))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{page}\n" and page.stat().st_ino != first


def test_a_target_that_cannot_be_written_is_an_error_not_a_traceback(
    record: Path, tmp_path: Path
) -> None:
    done = report(tmp_path, str(record), "--out", "/proc/holon-report.html")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr, done.stderr
    assert "cannot write the report to /proc/holon-report.html" in done.stderr


def test_the_default_target_is_replaced_whatever_the_engine_put_there(
    record: Path, tmp_path: Path
) -> None:
    output = tmp_path / "output"
    shutil.copytree(record, output, symlinks=True)
    (output / "report.html").write_text("planted by the engine\n")
    done = report(tmp_path, str(output))
    assert done.returncode == 0, done.stderr
    assert (output / "report.html").read_text().startswith("<!DOCTYPE html>")
