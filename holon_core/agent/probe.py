"""``holon-agent --probe``: is this agent ready to run, without starting the engine's task?

Checks the spec exists and parses, its skills and ``--skill`` resolve and validate (the run's
own resolver, so a skill set a run would refuse is refused here), the output dir is writable,
the workspace exists, the adapter resolves, its engine binary answers ``--version`` and
credentials are present.
Writes a minimal valid manifest (``metadata.mode = "probe"``) listing every check.
Kept free of pydantic and of the run pipeline so it stays fast (budget: 100 ms).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from holon_core import yaml_safe
from holon_core._version import __version__
from holon_core.agent.output_dir import foreign_problem, mark_owned
from holon_core.agent.paths import AgentPaths, output_writable, overlap_problem
from holon_core.checks import Check
from holon_core.errors import HolonError
from holon_core.files import HeldDir
from holon_core.quoting import shorten
from holon_core.redact import Redactor, secret_values
from holon_core.spec_file import read_spec_text

if TYPE_CHECKING:
    from holon_core.adapter import EngineAdapter


def spec_check(spec: Path) -> Check:
    try:
        data = yaml_safe.load(read_spec_text(spec))
    except HolonError as exc:
        return Check("spec", False, exc.message, exc.hint)
    except yaml.YAMLError as exc:
        problem = shorten(str(exc), 300)
        return Check("spec", False, f"{spec} does not parse: {problem}", "fix the YAML syntax")
    if not isinstance(data, dict):
        return Check("spec", False, f"{spec} is not a mapping", "see `holon schema spec`")
    if data.get("version") != "v1" or data.get("kind") != "Holon":
        return Check("spec", False, f"{spec}: version/kind not v1/Holon", 'use version: "v1"')
    goal = data.get("goal")
    text = goal.get("description") if isinstance(goal, dict) else goal
    if not isinstance(text, str) or not text.strip():
        return Check("spec", False, f"{spec}: goal is missing", "add goal: <what to do>")
    return Check("spec", True, str(spec))


def _spec_data(spec: Path) -> dict[str, Any]:
    """The spec as a mapping (:func:`spec_check` has already proven it parses)."""
    data = yaml_safe.load(read_spec_text(spec))
    return data if isinstance(data, dict) else {}


def skills_check(paths: AgentPaths, flags: list[Path], env: Mapping[str, str]) -> Check:
    try:
        data = yaml_safe.load(read_spec_text(paths.spec))
    except (HolonError, yaml.YAMLError):
        return Check("skills", False, "not checked: the spec does not load", "fix the spec")
    meta = data.get("metadata") if isinstance(data, dict) else None
    refs = meta.get("skills", []) if isinstance(meta, dict) else []
    if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
        return Check("skills", False, "metadata.skills is not a list of names", "skills: [a, b]")
    import tempfile

    from holon_core.skills import resolve_skills

    workspace = paths.workspace if paths.workspace.is_dir() else None
    try:
        with tempfile.TemporaryDirectory(prefix="holon-probe-") as scratch:
            skills, _ = resolve_skills(
                refs, flags, paths.input, workspace=workspace, env=env, scratch=Path(scratch)
            )
    except HolonError as exc:
        return Check("skills", False, exc.message, exc.hint)
    found = ", ".join(f"{s.name} ({s.source})" for s in skills) or "none"
    return Check("skills", True, found)


def probe(
    paths: AgentPaths,
    engine_flag: str | None,
    env: Mapping[str, str],
    skills: list[Path] | None = None,
) -> int:
    started = time.monotonic()
    checks = [spec_check(paths.spec), skills_check(paths, skills or [], env)]
    why = overlap_problem(paths) or foreign_problem(paths.output) or output_writable(paths.output)
    checks.append(
        Check("output", why is None, why or str(paths.output), "pass a writable --output")
    )
    checks.append(
        Check("workspace", paths.workspace.is_dir(), str(paths.workspace), "pass --workspace DIR")
    )
    meta: dict[str, Any] = {"agent": "holon-agent", "holon_version": __version__, "mode": "probe"}
    credential_names: tuple[str, ...] = ()
    engine: EngineAdapter | None = None
    try:
        from holon_core.agent.select import select_engine
        from holon_core.plugins import load_plugins

        plugins = load_plugins(env)
        engine = select_engine(plugins, engine_flag, env, None)
        credential_names = engine.credential_env
        checks.append(Check("adapter", True, engine.name))
        dist, version = plugins.adapter_version(engine.name)
        meta["adapter"] = {"name": engine.name, "distribution": dist, "version": version}
        meta["engine"] = {"name": engine.name}
        engine_checks = plugins.preflight(engine, env)
        checks.extend(engine_checks)
        for check in engine_checks:
            if check.name == "engine_binary" and check.ok:
                meta["engine"]["version"] = check.detail.rsplit(" ", 1)[-1]
    except HolonError as exc:
        checks.append(Check("adapter", False, exc.message, exc.hint))
        engine = None
    if checks[0].ok:  # the spec parsed: the variables a run would pass or refuse
        from holon_core.agent.probe_env import env_check

        check, passed = env_check(_spec_data(paths.spec), engine, env, paths, skills or [])
        checks.append(check)
        credential_names += passed  # a run redacts them like credentials; so does the probe
    failed = [c for c in checks if not c.ok]
    meta["checks"] = [c.as_dict() for c in checks]
    meta["reason"] = "ok" if not failed else "probe_failed"
    manifest: dict[str, Any] = {
        "status": "completed" if not failed else "failed",
        "outcome": "success" if not failed else "failure",
        "duration": f"{time.monotonic() - started:.1f}s",
        "artifacts": ["manifest.json"],
        "metadata": meta,
    }
    if failed:
        manifest["error"] = "probe failed: " + "; ".join(c.message() for c in failed)
    redact = Redactor(secret_values(env, credential_names))
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
    return 0 if not failed else 1
