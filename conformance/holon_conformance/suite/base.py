"""Base test classes: subclass them in an adapter's own repository (or use ConformanceSuite).

``class TestMyEngine(ConformanceSuite): adapter_name = "my"`` runs every check against the
adapter registered as ``my``; without ``adapter_name`` the classes are parametrized over the
``--holon-adapter`` options. Tests name the requirements they check; levels, N/A and the
matrix come from the registry and the ``holon-conformance`` pytest plugin. Each check reads
one or more cached runs (see :mod:`holon_conformance.suite.harness`).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from holon_conformance.suite.agent_env import PLANTED_SECRETS
from holon_conformance.suite.cases import CASES, HELLO, NEW_BLOB
from holon_conformance.suite.harness import Target
from holon_conformance.suite.hermetic import BaseHermetic
from holon_conformance.suite.marks import CheckBase as _Base
from holon_conformance.suite.marks import cap, req
from holon_conformance.suite.room import BaseRoom
from holon_conformance.suite.run_record import RunRecord
from holon_conformance.suite.serve_checks import BaseServe

#: Runs that execute the task (the probe cases do not start the engine).
TASK_CASES = ("success", "success-pty", "failure", "missing-artifact", "needs-human")
#: Exit codes RFC-0002 section 3.3 allows per outcome: needs-human review is optional, and an
#: agent without it reports it in manifest.json and exits 1.
EXIT_FOR = {"success": {0}, "failure": {1}, "needs_human": {2, 1}}


def _cases(target: Target, names: tuple[str, ...]) -> list[RunRecord]:
    wanted = list(names)
    if target.adapter.capabilities.needs_credentials:
        wanted.append("no-credentials")
    return [target.run(name) for name in wanted]


def _all_runs(target: Target) -> list[RunRecord]:
    return _cases(target, (*TASK_CASES, "probe", "probe-no-spec", "probe-bad-output"))


def _finished(runs: list[RunRecord]) -> list[RunRecord]:
    """The runs holon-agent ended itself. One the suite had to stop (it prompted or hung)
    fails RFC2-HEAD-001/002; it is no evidence for the rows that sweep every run (a killed
    agent writes no manifest and cleans nothing up because the suite killed it)."""
    return [run for run in runs if not run.stopped]


def _written_by_the_run(run: RunRecord) -> Iterator[tuple[str, bytes]]:
    """Everything holon wrote that a user sees: output files and holon-agent's own output."""
    yield "holon-agent stdout/stderr", run.output.encode("utf-8", "replace")
    if run.output_dir.is_dir():
        for path in sorted(run.output_dir.rglob("*")):
            if path.is_file() and not path.is_symlink():
                yield str(path), path.read_bytes()


def _manifest(run: RunRecord) -> dict[str, Any]:
    if run.manifest is None:
        pytest.fail(f"{run.manifest_error}\n{run.describe()}")
    return run.manifest


def _outcome(run: RunRecord) -> tuple[int | None, str | None]:
    return run.exit_code, (run.manifest or {}).get("outcome")


class BaseInputs(_Base):
    @req("RFC2-IN-001")
    def test_inputs_stay_read_only(self, holon_target: Target) -> None:
        for run in _cases(holon_target, TASK_CASES):
            assert not run.input_changed, f"{run.case}: input changed: {run.input_changed}"

    @req("RFC2-IN-002")
    def test_workspace_is_the_codebase_root(self, holon_target: Target) -> None:
        run = holon_target.run("success")
        hello = run.workspace / "hello.txt"
        assert hello.is_file(), f"the engine did not work in the workspace\n{run.describe()}"
        assert hello.read_text(encoding="utf-8") == HELLO
        assert (run.workspace / "data.bin").read_bytes() == NEW_BLOB


