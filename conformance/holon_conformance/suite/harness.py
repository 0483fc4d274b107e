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
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from holon_conformance.suite import canary, trace
from holon_conformance.suite.cases import CASES, CONTEXT, WORKSPACE, Case

if TYPE_CHECKING:
    from holon_conformance.suite.serve_session import ServeRecord
    from holon_core.engine.adapter import EngineAdapter
    from holon_core.hooks.manager import HolonPlugins

RUN_TIMEOUT = 120.0
#: Seconds holon-agent gets to record a run the suite stops (a prompt seen, a hang).
STOP_GRACE = 5.0
#: Variables of the test process that reach holon-agent (everything else is set explicitly).
#: PYTHONPATH lets ``HOLON_PLUGINS`` name an adapter that is not installed (a checkout).
PASSED = (
    "PATH",
    "LANG",
    "PYTHONPATH",
    "HOLON_PLUGINS",
    "HOLON_LOAD_PLUGINS",
    "HOLON_DISABLE_PLUGINS",
)
#: Unrelated secrets in holon-agent's environment: none may reach the engine, its tools, a
#: model request or the output (HOLON-HERM-001, HOLON-SEC-001).
PLANTED_SECRETS = {
    "AWS_SECRET_ACCESS_KEY": "HOLONPLANTED-aws-wJalrXUtnFEMI-K7MDENG-bPxRfiCY",
    "GITHUB_TOKEN": "ghp_HOLONPLANTEDgithubtoken0123456789abcdef",
    "ACME_DEPLOY_TOKEN": "HOLONPLANTED-custom-acme-deploy-7c1e",
}


@dataclass
class RunRecord:
    """Everything observed about one run."""

    case: str
    argv: list[str]
    exit_code: int | None
    output: str
    seconds: float
    root: Path
    output_dir: Path
    workspace: Path
    manifest: dict[str, Any] | None = None
    manifest_error: str | None = None
    timed_out: bool = False
    prompt_seen: str | None = None
    input_changed: list[str] = field(default_factory=list)
    outside_writes: list[str] = field(default_factory=list)
    #: New entries in the shared /tmp during the run (snapshot: maybe other processes').
    tmp_new: list[str] = field(default_factory=list)
    #: Paths the run's own processes created in the shared /tmp (None: not traced).
    tmp_created: list[str] | None = None
    #: (pid, program, environment) of every program the run started (None: not traced).
    execs: list[tuple[int, str, dict[str, str]]] | None = None
    agent_pid: int | None = None
    refs_before: str = ""
    refs_after: str = ""
    leftovers: list[str] = field(default_factory=list)
    model_requests: int = 0
    #: Every request the scripted provider saw, as JSON (path, query, redacted headers, body).
    requests: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    #: Canary files planted as user config (see :mod:`canary`) -> their hash before the run.
    planted: dict[Path, str] = field(default_factory=dict)

    @property
    def stopped(self) -> bool:
        """The suite ended the run (a prompt on the terminal, or the run timeout)."""
        return self.timed_out or self.prompt_seen is not None

    def describe(self) -> str:
        tail = "\n".join(self.output.strip().splitlines()[-15:])
        return f"case {self.case}: exit {self.exit_code} after {self.seconds:.1f}s\n{tail}"


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


def agent_base_env() -> dict[str, str]:
    from holon_core.engine.binaries import managed_engine_dir

    env = {k: os.environ[k] for k in PASSED if k in os.environ}
    env |= {k: v for k, v in os.environ.items() if k.startswith("HOLON_") and k.endswith("_BIN")}
    env["HOLON_ENGINES_DIR"] = str(managed_engine_dir(os.environ))
    env.setdefault("LANG", "C.UTF-8")
    return env


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
    scenario = parse_scenario({"turns": case.turns}, f"conformance-{case.name}")
    with ScriptedProvider(scenario, workdir=str(workspace)) as provider:
        endpoint = target.adapter.endpoint_env(provider.url)
        # Credentials the endpoint does not supply (an offline engine's) get a fake value.
        endpoint |= {
            name: f"holon-conformance-fake-{name.lower()}"
            for name in target.adapter.credential_env
            if not any(n in endpoint for n in target.adapter.credential_env)
        }
        secret = next((v for k, v in endpoint.items() if k in target.adapter.credential_env), "")
        turns = json.loads(json.dumps(case.turns).replace("{secret}", secret))
        provider.set_scenario(parse_scenario({"turns": turns}, f"conformance-{case.name}"))
        replay = json.loads(json.dumps(case.replay).replace("{secret}", secret))
        (root / "replay.yaml").write_text(yaml.safe_dump(replay, sort_keys=False), "utf-8")
        env = agent_base_env() | PLANTED_SECRETS | endpoint
        env |= {"HOME": str(root / "home"), "TMPDIR": str(root / "tmp")}
        env |= {"HOLON_REPLAY_SCRIPT": str(root / "replay.yaml"), "HOLON_TIMEOUT": "90"}
        env["HOLON_SILENCE_TIMEOUT"] = "60"
        if case.no_credentials:
            for name in target.adapter.credential_env:
                env.pop(name, None)
        secrets = [v for k, v in endpoint.items() if k in target.adapter.credential_env]
        argv = [sys.executable, "-m", "holon_core.agent", "--engine", target.name]
        argv += ["--input", str(input_dir), "--workspace", str(workspace)]
        argv += ["--output", str(output), *case.args]
        before_inputs = _snapshot(input_dir)
        refs_before = _refs(workspace)
        tmp_before = _tmp_entries()
        pids_before = descendant_pids()
        started = time.monotonic()
        run = _run_pty if case.pty else _run_pipes
        record = run(case, argv, env, root)
        record.seconds = time.monotonic() - started
        record.leftovers = leftovers(pids_before, grace=1.5)
        record.model_requests = len(provider.turn_requests())
        record.requests = [request.to_json() for request in provider.requests]
    _read_trace(record, root)
    record.root, record.output_dir, record.workspace = root, output, workspace
    record.secrets, record.planted = secrets, planted
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


