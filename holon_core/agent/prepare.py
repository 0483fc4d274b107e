"""Steps 1-6 of the run: everything up to the launch; nothing here starts the engine.

Every refusal comes from the admission (:mod:`holon_core.agent.admission`), the same checks
``holon-agent --probe`` makes, so a green probe is never followed by a run refused here.
"""

from __future__ import annotations

import secrets
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.agent.admission import Admission, admit_engine, admit_skills
from holon_core.agent.prompt import compile_prompt
from holon_core.agent.skill_env import redact_passed, settle_skill_env
from holon_core.agent.state import RunState
from holon_core.engine.adapter import RunContext
from holon_core.engine.capability import capability_warnings
from holon_core.skill.layers import describe
from holon_core.untrusted.redact import Redactor, secret_values
from holon_core.workspace import record_baseline

if TYPE_CHECKING:
    from holon_core.agent.options import AgentOptions


def prepare(run: RunState, options: AgentOptions, run_id: str) -> RunContext:
    """Steps 1-6: load, admit the engine, baseline, skills, prompt, context, staged skills."""
    found = _admit(run, options)
    spec, engine = run.spec, found.engine
    assert spec is not None and engine is not None and run.plugins is not None

    run.evidence.phase("baseline")
    run.run_dir = make_run_dir(run, run_id)
    run.baseline = record_baseline(run.paths.workspace, run.run_dir / "baseline")
    run.check_cancel()

    run.evidence.phase("skills")
    secrets = _admit_skills(run, found, options)
    context = _context(run, found, options, run_id, secrets)
    run.context = context
    settle_skill_env(run, context, found.native, found.needed)
    for warning in capability_warnings(engine, context):
        run.log.warning("capability", detail=warning)
        run.metadata.setdefault("warnings", []).append(warning)
    context.home.mkdir(parents=True, exist_ok=True)
    context.tmp.mkdir(parents=True, exist_ok=True)
    staged = run.plugins.stage_skills(context, context.skills)
    run.metadata["_staged"] = staged
    return context


def _admit(run: RunState, options: AgentOptions) -> Admission:
    """Plugins, spec, adapter and preflight: the run's spec and engine set, or a refusal."""
    ev = run.evidence
    ev.phase("load")
    found = admit_engine(
        run.paths,
        options.engine,
        run.env,
        plugins=options.plugins,
        spec=options.spec,
        preflight=options.preflight,
        on_phase=ev.phase,
        model=options.model,
    )
    run.plugins = found.plugins
    if found.document is not None:
        from holon_core.spec.load import build_spec

        run.spec = build_spec(found.document)
        for warning in found.document.warnings:
            run.log.warning("spec", detail=warning)
    else:
        run.spec = options.spec
    if found.engine is not None:
        run.engine = found.engine
        run.log.bind(engine=found.engine.name)
        run.redact = Redactor(secret_values(run.env, found.engine.credential_env))
        ev.redact = run.redact
    _refuse(found)
    run.metadata["checks"] = [c.as_dict() for c in found.preflight]
    run.check_cancel()
    return found


def _admit_skills(run: RunState, found: Admission, options: AgentOptions) -> list[str]:
    """The run's skills admitted and logged; returns the secrets the engine is passed."""
    assert run.run_dir is not None and found.engine is not None
    archives = run.run_dir / "skill-archives"
    admit_skills(found, run.paths, run.env, options.skills, archives)
    secrets = redact_passed(run, found.engine, found.needed.names)  # before a refusal's record
    _refuse(found)
    for note in found.notes:
        run.log.info("skill precedence", detail=note)
    for skill in found.skills:
        run.log.info("skill", **describe(skill))
        for warning in skill.warnings:
            run.log.warning("skill", detail=warning)
            run.metadata.setdefault("warnings", []).append(warning)
    return secrets


def _context(
    run: RunState, found: Admission, options: AgentOptions, run_id: str, secrets: list[str]
) -> RunContext:
    """The run context the adapter and the hooks get, with the compiled prompt."""
    paths, spec, engine, run_dir = run.paths, run.spec, found.engine, run.run_dir
    assert spec is not None and engine is not None and run_dir is not None
    prompt = compile_prompt(spec, paths.input, paths.workspace, paths.output)
    if options.instructions:
        prompt.system = f"{prompt.system}\n\n{options.instructions}"
    if options.history:
        prompt.user = f"{options.history}\n\n{prompt.user}"
    return RunContext(
        engine=engine,
        spec=spec,
        run_id=run_id,
        input_dir=paths.input,
        workspace=paths.workspace,
        output_dir=paths.output,
        state_dir=run_dir.parent,
        run_dir=run_dir,
        env=run.env,
        prompt=prompt,
        model=options.model or run.env.get("HOLON_MODEL") or spec.engine.model,
        max_steps=spec.constraints.max_steps,
        binary=found.binary,
        engine_version=found.version,
        skills=found.skills,
        secrets=secrets,
        resume_session=options.resume_session,
        home_root=options.home_root,
    )


def _refuse(found: Admission) -> None:
    """End the run with the first refusal the admission met (the probe reports the same)."""
    if found.refusal is not None:
        raise found.refusal


def make_run_dir(run: RunState, run_id: str) -> Path:
    if run.paths.state is not None:
        run.paths.state.mkdir(parents=True, exist_ok=True)
        path = run.paths.state / f"run-{run_id}-{secrets.token_hex(4)}"
        path.mkdir()
        return path
    run.private_state = True
    return Path(tempfile.mkdtemp(prefix=f"holon-run-{run_id}-"))
