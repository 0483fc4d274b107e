"""The suite under pytest-xdist (``make conformance``: ``-n 2 --dist loadgroup``) gives the
matrix and the JSON report of a serial run.

A serial run and a two-worker run of the packaged suite, side by side, over the replay
adapter and a replay-based broken adapter whose FAIL and WARN rows must travel from its worker
to the controller too. The serve rows are left out (as in the self-test): they add a session
per adapter and no new kind of row.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ADAPTERS = ("replay", "broken-needs-tty")


def _start(out: Path, *extra: str) -> subprocess.Popen[str]:
    out.mkdir()
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *extra]
    argv += [f"--junitxml={out / 'junit.xml'}", f"--holon-report={out / 'report.json'}"]
    for name in ADAPTERS:
        argv += ["--holon-adapter", name]
    argv += ["-k", "not test_serve_"]
    env = dict(os.environ, HOLON_PLUGINS="holon_conformance.suite.broken")
    log = (out / "stdout.txt").open("w", encoding="utf-8")
    return subprocess.Popen(argv, cwd=out, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, Path]]:
    base = tmp_path_factory.mktemp("xdist")
    procs = {
        # -v for both: pytest's verbosity shapes the assertion messages the rows carry.
        "serial": _start(base / "serial", "-v"),
        "xdist": _start(base / "xdist", "-v", "-n", "2", "--dist", "loadgroup"),
    }
    try:
        for proc in procs.values():
            proc.wait(timeout=1200)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return {mode: (proc.returncode, base / mode) for mode, proc in procs.items()}


def _stdout(out: Path) -> str:
    return (out / "stdout.txt").read_text(encoding="utf-8")


def _matrix(stdout: str) -> list[str]:
    """The printed matrix: from its title line to the verdict line."""
    lines = stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("holon conformance  ")), -1)
    assert start >= 0, f"no matrix printed:\n{stdout[-3000:]}"
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("verdict"))
    return lines[start : end + 1]


def _masked(text: str) -> str:
    """A message without what differs between any two runs: paths (temp dirs), object
    addresses, numbers (pids, seconds)."""
    text = re.sub(r"0x[0-9a-f]+", "<address>", re.sub(r"/\S*", "<path>", text))
    return re.sub(r"\d+", "#", text)


def _report(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "report.json").read_text(encoding="utf-8"))
    for adapter in data["adapters"]:
        for row in adapter["results"]:
            row["message"] = _masked(row["message"])
    return data


def test_the_workers_split_the_adapters(runs: dict[str, tuple[int, Path]]) -> None:
    stdout = _stdout(runs["xdist"][1])
    workers = {
        name: set(re.findall(rf"^\[(gw\d+)\] .*\[{re.escape(name)}\]\s*$", stdout, re.M))
        for name in ADAPTERS
    }
    # Each adapter's tests on one worker (its target built once), one adapter per worker.
    assert all(len(found) == 1 for found in workers.values()), workers
    assert workers["replay"] != workers["broken-needs-tty"], workers


def test_the_matrix_is_the_serial_one(runs: dict[str, tuple[int, Path]]) -> None:
    (serial_code, serial), (xdist_code, xdist) = runs["serial"], runs["xdist"]
    assert serial_code == xdist_code == 1, _stdout(xdist)[-3000:]  # broken-needs-tty fails
    matrix = _matrix(_stdout(serial))
    assert matrix[1].split()[2:] == list(ADAPTERS), matrix[:2]
    assert _matrix(_stdout(xdist)) == matrix
    # Each FAIL and WARN row's line below the matrix, in the same order.
    problems = [
        [_masked(line) for line in _stdout(out).splitlines() if re.match(r"\S+ (FAIL|WARN) ", line)]
        for out in (serial, xdist)
    ]
    assert problems[0] and problems[0] == problems[1]


def test_the_json_report_is_the_serial_one(runs: dict[str, tuple[int, Path]]) -> None:
    serial, xdist = _report(runs["serial"][1]), _report(runs["xdist"][1])
    broken = next(a for a in serial["adapters"] if a["name"] == "broken-needs-tty")
    outcomes = {row["outcome"] for row in broken["results"]}
    assert {"FAIL", "WARN", "PASS", "not run"} <= outcomes, outcomes  # every kind travels
    replay = next(a for a in serial["adapters"] if a["name"] == "replay")
    assert replay["capabilities"] and "N/A" in {row["outcome"] for row in replay["results"]}
    assert xdist == serial


def test_the_transport_stays_out_of_junit(runs: dict[str, tuple[int, Path]]) -> None:
    junit = (runs["xdist"][1] / "junit.xml").read_text(encoding="utf-8")
    assert '<property name="holon_req" value="RFC2-HEAD-001"' in junit
    assert "holon_conformance_shipped" not in junit
