"""The suite's command line as a user meets it: errors, pasted test ids, JUnit, SHOULD rows.

Each test runs a real ``pytest`` subprocess with the holon-conformance plugin, as a user
would, against the replay adapter (or a replay-based broken one).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

BROKEN = {"HOLON_PLUGINS": "holon_conformance.suite.broken"}


def _pytest(cwd: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    done = subprocess.run(
        argv,
        cwd=cwd,
        env=dict(os.environ, **(env or {})),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def test_an_adapter_that_is_not_installed_is_one_clear_error(tmp_path: Path) -> None:
    code, out = _pytest(tmp_path, "--holon-adapter", "no-such-engine")
    assert code == 4, out  # pytest's usage error, not a failed conformance run
    assert out.count("no adapter named 'no-such-engine' is installed") == 1, out
    assert "holon plugins" in out and "replay" in out  # the fix and what is installed
    assert "failed" not in out and "FAILED" not in out


def test_a_printed_test_id_can_be_pasted_back_to_rerun_one_check(tmp_path: Path) -> None:
    code, out = _pytest(tmp_path, "--holon-adapter", "replay", "-k", "exit_0_on_success", "-rA")
    assert code == 0, out
    printed = re.findall(r"^PASSED (\S+)", out, re.M)
    assert len(printed) == 1 and printed[0].endswith("[replay]"), out
    # Pasted alone (the id names its adapter) and with the option: exactly that one check.
    for extra in ([], ["--holon-adapter", "replay"]):
        code, again = _pytest(tmp_path, *extra, printed[0], "-rA")
        assert code == 0, again
        assert re.findall(r"^PASSED (\S+)", again, re.M) == printed, again
        assert re.search(r"\b1 passed\b", again), again


def test_the_readme_junit_example_gives_no_warning(tmp_path: Path) -> None:
    # An adapter with credentials, so the HEAD-003 check (which records its timing) runs.
    args = ["--holon-adapter", "broken-dumps-env", "-k", "fails_fast_without_credentials"]
    code, out = _pytest(tmp_path, *args, "--junitxml", "junit.xml", env=BROKEN)
    assert code == 0, out
    assert "warning" not in out.lower(), out
    junit = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert '<property name="holon_seconds"' in junit
    assert '<property name="holon_req" value="RFC2-HEAD-003"' in junit


SHOULD_CHECK = """
from holon_conformance.suite.marks import CheckBase, req


class TestShouldRow(CheckBase):
    adapter_name = "replay"

    @req("RFC2-OUT-007")
    def test_summary_is_written(self, holon_target):
        assert False, "no summary.md"
"""


def test_a_failed_should_is_visible_in_pytest_and_fails_at_level_should(tmp_path: Path) -> None:
    (tmp_path / "test_should.py").write_text(SHOULD_CHECK, encoding="utf-8")
    code, out = _pytest(tmp_path, "test_should.py")
    assert code == 0, out  # a SHOULD does not fail the default (must) level...
    assert re.search(r"\b1 xfailed\b", out) and "passed" not in out.splitlines()[-1], out
    assert "HolonConformanceWarning" in out and "WARN RFC2-OUT-007" in out, out
    assert re.search(r"^RFC2-OUT-007\s+SHOULD\s+WARN", out, re.M), out
    code, out = _pytest(tmp_path, "test_should.py", "--holon-level", "should")
    assert code == 1, out  # ...and fails the run at level should
    assert re.search(r"\b1 failed\b", out), out


def test_all_passes_over_the_generic_acp_engine_when_it_is_not_configured(
    tmp_path: Path,
) -> None:
    """An adapter author's ``--holon-adapter all`` without ``HOLON_ACP_COMMAND``: the generic
    acp column is not run and says what to set; every other engine is still selected."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLON_ACP_")}
    args = ["--holon-adapter", "all", "--holon-report", "r.json", "-k", "exit_0_on_success"]
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args, "--co", "-q"]
    listed = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    ).stdout
    assert "[acp-gemini]" in listed and "[replay]" in listed, listed
    assert "[acp]" not in listed, listed
    done = subprocess.run(
        [*argv[:-2], "-k", "exit_0_on_success and replay"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    assert "acp: NOT CONFIGURED (not run): set HOLON_ACP_COMMAND" in done.stdout, done.stdout
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    (acp,) = [a for a in report["adapters"] if a["name"] == "acp"]
    assert acp["verdict"] == "NOT CONFIGURED" and "HOLON_ACP_COMMAND" in acp["note"]
