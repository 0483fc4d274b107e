"""The suite tests itself: deliberately broken adapters must come out NOT CONFORMANT, each
with exactly the rows it breaks, while the reference replay adapter stays CONFORMANT.

The packaged suite runs against all of them (the real holon-agent, real processes), loaded
with ``HOLON_PLUGINS`` exactly as a third-party plugin would be. The adapters are split over
a few pytest subprocesses run side by side (each adapter's runs are independent: own task
dirs, own scripted provider, a subreaper per process); their JSON reports are merged.

The one adapter that drives a real engine CLI (``broken-engine-commits``: claude, wrapped to
commit its work) runs only the checks that carry its rows: every other row of its column is
claude's own, which ``make conformance`` checks in full in the claude column. Its whole column
here took 140 of the self-test's 320 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from holon_conformance.suite.broken_expected import EXPECTED, TARGETS

#: Side-by-side suite processes: most of a run is waiting on subprocesses, so a few overlap
#: well even on two cores.
WORKERS = 3
#: The one adapter the self-test runs the serve session for (see ``_start``).
SERVE_REFERENCE = "replay"
ORDER = sorted(("replay", *TARGETS))
#: The adapter wrapping a real engine, and the checks that carry its rows (the module
#: docstring says why only those).
REAL = "broken-engine-commits"
REAL_CHECKS = (
    "test_exit_0_on_success",
    "test_patch_applies_with_git_apply",
    "test_changes_are_not_applied_back",
)


def _start(out: Path, names: list[str], select: str | None = None) -> subprocess.Popen[str]:
    out.mkdir()
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    argv += [f"--junitxml={out / 'junit.xml'}", f"--holon-report={out / 'report.json'}"]
    for name in names:
        argv += ["--holon-adapter", name]
    # The serve rows run for replay only: each broken adapter breaks a one-shot rule, and a
    # serve session apiece would add minutes (their SERVE rows stay "not run").
    argv += ["-k", select or f"not test_serve_ or {SERVE_REFERENCE}"]
    env = dict(os.environ, HOLON_PLUGINS="holon_conformance.suite.broken")
    env.setdefault("HOLON_BROKEN_BASE", "claude")
    log = (out / "stdout.txt").open("w", encoding="utf-8")
    return subprocess.Popen(argv, cwd=out, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("selftest")
    replayed = [name for name in ORDER if name != REAL]
    groups = [replayed[i::WORKERS] for i in range(WORKERS)]
    procs = [(base / f"part{i}", _start(base / f"part{i}", g)) for i, g in enumerate(groups)]
    real = base / "real"
    procs.append((real, _start(real, [REAL], " or ".join(REAL_CHECKS))))
    try:
        for _, proc in procs:
            proc.wait(timeout=1800)
    finally:
        for _, proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    parts: list[dict[str, Any]] = []
    for out, proc in procs:
        stdout = (out / "stdout.txt").read_text(encoding="utf-8")
        assert proc.returncode == 1, f"broken adapters must fail the run:\n{stdout[-3000:]}"
        assert "holon conformance" in stdout and "NOT CONFORMANT" in stdout
        parts.append(json.loads((out / "report.json").read_text(encoding="utf-8")))
    data = {**parts[0], "adapters": [a for part in parts for a in part["adapters"]]}
    data["_junit"] = "".join((out / "junit.xml").read_text("utf-8") for out, _ in procs)
    assert sorted(a["name"] for a in data["adapters"]) == sorted(ORDER)
    return data


def _adapter(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(a for a in report["adapters"] if a["name"] == name)


def _row(adapter: dict[str, Any], req_id: str) -> str:
    return str(next(r["outcome"] for r in adapter["results"] if r["id"] == req_id))


def test_report_header(report: dict[str, Any]) -> None:
    assert report["schema_version"] == "1"
    assert (report["rfc"], report["rfc_version"]) == ("RFC-0002", "0.2")
    assert report["suite_version"] and report["requirements_digest"]
    replay = _adapter(report, "replay")
    assert replay["dist"] == "holon-core" and replay["capabilities"]["needs_credentials"] is False


def test_reference_adapter_is_conformant(report: dict[str, Any]) -> None:
    replay = _adapter(report, "replay")
    assert replay["verdict"] == "CONFORMANT"
    assert _row(replay, "RFC2-HEAD-003") == "N/A"  # replay needs no credentials
    bad = [r["id"] for r in replay["results"] if r["outcome"] in ("FAIL", "WARN")]
    assert not bad, bad


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_adapter_fails_exactly_its_rows(report: dict[str, Any], name: str) -> None:
    adapter = _adapter(report, name)
    serve_rows = {r["id"]: r["outcome"] for r in adapter["results"] if r["id"].startswith("SERVE-")}
    assert set(serve_rows.values()) == {"not run"}, serve_rows  # left out by _start's -k
    skipped = (
        ("PASS", "supported", "N/A", "not run") if name == REAL else ("PASS", "supported", "N/A")
    )
    not_passed = {
        r["id"]: r["outcome"]
        for r in adapter["results"]
        if r["outcome"] not in skipped and r["id"] not in serve_rows
    }
    messages = {r["id"]: r["message"][:300] for r in adapter["results"] if r["id"] in not_passed}
    assert not_passed == EXPECTED[name], messages
    binding_failed = "FAIL" in EXPECTED[name].values()
    # Without its serve rows, an adapter with no failed MUST row is INCOMPLETE, not CONFORMANT.
    assert adapter["verdict"] == ("NOT CONFORMANT" if binding_failed else "INCOMPLETE")


def test_one_broken_adapter_drives_a_real_engine(report: dict[str, Any]) -> None:
    adapter = _adapter(report, REAL)
    assert adapter["engine_version"], "the broken real-engine adapter found no engine binary"
    assert _row(adapter, "RFC2-EXIT-001") == "PASS"  # the real engine did the task
    ran = {r["id"] for r in adapter["results"] if r["outcome"] != "not run"}
    assert set(EXPECTED[REAL]) | {"RFC2-EXIT-001"} <= ran, ran  # its checks did run


def test_junit_carries_requirement_properties(report: dict[str, Any]) -> None:
    junit = report["_junit"]
    assert '<property name="holon_req" value="RFC2-OUT-004"' in junit
    assert '<property name="holon_level" value="MUST"' in junit