class BaseOutputs(_Base):
    @req("RFC2-OUT-001", "RFC2-OUT-003")
    def test_writes_nothing_outside_the_output_dir(self, holon_target: Target) -> None:
        runs = _finished(_all_runs(holon_target))
        bad = {run.case: run.outside_writes[:8] for run in runs if run.outside_writes}
        assert not bad, f"files written outside output/ and workspace/: {bad}"
        traced = all(run.tmp_created is not None for run in runs)
        if traced:  # created by the run's own processes (strace): nobody else's noise
            in_tmp = sorted({path for run in runs for path in run.tmp_created or ()})
            what = "the run's processes created"
        else:
            in_tmp = sorted({path for run in runs for path in run.tmp_new})
            what = "new entries (strace unavailable: not attributed to the run, install strace)"
        if in_tmp and holon_target.strict_tmp:
            pytest.fail(
                f"{what} in {tempfile.gettempdir()} instead of the run's TMPDIR: {in_tmp[:8]} "
                "(--holon-lenient-tmp reports these as a warning)"
            )
        if in_tmp:
            warnings.warn(
                f"{holon_target.name}: {what} in {tempfile.gettempdir()}: {in_tmp[:8]}",
                stacklevel=1,
            )

    @req("RFC2-OUT-004")
    def test_manifest_on_success_failure_and_probe(self, holon_target: Target) -> None:
        for run in _finished(_cases(holon_target, (*TASK_CASES, "probe", "probe-no-spec"))):
            _manifest(run)

    @req("HOLON-SCHEMA-001")
    def test_manifest_is_schema_valid(self, holon_target: Target) -> None:
        import jsonschema

        from holon_core.models.manifest import manifest_schema

        schema = manifest_schema()
        for run in _finished(_cases(holon_target, (*TASK_CASES, "probe", "probe-no-spec"))):
            try:
                jsonschema.validate(_manifest(run), schema)
            except jsonschema.ValidationError as exc:
                pytest.fail(f"{run.case}: manifest.json is not schema-valid: {exc.message}")

    @req("RFC2-OUT-007")
    def test_summary_written(self, holon_target: Target) -> None:
        summary = holon_target.run("success").output_dir / "summary.md"
        assert summary.is_file() and summary.stat().st_size > 0, "no summary.md"

    @req("RFC2-OUT-008")
    def test_evidence_written(self, holon_target: Target) -> None:
        evidence = holon_target.run("success").output_dir / "evidence"
        assert evidence.is_dir() and any(evidence.iterdir()), "no evidence/"

    @req("RFC2-V01-ART-001")
    def test_requested_v01_artifacts_produced(self, holon_target: Target) -> None:
        run = holon_target.run("success")
        assert _outcome(run) == (0, "success"), run.describe()
        for name in ("manifest.json", "diff.patch", "summary.md"):
            assert (run.output_dir / name).is_file(), f"spec requested {name}; it is missing"

    @req("HOLON-SEC-001")
    def test_no_secret_in_anything_holon_writes(self, holon_target: Target) -> None:
        leaks: dict[str, list[str]] = {}
        for run in _all_runs(holon_target):
            secrets = {f"credential {s[:4]}...": s for s in run.secrets}
            secrets |= PLANTED_SECRETS
            for where, data in _written_by_the_run(run):
                if run.case == "needs-human" and where.endswith("diff.patch"):
                    # The engine put its key into the change on purpose: the patch must stay
                    # faithful, and the run is flagged needs_human (RFC2-EXIT-003) instead.
                    continue
                found = [name for name, value in secrets.items() if value.encode() in data]
                if found:
                    leaks.setdefault(run.case, []).append(f"{where}: {', '.join(found)}")
        assert not leaks, f"secret values from the environment in what holon wrote: {leaks}"


