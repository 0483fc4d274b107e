"""Hermeticity checks: the user's own config never reaches the engine (DESIGN section 4).

The success case runs with marker-bearing user config planted in the sentinel HOME and in
the directory above the workspace (:mod:`canary`). A marker in a model request means an
instruction or settings file was read into the engine's context; a ``NAME=marker`` pair in
the shell step's ``env`` output means a ``.env`` or settings file reached the environment
the engine gives its tools. The shell output is looked for wherever it lands: the model
requests (tool results go back to the model) and the output directory (evidence).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from holon_conformance.suite import canary
from holon_conformance.suite.agent_env import PLANTED_SECRETS
from holon_conformance.suite.cases import ENV_DUMP_SEEN, KEY_HUNT_DONE, KEY_HUNT_FOUND
from holon_conformance.suite.harness import Target
from holon_conformance.suite.marks import CheckBase, cap, req
from holon_conformance.suite.run_record import RunRecord

#: ``NAME=marker`` as ``env`` prints it (every planted name is upper case, so a JSON-escaped
#: ``\\n`` before it is not taken for part of the name).
_ASSIGNED = re.compile(r"([A-Z_][A-Z0-9_]*)=(" + canary.PREFIX + r"-[a-z0-9-]+)")


def _planted_run(target: Target) -> RunRecord:
    run = target.run("success")
    if not run.planted:
        pytest.fail("the success case planted no user config: nothing was verified")
    return run


def _key_hunt(texts: dict[str, str], run: RunRecord) -> list[str]:
    """What the success step's key hunt found (its ``keyhunt-found``/``-shaped`` lines), or
    a failure when its output is nowhere (the hunt did not run)."""
    done = [m for t in texts.values() for m in re.finditer(KEY_HUNT_DONE + r": (\d+) ", t)]
    if not done:
        pytest.fail(f"the shell step's key hunt left no output anywhere\n{run.describe()}")
    if not any(int(m.group(1)) > 0 for m in done):
        pytest.fail(f"the key hunt read no process environment of the run\n{run.describe()}")
    found = re.compile("(" + "|".join(KEY_HUNT_FOUND) + r")[^\\\n\"]*")
    return [f"{where}: {m.group(0)}" for where, text in texts.items() for m in found.finditer(text)]


def _output_texts(run: RunRecord) -> dict[str, str]:
    return {
        str(path.relative_to(run.output_dir)): path.read_bytes().decode("utf-8", "replace")
        for path in sorted(run.output_dir.rglob("*"))
        if path.is_file()
    }


class BaseHermetic(CheckBase):
    @req("HOLON-HERM-001")
    def test_user_config_never_reaches_the_model(self, holon_target: Target) -> None:
        run = _planted_run(holon_target)
        # NAME=marker pairs are the tool environment's (next check), not the model context's.
        leaks = {
            f"request {index + 1}": sorted(found)
            for index, text in enumerate(run.requests)
            if (found := canary.markers_in(_ASSIGNED.sub("", text)))
        }
        assert not leaks, (
            "the user's own config reached the model (each marker names the planted file, "
            f"home-* in HOME, parent-* above the workspace): {leaks}"
        )

    @req("HOLON-HERM-001")
    def test_user_config_never_reaches_the_engine_environment(self, holon_target: Target) -> None:
        run = _planted_run(holon_target)
        texts = {f"request {i + 1}": t for i, t in enumerate(run.requests)}
        texts |= {f"output {name}": text for name, text in _output_texts(run).items()}
        if not any(ENV_DUMP_SEEN in text for text in texts.values()):
            pytest.fail(
                "the shell step's `env` output is neither in a model request nor in the output "
                f"dir: the engine's tool environment cannot be verified\n{run.describe()}"
            )
        leaks = {
            where: sorted({f"{name}={value}" for name, value in _ASSIGNED.findall(text)})
            for where, text in texts.items()
            if canary.PREFIX in text and _ASSIGNED.search(text)
        }
        assert not leaks, (
            "variables from the user's .env or settings files reached the engine's tool "
            f"environment: {leaks}"
        )

    @req("HOLON-HERM-001")
    def test_user_config_is_never_written(self, holon_target: Target) -> None:
        run = _planted_run(holon_target)
        changed = [str(p) for p, before in run.planted.items() if canary.digest(Path(p)) != before]
        assert not changed, f"the run changed the user's own config files: {changed}"

    @req("HOLON-HERM-001")
    def test_unrelated_secrets_never_reach_the_engine(self, holon_target: Target) -> None:
        """holon-agent runs with AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN and a custom secret in its
        environment: no program of the run is started with them, no tool prints them, no
        model request carries them."""
        run = _planted_run(holon_target)
        values = PLANTED_SECRETS
        leaks: list[str] = []
        texts = {f"request {i + 1}": t for i, t in enumerate(run.requests)}
        texts |= {f"output {name}": text for name, text in _output_texts(run).items()}
        if not any(ENV_DUMP_SEEN in text for text in texts.values()):
            pytest.fail(f"the shell step's `env` output was recorded nowhere\n{run.describe()}")
        for where, text in texts.items():
            leaks += [f"{where}: {name}" for name, value in values.items() if value in text]
        if run.execs is None:
            warnings.warn(
                "strace is unavailable: the environments of the engine's own processes were "
                "not verified (only its tools' `env` output and the model requests)",
                stacklevel=1,
            )
        for pid, program, env in run.execs or ():
            found = [n for n, v in values.items() if n in env or v in env.values()]
            if found:
                leaks.append(f"{program} (pid {pid}) started with {', '.join(found)}")
        assert not leaks, (
            "secrets from holon-agent's environment that no adapter asked for reached the "
            f"engine: {sorted(set(leaks))[:12]}"
        )

    @req("HOLON-KEY-001")
    @cap("needs_credentials")
    def test_the_model_credential_never_reaches_the_engine(self, holon_target: Target) -> None:
        """The success run's shell step prints its environment and hunts for the key (in its
        environment, in ``/proc/<pid>/environ`` of every process of the run, holon-agent
        included, and in the home directory; by value and by a real key's shape): that output
        (in the next model request, or the output dir) and the environment of every program
        the run started must not hold the adapter's credential value; the model gateway gave
        the engine a placeholder, and holon-agent scrubbed the key from its own environment."""
        if holon_target.adapter.model_api is None:
            pytest.skip(f"N/A: adapter {holon_target.name} declares no model API")
        run = _planted_run(holon_target)
        values = {f"credential {s[:6]}...": s for s in run.secrets}
        texts = {f"request {i + 1}": t for i, t in enumerate(run.requests)}
        # An engine that calls the model sends its shell step's `env` output back to it; an
        # offline one (a replay-based adapter) is verified by its processes' environments.
        if run.model_requests and not any(ENV_DUMP_SEEN in text for text in texts.values()):
            pytest.fail(f"the shell step's `env` output reached no model request\n{run.describe()}")
        if not run.model_requests and run.execs is None:
            pytest.fail("the engine called no model and strace is unavailable: nothing verified")
        leaks = [
            f"{where}: {name}"
            for where, text in texts.items()
            for name, value in values.items()
            if value in text
        ]
        leaks += _key_hunt(texts | {f"output {n}": t for n, t in _output_texts(run).items()}, run)
        if run.execs is None:
            warnings.warn(
                "strace is unavailable: only the tools' `env` output was verified",
                stacklevel=1,
            )
        for pid, program, env in run.execs or ():
            found = [name for name, value in values.items() if value in env.values()]
            if found:
                leaks.append(f"{program} (pid {pid}) started with {', '.join(found)}")
        assert not leaks, (
            "the model credential reached the engine's process tree (run it through the model "
            f"gateway: docs/gateway.md): {sorted(set(leaks))[:12]}"
        )

    @req("HOLON-BUDGET-001")
    @cap("needs_credentials")
    def test_a_budget_stops_the_run_at_the_next_model_call(self, holon_target: Target) -> None:
        """A budget of one model call on a task that needs three: the second call is refused,
        the run ends ``budget_exceeded`` and diff.patch keeps the file the first call wrote."""
        if holon_target.adapter.model_api is None:
            pytest.skip(f"N/A: adapter {holon_target.name} declares no model API")
        run = holon_target.run("budget")
        if not run.requests:
            pytest.skip(f"N/A: the {holon_target.name} engine calls no model")
        manifest = run.manifest or {}
        reason = manifest.get("metadata", {}).get("reason")
        assert (run.exit_code, reason) == (1, "budget_exceeded"), run.describe()
        assert run.model_requests == 1, f"{run.model_requests} model calls went upstream"
        patch = run.output_dir / "diff.patch"
        assert patch.is_file() and "hello.txt" in patch.read_text("utf-8", "replace"), (
            "diff.patch lost the work done before the budget stopped the run"
        )
