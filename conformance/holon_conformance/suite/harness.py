"""Run one case of one adapter: a fresh ``holon-agent`` process, observed from the outside.

Before and after each run the harness records what the contract constrains: hashes of the
input dir, the workspace's git refs, new files in a sentinel HOME, a sentinel TMPDIR, the task
root and ``/tmp``, and processes left alive (the test process is a child subreaper, so even
``setsid`` daemons come back to it). Where ``strace`` works, the run's process tree is traced
(:mod:`trace`): paths it created in the shared ``/tmp`` and every environment a program of
the run was started with are attributed to the run itself. Several checks read one run: a
run is cached per (adapter, case), because the checks look at different facts of it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from holon_conformance.suite import canary, room_escape, trace
from holon_conformance.suite.agent_env import PLANTED_SECRETS, agent_base_env
from holon_conformance.suite.agent_process import run_pipes, run_pty
from holon_conformance.suite.cases import CASES, CONTEXT, WORKSPACE, Case
from holon_conformance.suite.run_record import RunRecord

if TYPE_CHECKING:
    from holon_conformance.suite.serve_session import ServeRecord
    from holon_core.engine.adapter import EngineAdapter
    from holon_core.hooks.manager import HolonPlugins

#: Seconds a case's run may take before the suite stops it.
RUN_TIMEOUT = 120.0


class Target:
    """One adapter under test: its object, its versions and a cache of runs."""

    def __init__(self, name: str, plugins: HolonPlugins, workdir: Path) -> None:
        self.name = name
        self.plugins = plugins
        self.adapter: EngineAdapter = plugins.get_engine(name)
        self.workdir = workdir
        self.runs: dict[str, RunRecord] = {}
        self.serve_record: ServeRecord | None = None
        self.engine_version: str | None = None
        self.engine_error: str | None = None
        #: Writes to the shared /tmp are RFC2-OUT-003 failures (``--holon-lenient-tmp``: warnings).
        self.strict_tmp = True
        self._locate_engine()

    def _locate_engine(self) -> None:
        if self.adapter.engine_binary_name is None:
            return
        binary = self.adapter.locate_binary(agent_base_env())
        if binary is None:
            self.engine_error = (
                f"engine {self.adapter.engine_binary_name!r} of adapter {self.name!r} is not "
                "installed: "
                f"run `holon engines install {self.name}` or set {self.adapter.binary_env}"
            )
            return
        self.engine_version = self.adapter.version_of(binary)

    @property
    def distribution(self) -> tuple[str | None, str | None]:
        return self.plugins.adapter_version(self.name)

    def untestable(self) -> str | None:
        """Why the suite cannot drive this adapter at all (a FAIL, never a skip)."""
        if self.engine_error:
            return self.engine_error
        probe = self.adapter.endpoint_env("http://127.0.0.1:9")
        if self.adapter.model_api is not None and not probe:
            return (
                f"adapter declares model_api={self.adapter.model_api!r} but endpoint_env() "
                "returns nothing: the suite cannot point its engine at the scripted provider"
            )
        if self.adapter.capabilities.needs_credentials and not self.adapter.credential_env:
            return "adapter declares needs_credentials but names no credential_env"
        return None

    def run(self, case_name: str) -> RunRecord:
        if case_name not in self.runs:
            self.runs[case_name] = run_case(self, CASES[case_name])
        return self.runs[case_name]

    def serve(self) -> ServeRecord:
        """The adapter's one ``holon-agent serve`` session, run on first use (SERVE checks)."""
        if self.serve_record is None:
            from holon_conformance.suite.serve_session import run_session

            self.serve_record = run_session(self)
        return self.serve_record


def _snapshot(root: Path) -> dict[str, str]:
    from holon_core.testing import snapshot_tree

    return snapshot_tree(root) if root.exists() else {}


def _tmp_entries() -> dict[str, float]:
    base = Path(tempfile.gettempdir())
    found: dict[str, float] = {}
    with os.scandir(base) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                found[entry.path] = entry.stat(follow_symlinks=False).st_mtime
    return found