class BaseExitCodes(_Base):
    @req("RFC2-EXIT-001")
    def test_exit_0_on_success(self, holon_target: Target) -> None:
        run = holon_target.run("success")
        assert _outcome(run) == (0, "success"), run.describe()

    @req("RFC2-EXIT-002")
    def test_exit_1_on_failure(self, holon_target: Target) -> None:
        run = holon_target.run("failure")
        manifest = _manifest(run)
        assert (run.exit_code, manifest.get("outcome")) == (1, "failure"), (
            f"a failed model call must end in exit 1 and outcome failure\n{run.describe()}"
        )
        assert manifest.get("error"), "the failure manifest carries no error"

    @req("RFC2-EXIT-003")
    def test_needs_human_exits_2_or_reports_it(self, holon_target: Target) -> None:
        run = holon_target.run("needs-human")
        manifest = _manifest(run)
        outcome = manifest.get("outcome")
        # Exit 2 is optional: "if unsupported, report via manifest.json and exit 1".
        allowed = {(2, "needs_human"), (1, "needs_human"), (1, "failure")}
        assert (run.exit_code, outcome) in allowed, (
            "the engine wrote its credential into the workspace: the run needs a human "
            f"(exit 2, or exit 1 with the manifest saying so), got exit {run.exit_code} and "
            f"outcome {outcome!r}\n{run.describe()}"
        )
        assert outcome == "needs_human" or manifest.get("error"), "exit 1 without an error"

    @req("RFC2-EXIT-003")
    def test_exit_code_matches_manifest_outcome(self, holon_target: Target) -> None:
        for run in _finished(_all_runs(holon_target)):
            if run.case == "probe-bad-output":
                continue  # --output is a file: no manifest can be written there
            outcome = _manifest(run).get("outcome")
            assert run.exit_code in EXIT_FOR.get(str(outcome), set()), (
                f"{run.case}: exit {run.exit_code} but manifest outcome {outcome!r}"
            )


class BaseHeadless(_Base):
    @req("RFC2-HEAD-001")
    def test_runs_without_a_tty(self, holon_target: Target) -> None:
        run = holon_target.run("success")  # stdin /dev/null, own session: no terminal at all
        assert not run.timed_out, f"blocked without a terminal\n{run.describe()}"
        assert _outcome(run) == (0, "success"), run.describe()

    @req("RFC2-HEAD-002")
    def test_never_prompts_under_a_terminal(self, holon_target: Target) -> None:
        run = holon_target.run("success-pty")
        assert run.prompt_seen is None, f"asked {run.prompt_seen!r} on a terminal"
        assert not run.timed_out, f"did not finish under a terminal\n{run.describe()}"
        assert _outcome(run) == (0, "success"), run.describe()

    @req("RFC2-HEAD-003")
    @cap("needs_credentials")
    def test_fails_fast_without_credentials(
        self, holon_target: Target, request: pytest.FixtureRequest
    ) -> None:
        run = holon_target.run("no-credentials")
        # user_properties, not the record_property fixture (it warns under JUnit xunit2).
        request.node.user_properties.append(("holon_seconds", f"{run.seconds:.2f}"))
        manifest = _manifest(run)
        assert (run.exit_code, manifest.get("outcome")) == (1, "failure"), run.describe()
        assert run.model_requests == 0, "the engine called the model without credentials"
        error = str(manifest.get("error") or "")
        names = holon_target.adapter.credential_env
        assert any(name in error for name in names), (
            f"the manifest error does not name the missing credential ({', '.join(names)}): "
            f"{error!r}"
        )
        # A hang guard, not a benchmark: failing fast means before any engine/model round trip.
        assert run.seconds < 20, f"took {run.seconds:.1f}s to notice missing credentials"


