"""Everything a run refuses before it launches the engine: one code path for ``holon-agent``
and ``holon-agent --probe``.

The checks go in the order the run meets them: plugins, the spec (:mod:`holon_core.spec.rules`),
the adapter, the preflight (workspace, engine binary, credentials), then after the baseline
the skills, the context files the spec names, the engine's own workspace skill folders and the
variables. Each failure is kept twice: as a :class:`Check` (the probe lists every one) and as
the :class:`HolonError` the run ends with. The run raises the first; the probe writes the
first's reason and message, so a green probe is followed by a run that gets past all of them.

Pydantic-free (the probe's CPU goal is 5x ``python -c pass``): the spec is the mapping the rules
accepted, or the spec a long-lived caller built (:class:`SpecFacts` reads either). The probe
does not build the run's spec classes from the mapping: their import and creation cost it
about 7 ms, 5% of its CPU (``bench/probe_cpu.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from holon_core.agent.preflight import PreflightFailed, located, preflight_checks, preflight_refusal
from holon_core.engine.checks import Check
from holon_core.errors import HolonError
from holon_core.skill.env_rules import PassEnv, context_env_problems

if TYPE_CHECKING:
    from holon_core.agent.paths import AgentPaths
    from holon_core.engine.adapter import EngineAdapter
    from holon_core.hooks.manager import HolonPlugins
    from holon_core.models.spec import Spec
    from holon_core.skill.package import ResolvedSkill
    from holon_core.spec.rules import SpecDocument

#: A long-lived caller's preflight: (binary, version, checks).
Preflight = tuple[Path | None, str | None, list[Check]]


@dataclass(frozen=True)
class SpecFacts:
    """What the checks need from a spec, whichever form it came in."""

    engine: str | None = None
    skills: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    pass_env: tuple[str, ...] = ()
    #: ``constraints.budget`` (the model gateway's limits), as a mapping.
    budget: Mapping[str, Any] | None = None
    #: The spec's ``engine`` section with the adapter's own fields (``spec_problem``).
    engine_fields: Mapping[str, Any] = field(default_factory=dict)
    #: ``constraints.network.allow``: hosts the room's egress proxy lets through.
    network_allow: tuple[str, ...] = ()

    @classmethod
    def of_data(cls, data: Mapping[str, Any]) -> SpecFacts:
        """From a mapping :func:`holon_core.spec.rules.read_spec` accepted."""
        meta, context = data.get("metadata") or {}, data.get("context") or {}
        engine = data.get("engine") or {}
        return cls(
            engine=engine.get("name"),
            skills=tuple(meta.get("skills", ())),
            files=tuple(context.get("files", ())),
            env=dict(context.get("env", {})),
            pass_env=tuple(dict.fromkeys(context.get("pass_env", ()))),
            budget=(data.get("constraints") or {}).get("budget"),
            engine_fields=dict(engine),
            network_allow=tuple(
                ((data.get("constraints") or {}).get("network") or {}).get("allow") or ()
            ),
        )

    @classmethod
    def of_spec(cls, spec: Spec) -> SpecFacts:
        budget = spec.constraints.budget
        return cls(
            engine=spec.engine.name,
            skills=tuple(spec.metadata.skills),
            files=tuple(spec.context.files),
            env=dict(spec.context.env),
            pass_env=tuple(spec.context.pass_env),
            budget=None if budget is None else budget.to_dict(exclude_none=False),
            engine_fields=spec.engine.to_dict(exclude_none=False),
            network_allow=tuple(network.allow) if (network := spec.constraints.network) else (),
        )


@dataclass
class Admission:
    """The checks made, the refusals in run order, and what the run goes on with."""

    checks: list[Check] = field(default_factory=list)
    refusals: list[HolonError] = field(default_factory=list)
    plugins: HolonPlugins | None = None
    document: SpecDocument | None = None
    facts: SpecFacts | None = None
    engine: EngineAdapter | None = None
    binary: Path | None = None
    version: str | None = None
    preflight: list[Check] = field(default_factory=list)
    skills: list[ResolvedSkill] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    native: list[tuple[str, ResolvedSkill]] = field(default_factory=list)
    needed: PassEnv = field(default_factory=PassEnv)

    @property
    def refusal(self) -> HolonError | None:
        """What the run ends with: the first refusal it meets."""
        return self.refusals[0] if self.refusals else None

    def passed(self, name: str, detail: str) -> None:
        self.checks.append(Check(name, True, detail))

    def refuse(self, name: str, error: HolonError, check: Check | None = None) -> None:
        self.refusals.append(error)
        if check is None:
            check = Check(name, False, error.message, error.hint, reason=error.reason)
        self.checks.append(check)


def admit_engine(
    paths: AgentPaths,
    engine_flag: str | None,
    env: Mapping[str, str],
    *,
    plugins: HolonPlugins | None = None,
    spec: Spec | None = None,
    preflight: Preflight | None = None,
    keep_going: bool = False,
    on_phase: Callable[[str], None] | None = None,
    model: str | None = None,
) -> Admission:
    """Plugins, spec, adapter, preflight. The run stops at the first refusal (nothing after
    it runs, the engine's ``--version`` included); the probe (``keep_going``) checks on.
    ``model``: ``--model`` (else ``HOLON_MODEL``, else the spec's), for a cost budget's price."""
    found = Admission()
    try:
        from holon_core.hooks.manager import load_plugins

        found.plugins = plugins or load_plugins(env)
    except HolonError as exc:
        found.refuse("adapter", exc)
        if not keep_going:
            return found
    _spec(found, paths, spec)
    if found.refusals and not keep_going:
        return found
    if found.plugins is not None:
        _engine(found, engine_flag, env)
    if found.engine is not None and found.facts is not None:
        _gateway(found, env, model)
    if found.facts is not None:
        _sandbox(found, env, found.facts.network_allow)
    if found.refusals and not keep_going:
        return found
    if on_phase is not None:
        on_phase("preflight")
    if preflight is not None:
        found.binary, found.version, found.preflight = preflight
        return found
    checks = preflight_checks(found.plugins, found.engine, paths, env)
    found.preflight = checks
    found.checks.extend(checks)
    refused = preflight_refusal(checks)
    if refused is not None:
        found.refusals.append(refused)
    if found.engine is not None:
        found.binary, found.version = located(found.engine, env, checks)
    return found


def admit_skills(
    found: Admission,
    paths: AgentPaths,
    env: Mapping[str, str],
    flags: Sequence[Path],
    scratch: Path,
) -> Admission:
    """Skills, context files, the engine's workspace skill folders, the variables.

    ``scratch``: where a pinned archive unpacks (the run keeps it until staging).
    """
    facts = found.facts
    if facts is None:
        skipped = "not checked: the spec does not load"
        found.checks.append(Check("skills", False, skipped, "fix the spec first"))
        return found
    from holon_core.skill.layers import resolve_skills

    workspace = paths.workspace if paths.workspace.is_dir() else None
    try:
        found.skills, found.notes = resolve_skills(
            facts.skills, flags, paths.input, workspace=workspace, env=env, scratch=scratch
        )
        described = ", ".join(f"{s.name} ({s.source})" for s in found.skills)
        found.passed("skills", described or "none")
    except HolonError as exc:
        found.refuse("skills", exc)
    if facts.files:
        _context_files(found, facts.files, paths)
    if workspace is not None and found.engine is not None:
        _native_skills(found, workspace, found.engine)
    _variables(found, facts, env)
    return found


def _spec(found: Admission, paths: AgentPaths, spec: Spec | None) -> None:
    if spec is not None:  # built by a long-lived caller (serve), already valid
        found.facts = SpecFacts.of_spec(spec)
        return
    from holon_core.spec.rules import read_spec

    try:
        found.document = read_spec(paths.spec)
    except HolonError as exc:
        found.refuse("spec", exc)
        return
    found.facts = SpecFacts.of_data(found.document.data)
    found.passed("spec", str(paths.spec))


def _engine(found: Admission, flag: str | None, env: Mapping[str, str]) -> None:
    from holon_core.agent.select import select_engine

    assert found.plugins is not None
    spec_engine = found.facts.engine if found.facts is not None else None
    try:
        found.engine = select_engine(found.plugins, flag, env, None, spec_engine=spec_engine)
    except HolonError as exc:
        found.refuse("adapter", exc)
        return
    found.passed("adapter", found.engine.name)
    if found.facts is not None:
        check = found.engine.spec_problem(found.facts.engine_fields, env)
        if check is not None:
            found.refuse(check.name, PreflightFailed(check.message(), reason=check.reason), check)


def _gateway(found: Admission, env: Mapping[str, str], model: str | None = None) -> None:
    """The model gateway's settings and the spec's budget (docs/gateway.md), and what
    records or replays its calls (docs/cassettes.md)."""
    from holon_core.gateway.admit import gateway_problem

    assert found.engine is not None and found.facts is not None
    api = found.engine.model_api
    problem = gateway_problem(
        api, env, found.facts.budget, found.engine.name, calls_models=found.engine.calls_models
    )
    if problem is not None:
        found.refuse("gateway", problem)
    elif found.document is not None:  # one-shot (a serve turn's is checked as it starts)
        _priced(found, env, model)
    if env.get("HOLON_RECORD"):  # --record: a cassette dir and a gateway to record
        from holon_core.cassette.admit import record_problem, record_target

        refused = record_problem(env, api, found.engine.name)
        if refused is not None:
            found.refuse("record", refused)
        else:
            found.passed("record", f"the run's cassette goes to {record_target(env)}")
    if env.get("HOLON_CASSETTE"):  # --cassette: a cassette of this engine, and a gateway
        _replay(found, env)


def _sandbox(found: Admission, env: Mapping[str, str], allow: Sequence[str]) -> None:
    """The engine's room (docs/sandbox.md): a machine that cannot build it refuses the run
    with ``sandbox_unavailable`` and the fix, before the launch."""
    from holon_core.sandbox.admit import sandbox_detail, sandbox_problem

    problem = sandbox_problem(env, allow)
    if problem is not None:
        found.refuse("sandbox", problem)
    else:
        found.passed("sandbox", sandbox_detail(env))


def _replay(found: Admission, env: Mapping[str, str]) -> None:
    from holon_core.cassette.replay_admit import admit_replay

    assert found.engine is not None
    try:
        loaded = admit_replay(env, found.engine.model_api, found.engine.name)
    except HolonError as exc:
        found.refuse("cassette", exc)
        return
    if loaded is not None:
        cassette, mode = loaded
        found.passed(
            "cassette", f"{cassette.root}: {len(cassette.calls)} recorded calls, {mode} replay"
        )


def _priced(found: Admission, env: Mapping[str, str], model: str | None) -> None:
    """A cost budget needs a price for the run's model (the run's own order of choices)."""
    from holon_core.gateway.admit import unpriced_problem
    from holon_core.gateway.budget import parse_usd
    from holon_core.gateway.setting import gateway_setting

    assert found.engine is not None and found.facts is not None
    costs = [(found.facts.budget or {}).get("max_cost_usd")]
    costs.append(parse_usd((env.get("HOLON_MAX_COST_USD") or "").strip() or "0"))
    limits = [float(c) for c in costs if isinstance(c, (int, float)) and c > 0]
    if not limits or not gateway_setting(env):
        return
    chosen = model or env.get("HOLON_MODEL") or found.facts.engine_fields.get("model")
    name = chosen if isinstance(chosen, str) else None
    problem = unpriced_problem(found.engine.model_api, name, min(limits), env)
    if problem is not None:
        found.refuse("gateway", problem)


def _context_files(found: Admission, names: Sequence[str], paths: AgentPaths) -> None:
    from holon_core.agent.prompt import named_context_files

    try:
        named_context_files(names, paths.input / "context", paths.workspace)
    except HolonError as exc:
        found.refuse("context", exc)
        return
    found.passed("context", f"context files found: {', '.join(names)}")


def _native_skills(found: Admission, workspace: Path, engine: EngineAdapter) -> None:
    from holon_core.agent.native_skills import find_native_skills

    try:
        found.native = find_native_skills(workspace, engine.workspace_skill_dirs, found.skills)
    except HolonError as exc:
        found.refuse("workspace_skills", exc)


def _variables(found: Admission, facts: SpecFacts, env: Mapping[str, str]) -> None:
    """``context.pass_env`` and every skill's ``requires.env`` set, ``context.env`` free of
    the adapter's own names (``preflight_failed``, with the fix)."""
    engine = found.engine
    owned = (*engine.credential_env, *engine.passthrough_env) if engine is not None else ()
    wanted = [(s.name, s.requires_env, s.source) for s in found.skills]
    wanted += [(s.name, s.requires_env, s.source) for _, s in found.native]
    found.needed = PassEnv.collect(facts.pass_env, wanted)
    problems = context_env_problems(facts.env, owned) + found.needed.problems(env)
    if problems:
        hint = found.needed.hint(env)
        error = PreflightFailed("preflight failed: " + "; ".join(problems), hint=hint)
        check = Check("env", False, "; ".join(problems), hint, reason=error.reason)
        found.refuse("env", error, check)
        return
    passed = ", ".join(found.needed.names) or "none"
    found.passed("env", f"variables passed to the engine: {passed}")