def _refs(workspace: Path) -> str:
    done = subprocess.run(
        ["git", "for-each-ref", "--format=%(refname) %(objectname)"],
        cwd=workspace,
        capture_output=True,
        text=True,
        check=False,
    )
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=workspace, capture_output=True, text=True, check=False
    )
    return done.stdout + "HEAD " + head.stdout


def prepare_task(target: Target, case: Case) -> tuple[Path, Path, Path, Path]:
    from holon_core.testing import make_task

    root = Path(tempfile.mkdtemp(prefix=f"{target.name}-{case.name}-", dir=target.workdir))
    task = make_task(
        root / "task",
        goal="Create hello.txt containing 'hello from holon' and rewrite data.bin.",
        files=dict(WORKSPACE),
        spec_extra=case.spec_extra,
        context=dict(CONTEXT),
    )
    if case.no_spec:
        task.spec.unlink()
    output = task.output
    if case.output_is_file:
        output.rmdir()
        output.write_text("not a directory\n", encoding="utf-8")
    for sentinel in ("home", "tmp"):
        (root / sentinel).mkdir()
    return root, task.input, task.workspace, output


def run_case(target: Target, case: Case) -> RunRecord:
    from holon_conformance.processes import become_subreaper, descendant_pids, leftovers
    from holon_conformance.provider import ScriptedProvider, parse_scenario

    become_subreaper()
    root, input_dir, workspace, output = prepare_task(target, case)
    # Above the workspace: where Claude (CLAUDE.md) and Gemini (.env) walk up to.
    planted = canary.plant(root / "home", workspace.parent) if case.canaries else {}
    escape = room_escape.open_escape(root / "home", workspace) if case.room else None
    if escape is not None:
        planted |= {path: canary.digest(path) for path in escape.planted}
    fill = escape.fill if escape is not None else str
    scenario = parse_scenario({"turns": case.turns}, f"conformance-{case.name}")
    with contextlib.ExitStack() as stack:
        if escape is not None:
            stack.callback(escape.close)
        provider = stack.enter_context(ScriptedProvider(scenario, workdir=str(workspace)))
        endpoint = _endpoint(target, provider.url)
        secret = next((v for k, v in endpoint.items() if k in target.adapter.credential_env), "")
        turns = json.loads(fill(_fill(json.dumps(case.turns), secret)))
        provider.set_scenario(parse_scenario({"turns": turns}, f"conformance-{case.name}"))
        replay = json.loads(fill(_fill(json.dumps(case.replay), secret)))
        (root / "replay.yaml").write_text(yaml.safe_dump(replay, sort_keys=False), "utf-8")
        env = _agent_env(target, case, endpoint, root)
        env |= escape.env() if escape is not None else {}
        secrets = [v for k, v in endpoint.items() if k in target.adapter.credential_env]
        argv = [sys.executable, "-m", "holon_core.agent", "--engine", target.name]
        argv += ["--input", str(input_dir), "--workspace", str(workspace)]
        argv += ["--output", str(output), *case.args]
        before_inputs = _snapshot(input_dir)
        refs_before = _refs(workspace)
        tmp_before = _tmp_entries()
        pids_before = descendant_pids()
        started = time.monotonic()
        run = run_pty if case.pty else run_pipes
        record = run(case, argv, env, root, RUN_TIMEOUT)
        record.seconds = time.monotonic() - started
        record.leftovers = leftovers(pids_before, grace=1.5)
        record.model_requests = len(provider.turn_requests())
        record.requests = [request.to_json() for request in provider.requests]
    _read_trace(record, root)
    record.root, record.output_dir, record.workspace = root, output, workspace
    record.secrets, record.planted, record.escape = secrets, planted, escape
    after_inputs = _snapshot(input_dir)
    record.input_changed = sorted(
        k
        for k in set(before_inputs) | set(after_inputs)
        if before_inputs.get(k) != after_inputs.get(k)
    )
    record.refs_before, record.refs_after = refs_before, _refs(workspace)
    record.outside_writes = _outside_writes(root, set(planted))
    record.tmp_new = [
        path
        for path, mtime in _tmp_entries().items()
        if path not in tmp_before and mtime >= started - 1 and not path.startswith(str(root))
    ]
    _read_manifest(record)
    return record