class BasePatch(_Base):
    @req("RFC2-OUT-006", "RFC2-PATCH-001", "RFC2-V01-PATCH-001")
    def test_patch_applies_with_git_apply(self, holon_target: Target, tmp_path: Path) -> None:
        run = holon_target.run("success")
        patch = run.output_dir / "diff.patch"
        assert patch.is_file(), f"no diff.patch\n{run.describe()}"
        clone = tmp_path / "baseline"
        subprocess.run(["git", "clone", "-q", str(run.workspace), str(clone)], check=True)
        done = subprocess.run(
            ["git", "apply", "--whitespace=nowarn", str(patch)],
            cwd=clone,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, f"git apply failed: {done.stderr}"
        for name in ("hello.txt", "data.bin"):
            assert (clone / name).read_bytes() == (run.workspace / name).read_bytes(), name

    @req("RFC2-PATCH-002")
    def test_patch_carries_binary_changes(self, holon_target: Target) -> None:
        text = (holon_target.run("success").output_dir / "diff.patch").read_text("utf-8", "replace")
        assert "GIT binary patch" in text, "data.bin changed but the patch has no binary hunk"
        assert re.search(r"^index [0-9a-f]{40}\.\.[0-9a-f]{40}", text, re.M), "no --full-index"

    @req("HOLON-PATCH-001")
    def test_patch_holds_exactly_the_changed_files(self, holon_target: Target) -> None:
        run = holon_target.run("success")
        patch = run.output_dir / "diff.patch"
        assert patch.is_file(), f"no diff.patch\n{run.describe()}"
        done = subprocess.run(
            ["git", "apply", "--numstat", str(patch)],
            cwd=run.workspace,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, f"git apply --numstat failed: {done.stderr}"
        named = {line.split("\t", 2)[2] for line in done.stdout.splitlines() if line.strip()}
        expected = CASES["success"].changes
        extra, missing = sorted(named - expected), sorted(expected - named)
        assert not extra, (
            f"diff.patch carries files the task never changed: {extra} (files the adapter or "
            "its engine placed in the workspace must stay out of the patch)"
        )
        assert not missing, f"diff.patch misses changed files {missing}\n{run.describe()}"

    @req("RFC2-RUN-008")
    def test_changes_are_not_applied_back(self, holon_target: Target) -> None:
        for run in _cases(holon_target, TASK_CASES):
            assert run.refs_before == run.refs_after, f"{run.case}: the agent moved git refs"


class BaseProbe(_Base):
    @req("RFC2-PROBE-001")
    def test_probe_mode_supported(self, holon_target: Target) -> None:
        run = holon_target.run("probe")
        assert run.exit_code == 0, run.describe()
        assert run.model_requests == 0, "--probe invoked the engine's model"

    @req("RFC2-PROBE-002")
    def test_probe_checks_spec_and_output(self, holon_target: Target) -> None:
        no_spec = holon_target.run("probe-no-spec")
        assert no_spec.exit_code not in (0, None), f"spec.yaml missing\n{no_spec.describe()}"
        assert _manifest(no_spec).get("outcome") == "failure"
        assert "spec" in str(_manifest(no_spec).get("error")), "the error does not name the spec"
        bad = holon_target.run("probe-bad-output")
        assert bad.exit_code not in (0, None), f"output not writable\n{bad.describe()}"

    @req("RFC2-PROBE-003")
    def test_probe_exits_0_when_ready(self, holon_target: Target) -> None:
        run = holon_target.run("probe")
        assert run.exit_code == 0, run.describe()

    @req("RFC2-PROBE-004")
    def test_probe_writes_success_manifest(self, holon_target: Target) -> None:
        manifest = _manifest(holon_target.run("probe"))
        assert (manifest.get("status"), manifest.get("outcome")) == ("completed", "success")


class BaseArtifacts(_Base):
    @req("RFC2-RUN-005", "RFC2-V01-HOST-001")
    def test_missing_required_artifact_fails_the_run(self, holon_target: Target) -> None:
        run = holon_target.run("missing-artifact")
        manifest = _manifest(run)
        assert (run.exit_code, manifest.get("outcome")) == (1, "failure"), run.describe()
        assert "report.json" in str(manifest.get("error")), "the error does not name report.json"


class BaseProcessHygiene(_Base):
    @req("HOLON-PROC-001")
    def test_no_process_left_behind(self, holon_target: Target) -> None:
        left = {run.case: run.leftovers for run in _all_runs(holon_target) if run.leftovers}
        assert not left, f"processes left running after holon-agent exited: {left}"


class ConformanceSuite(
    BaseInputs,
    BaseOutputs,
    BaseExitCodes,
    BaseHeadless,
    BasePatch,
    BaseProbe,
    BaseArtifacts,
    BaseProcessHygiene,
    BaseHermetic,
    BaseRoom,
    BaseServe,
):
    """Every check; subclass as ``TestX(ConformanceSuite)`` with ``adapter_name = "x"``."""
