"""The probe is the CI preflight: every input a run refuses before it launches the engine, the
probe refuses too, with the same reason code and the same message.

Both paths run on the same task (``tests/refusal_cases.py``, one table): the probe first, as
CI would, then the run in the same output dir.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from holon_core.testing import AgentResult, run_agent
from tests.refusal_cases import CASES, Refusal


def _ran(result: AgentResult) -> str:
    return f"exit {result.exit_code}\nstderr:\n{result.stderr}"


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_probe_refuses_what_the_run_refuses(
    case: Refusal, tmp_path: Path, assert_valid_manifest: Callable[[Any], dict[str, Any]]
) -> None:
    setup = case.build(tmp_path)
    probe = run_agent(setup.task, setup.engine, env=setup.env, args=[*setup.args, "--probe"])
    probe_manifest = probe.manifest
    run = run_agent(setup.task, setup.engine, env=setup.env, args=setup.args)
    assert run.exit_code == 1, _ran(run)
    assert probe.exit_code == 1, _ran(probe)
    assert "Traceback" not in probe.stderr + run.stderr
    if case.reason is None:  # the output dir is refused: neither path writes a manifest
        assert probe_manifest is None and run.manifest is None
        (failed,) = [line for line in probe.stderr.splitlines() if "FAIL" in line]
        assert failed.startswith("probe FAIL output: "), probe.stderr
        return
    refused = assert_valid_manifest(run.manifest)
    assert "process" not in refused["metadata"], "the run launched the engine"
    assert refused["metadata"]["reason"] == case.reason, refused["error"]
    probed = assert_valid_manifest(probe_manifest)
    assert probed["metadata"]["mode"] == "probe"
    assert (probed["metadata"]["reason"], probed["error"]) == (case.reason, refused["error"])


def test_the_table_holds_every_reason_a_run_gives_before_the_launch() -> None:
    reasons = {case.reason for case in CASES}
    expected: set[str | None] = {"invalid_spec", "invalid_skill", "invalid_input", None}
    expected |= {"preflight_failed", "unknown_engine", "engine_missing", "missing_credentials"}
    expected |= {"plugin_error"}
    assert expected <= reasons
    assert "timeout_banana" in {case.name for case in CASES}