def _endpoint(target: Target, url: str) -> dict[str, str]:
    """The adapter's endpoint variables for the scripted server; credentials the endpoint
    does not supply (an offline engine's) get a fake value."""
    endpoint = target.adapter.endpoint_env(url)
    endpoint |= {
        name: f"holon-conformance-fake-{name.lower()}"
        for name in target.adapter.credential_env
        if not any(n in endpoint for n in target.adapter.credential_env)
    }
    return endpoint


def _agent_env(target: Target, case: Case, endpoint: dict[str, str], root: Path) -> dict[str, str]:
    """holon-agent's environment for the case: the base, planted secrets, the endpoint,
    sentinel HOME and TMPDIR, the replay script and the timeouts."""
    env = agent_base_env() | PLANTED_SECRETS | endpoint
    env |= {"HOME": str(root / "home"), "TMPDIR": str(root / "tmp")}
    env |= {"HOLON_REPLAY_SCRIPT": str(root / "replay.yaml"), "HOLON_TIMEOUT": "90"}
    env["HOLON_SILENCE_TIMEOUT"] = "60"
    if case.no_credentials:
        for name in target.adapter.credential_env:
            env.pop(name, None)
    return env


def _fill(script: str, secret: str) -> str:
    """A case's script (JSON text) with ``{secret}`` (the credential) and ``{secret_split}``
    (the same as two adjacent Python string literals, so a command can look for it without
    holding it whole)."""
    value = secret or "holon-conformance-no-credential"
    half = len(value) // 2
    split = json.dumps(f"{json.dumps(value[:half])} {json.dumps(value[half:])}")[1:-1]
    return script.replace("{secret}", secret).replace("{secret_split}", split)


def _read_trace(record: RunRecord, root: Path) -> None:
    if not (root / "trace").is_dir():
        return
    found = trace.read_trace(root / "trace" / "run")
    # The agent is the process that executed exactly our command line.
    agents = [pid for pid, _, argv, _ in found.execs if argv == record.argv]
    record.agent_pid = agents[0] if agents else record.agent_pid
    if record.agent_pid in found.exit_codes:
        record.exit_code = found.exit_codes[record.agent_pid]
    tmp = Path(tempfile.gettempdir()).resolve()
    roots = trace.interpreter_roots()
    created = found.created_under(tmp, root.resolve())
    record.tmp_created = [path for path in created if not trace.is_own_bytecode(path, roots)]
    record.execs = [(p, prog, env) for p, prog, _, env in found.execs if p != record.agent_pid]


def _outside_writes(root: Path, planted: set[Path]) -> list[str]:
    """New files in the sentinel HOME and TMPDIR, and beside the task's own directories.

    Planted canaries (and the directories holding them) are the user's, not new; whether
    they were changed is the hermeticity check's business.
    """
    known = planted | {parent for path in planted for parent in path.parents}
    found = [str(p) for d in ("home", "tmp") for p in sorted((root / d).rglob("*"))]
    expected = {"task", "home", "tmp", "replay.yaml", "trace"}
    found += [str(p) for p in sorted(root.iterdir()) if p.name not in expected]
    task_expected = {"input", "workspace", "output", "state"}
    found += [str(p) for p in sorted((root / "task").iterdir()) if p.name not in task_expected]
    planted_dirs = sorted(p for p in known if p.is_dir() and root / "task" in p.parents)
    found += [str(p) for d in planted_dirs for p in sorted(d.rglob("*"))]
    return [path for path in found if Path(path) not in known]


def _read_manifest(record: RunRecord) -> None:
    path = record.output_dir / "manifest.json"
    if not path.is_file():
        record.manifest_error = f"no manifest.json in {record.output_dir}"
        return
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        record.manifest_error = f"manifest.json is not JSON: {exc}"
        return
    if not isinstance(data, dict):
        record.manifest_error = "manifest.json is not a JSON object"
        return
    record.manifest = data


def cleanup(target: Target) -> None:
    shutil.rmtree(target.workdir, ignore_errors=True)
