"""``holon-agent --probe``: is this agent ready to run, without starting the engine's task?

The probe makes the run's own admission (:mod:`holon_core.agent.admission`): the plugins, the
spec (:mod:`holon_core.spec.rules`), the adapter, the preflight (workspace, engine binary,
credentials), the skills and ``--skill``, the context files, the engine's workspace skill
folders and the variables, and beside them the output dir. An input the run would refuse
before the launch, the probe refuses with the same ``metadata.reason`` and ``error``; it goes
on past the first refusal so ``metadata.checks`` lists every problem at once.
Writes a minimal valid manifest (``metadata.mode = "probe"``) listing every check.
Kept free of pydantic and of what only a run uses (an adapter's event parser, ``subprocess``:
``tests/test_probe_imports.py``); the CPU goal is 5x ``python -c pass`` (``bench/probe_cpu.py``).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from holon_core._version import __version__
from holon_core.agent.admission import Admission, admit_engine, admit_skills
from holon_core.agent.output_dir import foreign_problem, mark_owned
from holon_core.agent.paths import AgentPaths, output_writable, overlap_problem
from holon_core.engine.checks import Check
from holon_core.untrusted.files import HeldDir
from holon_core.untrusted.redact import Redactor, secret_values

#: ``metadata.reason`` of a failed probe no run refusal explains (the output dir's problems
#: write no manifest at all, so none today).
PROBE_FAILED = "probe_failed"


def probe(
    paths: AgentPaths,
    engine_flag: str | None,
    env: Mapping[str, str],
    skills: list[Path] | None = None,
    *,
    model: str | None = None,
) -> int:
    started = time.monotonic()
    why = overlap_problem(paths) or foreign_problem(paths.output) or output_writable(paths.output)
    found = admit_engine(paths, engine_flag, env, keep_going=True, model=model)
    with tempfile.TemporaryDirectory(prefix="holon-probe-") as scratch:  # pinned archives
        admit_skills(found, paths, env, skills or [], Path(scratch))
    output = Check("output", why is None, why or str(paths.output), "pass a writable --output")
    checks = [*found.checks, output]
    credentials = found.engine.credential_env if found.engine is not None else ()
    # the variables a run would pass are redacted like the adapter's credentials
    redact = Redactor(secret_values(env, (*credentials, *found.needed.names)))
    manifest = _manifest(found, checks, started)
    if why is None:
        text = redact(json.dumps(manifest, indent=2) + "\n")
        held = HeldDir.open(paths.output)
        try:
            mark_owned(held)  # the run that follows the probe may use this dir
            held.write_atomic("manifest.json", text)
        finally:
            held.close()
    for check in checks:
        mark = "ok  " if check.ok else "FAIL"
        print(redact(f"probe {mark} {check.message()}"), file=sys.stderr)
    return 1 if manifest["outcome"] == "failure" else 0


def _manifest(found: Admission, checks: list[Check], started: float) -> dict[str, Any]:
    """The probe's record: the run's first refusal as its reason and error."""
    meta: dict[str, Any] = {"agent": "holon-agent", "holon_version": __version__, "mode": "probe"}
    if found.engine is not None and found.plugins is not None:
        name = found.engine.name
        dist, version = found.plugins.adapter_version(name)
        meta["adapter"] = {"name": name, "distribution": dist, "version": version}
        meta["engine"] = {"name": name}
        if found.version is not None:
            meta["engine"]["version"] = found.version
    meta["checks"] = [c.as_dict() for c in checks]
    failed = [c for c in checks if not c.ok]
    refusal = found.refusal
    meta["reason"] = refusal.reason if refusal else PROBE_FAILED if failed else "ok"
    manifest: dict[str, Any] = {
        "status": "failed" if failed else "completed",
        "outcome": "failure" if failed else "success",
        "duration": f"{time.monotonic() - started:.1f}s",
        "artifacts": ["manifest.json"],
        "metadata": meta,
    }
    if refusal is not None:
        manifest["error"] = str(refusal)  # what the run's manifest would say
    elif failed:
        manifest["error"] = "probe failed: " + "; ".join(c.message() for c in failed)
    return manifest