def _traced(argv: list[str], root: Path) -> tuple[list[str], bool]:
    if trace.strace_binary() is None:
        return argv, False
    (root / "trace").mkdir()
    return trace.traced_argv(argv, root / "trace" / "run"), True


def _run_pipes(case: Case, argv: list[str], env: dict[str, str], root: Path) -> RunRecord:
    """stdin closed (/dev/null), no controlling terminal (own session), output captured."""
    command, traced = _traced(argv, root)
    proc = subprocess.Popen(
        command,
        env=env,
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    agent = trace.agent_pid(proc.pid, argv) if traced else proc.pid
    timed_out = False
    deadline = time.monotonic() + RUN_TIMEOUT
    while True:
        try:
            out, _ = proc.communicate(timeout=0.2)
            break
        except subprocess.TimeoutExpired:
            if traced:
                trace.detach_when_done(proc.pid, agent)
            if time.monotonic() > deadline:
                timed_out = True
                with contextlib.suppress(ProcessLookupError):
                    os.kill(agent or proc.pid, signal.SIGTERM)  # as in _stop_pty
                try:
                    out, _ = proc.communicate(timeout=STOP_GRACE)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    out, _ = proc.communicate()
                break
    text = out.decode("utf-8", errors="replace")
    record = RunRecord(case.name, argv, proc.returncode, text, 0.0, root, root, root)
    record.timed_out, record.agent_pid = timed_out, agent
    return record


#: What an interactive question looks like on a terminal (onboarding, trust, permission, update).
PROMPT_PATTERN = (
    r"(?i)(\[y/n\]|\(y/n\)|\[yes/no\]|press (enter|any key)|do you (want|trust)|"
    r"continue\?|allow (this|once)|enter your|paste your|select an? |login with|sign in)"
)


def _run_pty(case: Case, argv: list[str], env: dict[str, str], root: Path) -> RunRecord:
    """The same run with a pseudo-terminal as stdin/stdout/stderr: it must never ask anything."""
    import pexpect

    command, traced = _traced(argv, root)
    child = pexpect.spawn(
        command[0], command[1:], env=env, cwd=str(root), encoding="utf-8", codec_errors="replace"
    )
    tracer = int(child.pid or 0)  # pexpect sets it once spawned
    agent = trace.agent_pid(tracer, argv) if traced else tracer
    chunks: list[str] = []
    prompt: str | None = None
    timed_out = False
    deadline = time.monotonic() + RUN_TIMEOUT
    while True:
        index = child.expect([PROMPT_PATTERN, pexpect.EOF, pexpect.TIMEOUT], timeout=1.0)
        if index != 2:
            chunks.append(child.before or "")
        if index == 0:
            prompt = str(child.after)
            chunks.append(prompt)
            break
        if index == 1:
            break
        if traced:
            trace.detach_when_done(tracer, agent)
        if time.monotonic() > deadline:
            timed_out = True
            break
    if prompt is not None or timed_out:
        chunks.append(_stop_pty(child, agent))
    child.close(force=True)
    exit_code = child.exitstatus if child.exitstatus is not None else None
    record = RunRecord(case.name, argv, exit_code, "".join(chunks), 0.0, root, root, root)
    record.prompt_seen, record.timed_out, record.agent_pid = prompt, timed_out, agent
    return record


def _stop_pty(child: Any, agent: int | None) -> str:
    """End a run the way a user would: SIGTERM to holon-agent, which then records a cancelled
    run and cleans up (the suite reports the prompt or the hang; the run's other rows are then
    judged on a finished run, not on one the suite killed), and SIGKILL after a grace."""
    import pexpect

    with contextlib.suppress(ProcessLookupError):
        os.kill(agent or child.pid, signal.SIGTERM)
    try:
        child.expect(pexpect.EOF, timeout=STOP_GRACE)
        return str(child.before or "")
    except pexpect.TIMEOUT:
        child.kill(signal.SIGKILL)
        return ""


def cleanup(target: Target) -> None:
    shutil.rmtree(target.workdir, ignore_errors=True)
