"""The adapter object: everything that differs per engine, declared as data and small methods.

The core owns the pipeline; it asks an adapter only how to launch its engine headlessly,
where its skills go, how to read its event stream and what it adds to the manifest. The
hooks in :mod:`holon_core.hooks.specs` dispatch to these methods by default (see
:mod:`holon_core.builtin.dispatch`), so a plugin can still override any step.

The engine's report and the event parsers live beside it (``report``, ``parser``) and are
re-exported here. This module stays free of pydantic so the probe path imports it cheaply.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from holon_core.engine.binaries import (
    EnginePackage,
    find_engine_binary,
    npm_package_version,
    override_variable,
    read_engine_version,
)
from holon_core.engine.checks import Check
from holon_core.engine.parser import EventParser, JsonLinesParser
from holon_core.engine.report import EngineReport
from holon_core.errors import EngineNotInstalled

if TYPE_CHECKING:
    from holon_core.models.spec import Spec
    from holon_core.skill.package import ResolvedSkill

__all__ = [
    "Capabilities",
    "EngineAdapter",
    "EngineReport",
    "EventParser",
    "JsonLinesParser",
    "LaunchPlan",
    "Prompt",
    "RunContext",
    "StagedSkill",
    "base_env",
]


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What an engine can do; the core enforces these in one place (``engine.capability``)."""

    native_skills: bool = False
    max_steps: bool = False
    model_selection: bool = False
    session_id: bool = False
    usage_reporting: bool = False
    cost_reporting: bool = False
    resume: bool = False
    needs_credentials: bool = True

    def as_dict(self) -> dict[str, bool]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(slots=True)
class LaunchPlan:
    """How to start the engine: argv, the complete environment, the cwd and optional stdin."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path
    stdin: bytes | None = None
    #: Seconds to wait after SIGTERM before SIGKILL.
    grace_seconds: float = 3.0
    #: ``argv[0]`` is a wrapper that must outlive the stop signals its process group gets
    #: (the room's bwrap: its death would SIGKILL everything inside at once, leaving the
    #: engine no grace). It starts with SIGTERM, SIGINT and SIGHUP ignored; the program it
    #: runs must set its own (the room's first process does).
    wrapper: bool = False


@dataclass(slots=True)
class StagedSkill:
    """Where and how one skill was made available to the engine."""

    name: str
    staging: Literal["native", "fallback", "none"]
    path: Path | None = None


@dataclass(slots=True)
class Prompt:
    """The compiled prompt; fallback skill staging appends to ``system``."""

    system: str
    user: str
    source: Literal["input", "compiled"] = "compiled"


@dataclass(slots=True)
class RunContext:
    """Everything one run knows, handed to adapters and hooks."""

    engine: EngineAdapter
    spec: Spec
    run_id: str
    input_dir: Path
    workspace: Path
    output_dir: Path
    state_dir: Path
    #: Run-local root: the engine's HOME, config home and TMPDIR live below it.
    run_dir: Path
    env: Mapping[str, str]
    prompt: Prompt
    model: str | None = None
    max_steps: int | None = None
    binary: Path | None = None
    engine_version: str | None = None
    skills: list[ResolvedSkill] = field(default_factory=list)
    #: Credential values to redact from everything holon writes.
    secrets: list[str] = field(default_factory=list)
    #: Variables the spec (``context.pass_env``) and the skills (``requires.env``) need in the
    #: engine's environment; :func:`base_env` copies them, their values are in ``secrets``.
    pass_env: tuple[str, ...] = ()
    #: The engine's own session id to continue (serve mode, ``previous_response_id``); an
    #: adapter with ``Capabilities.resume`` passes it to the engine's native resume.
    resume_session: str | None = None
    #: A persistent engine home (serve mode keeps it under the state dir so a resumed session
    #: finds its transcript); ``None``: a fresh home inside the run dir.
    home_root: Path | None = None
    #: The engine runs in holon's room (``HOLON_SANDBOX``, docs/sandbox.md): paths outside
    #: the run do not exist for it and the network is the room's, so an adapter may relax the
    #: engine's own rules about them (one policy, the room's, for every engine).
    sandboxed: bool = False

    @property
    def home(self) -> Path:
        return self.home_root if self.home_root is not None else self.run_dir / "home"

    @property
    def tmp(self) -> Path:
        return self.run_dir / "tmp"


class EngineAdapter(ABC):
    """Base class of every engine adapter; subclass it and register it from a plugin.

    Example::

        class MyEngine(EngineAdapter):
            name = "my"
            binary_name = "my-cli"
            capabilities = Capabilities(max_steps=True)
            ...

        @hookimpl
        def holon_register_engines(register):
            register(MyEngine())
    """

    name: ClassVar[str]
    #: Distribution that ships the adapter (for versions in ``holon plugins`` and manifests).
    distribution: ClassVar[str | None] = None
    capabilities: ClassVar[Capabilities] = Capabilities()
    #: The npm package of the engine CLI (name, pin, supported range, binary, shipped lock):
    #: ``holon engines install|list`` and the preflight read it.
    engine_package: ClassVar[EnginePackage | None] = None
    #: Executable name of an engine not installed from npm (else ``engine_package.binary``).
    binary_name: ClassVar[str | None] = None
    #: Any one of these environment variables satisfies the credential check.
    credential_env: ClassVar[tuple[str, ...]] = ()
    #: Extra variables passed into the engine unchanged (endpoints, proxies).
    passthrough_env: ClassVar[tuple[str, ...]] = ()
    #: The engine's own skill folders inside its cwd (e.g. ``.claude/skills``), relative to
    #: the workspace. The engine discovers them itself; holon validates and records every
    #: skill there before the launch (:mod:`holon_core.agent.native_skills`).
    workspace_skill_dirs: ClassVar[tuple[str, ...]] = ()
    #: Inclusive (min, max) major.minor versions of an engine not installed from npm.
    supported_versions: ClassVar[tuple[str, str] | None] = None
    #: The model wire API the engine speaks ("anthropic-messages", "openai-responses",
    #: "google-generate-content"), or None for an engine that calls no model API.
    model_api: ClassVar[str | None] = None
    #: False for an engine that never calls a model (the replay engine). A cost budget is then
    #: kept by spending nothing (its cost is 0), where an engine that calls a model API the
    #: gateway cannot meter (``model_api`` None) is refused a budget it could not keep.
    calls_models: ClassVar[bool] = True

    def missing_settings(self, env: Mapping[str, str]) -> str | None:
        """What a user must set before this engine can run anything (the generic acp engine:
        which agent it runs), said as the fix, or None. ``pytest --holon-adapter all`` passes
        over such an engine with this note instead of failing its column."""
        return None

    def metering_fix(self) -> str | None:
        """How a user makes this engine's model calls meterable when ``model_api`` is None
        (the generic acp engine: name the API its agent calls), or None when nothing can."""
        return None

    def installs_with(self) -> tuple[str, ...]:
        """Other engines whose CLI this adapter runs (an ACP profile runs its direct
        adapter's): ``holon engines install NAME`` installs them with NAME's own package."""
        return ()

    def accepts_model(self, model: str) -> bool:
        """Whether ``model`` names a model this engine takes (``--model``, a spec's model).

        Serve mode hands a client's ``model`` to the engine only when this says yes (or the
        server maps the name with ``--model-map``); a generic client's default such as
        ``gpt-4o-mini`` is otherwise ignored with a warning. The default, False, suits an
        adapter that cannot tell; one that knows its engine's names overrides it.
        """
        return False

    def spec_problem(self, engine: Mapping[str, Any], env: Mapping[str, str]) -> Check | None:
        """A failed check of the spec's ``engine`` section (``engine``: the mapping, with the
        adapter's own fields, such as the generic acp engine's ``command``), or None.

        The admission asks before the preflight, for the run and ``holon-agent --probe``
        alike, so a spec the launch would refuse is refused before anything starts."""
        return None

    def endpoint_env(self, base_url: str) -> dict[str, str]:
        """Variables pointing the engine at the model server ``base_url`` (plus a fake key).

        The conformance suite uses it to run any adapter offline against its scripted
        server. The default, ``{}``, means "this adapter cannot be pointed at an endpoint".
        """
        return {}

    # -- preflight ------------------------------------------------------------------------
    @property
    def binary_env(self) -> str:
        return override_variable(self.name)

    @property
    def engine_binary_name(self) -> str | None:
        """The executable looked up in the managed engine dir and on PATH, if any."""
        package = self.engine_package
        return package.binary if package is not None else self.binary_name

    def locate_binary(self, env: Mapping[str, str]) -> Path | None:
        binary_name = self.engine_binary_name
        if binary_name is None:
            return None
        return find_engine_binary(binary_name, self.binary_env, env, engine=self.name)

    def require_binary(self, run: RunContext) -> Path:
        """The run's engine binary; :class:`EngineNotInstalled` with the install hint if none."""
        binary = run.binary or self.locate_binary(run.env)
        if binary is None:
            raise EngineNotInstalled(
                f"the {self.engine_binary_name or self.name} binary of engine {self.name!r} was "
                f"not found via {self.binary_env}, the holon engine directory or PATH",
                hint=f"run `holon engines install {self.name}` or set {self.binary_env}",
            )
        return binary

    def version_of(self, binary: Path) -> str | None:
        """From the npm package on disk when there is one (no engine start), else ``--version``."""
        package = self.engine_package
        found = npm_package_version(binary, package.npm) if package is not None else None
        return found or read_engine_version(binary)

    def credential_hint(self) -> str:
        names = " or ".join(self.credential_env)
        return f"export {names} before running holon-agent"

    def preflight(self, env: Mapping[str, str]) -> list[Check]:
        """Checks run before anything else: the binary, its version, the credentials."""
        checks: list[Check] = []
        if self.engine_binary_name is not None:
            checks.extend(self._binary_checks(env))
        if self.capabilities.needs_credentials and self.credential_env:
            present = [name for name in self.credential_env if env.get(name)]
            if not present and (env.get("HOLON_CASSETTE") or "").strip() and self.model_api:
                # A replay answers from the cassette; the gateway gives the engine its
                # placeholder as ever (holon_core/agent/replay_cassette.py).
                present = ["HOLON_CASSETTE (a replay needs no key)"]
            checks.append(
                Check(
                    name="credentials",
                    ok=bool(present),
                    detail=f"found {', '.join(present)}"
                    if present
                    else f"none of {', '.join(self.credential_env)} is set",
                    hint=None if present else self.credential_hint(),
                    reason=None if present else "missing_credentials",
                )
            )
        return checks

    def _binary_checks(self, env: Mapping[str, str]) -> list[Check]:
        binary = self.locate_binary(env)
        if binary is None:
            return [
                Check(
                    name="engine_binary",
                    ok=False,
                    detail=f"{self.engine_binary_name} not found via {self.binary_env}, the holon "
                    "engine directory or PATH",
                    hint=f"run `holon engines install {self.name}` or set {self.binary_env}",
                    reason="engine_missing",
                )
            ]
        version = self.version_of(binary)
        if version is None:
            return [
                Check(
                    name="engine_binary",
                    ok=False,
                    detail=f"{binary} did not answer --version",
                    hint=f"reinstall it with `holon engines install {self.name}`",
                    reason="engine_missing",
                )
            ]
        checks = [Check(name="engine_binary", ok=True, detail=f"{binary} {version}")]
        package = self.engine_package
        supported = package.supported if package is not None else self.supported_versions
        if supported is not None:
            checks.append(_version_check(self.name, version, supported))
        return checks

    # -- the run ----------------------------------------------------------------------------
    def stage_skills(self, run: RunContext, skills: list[ResolvedSkill]) -> list[StagedSkill]:
        """Copy skills where the engine discovers them natively (inside the run-local home)."""
        raise NotImplementedError(f"engine {self.name} declares no native skill staging")

    @abstractmethod
    def launch(self, run: RunContext) -> LaunchPlan:
        """The headless command line and hermetic environment for this run."""

    @abstractmethod
    def event_parser(self, run: RunContext) -> EventParser:
        """A fresh parser for this run's stdout."""

    def manifest_metadata(self, run: RunContext, report: EngineReport) -> dict[str, Any]:
        """Engine-specific keys merged into ``manifest.metadata``."""
        return {}


def _version_check(name: str, version: str, supported: tuple[str, str]) -> Check:
    def key(text: str) -> tuple[int, ...]:
        parts = []
        for piece in text.split(".")[:3]:
            digits = "".join(ch for ch in piece if ch.isdigit())
            parts.append(int(digits or 0))
        return tuple(parts)

    low, high = supported
    ok = key(low) <= key(version)[: len(key(low))] and key(version)[: len(key(high))] <= key(high)
    return Check(
        name="engine_version",
        ok=ok,
        detail=f"{version} (supported {low} to {high})",
        hint=None if ok else f"install a supported version with `holon engines install {name}`",
        reason=None if ok else "engine_missing",
    )


def base_env(run: RunContext, extra_names: tuple[str, ...] = ()) -> dict[str, str]:
    """The hermetic environment every engine starts from: run-local HOME and TMPDIR.

    Only the spec's ``context.env``, PATH, locale basics, the run's directories
    (``HOLON_INPUT_DIR``, ``HOLON_WORKSPACE_DIR``, ``HOLON_OUTPUT_DIR``, absolute, for skills),
    the adapter's named variables and the run's ``pass_env`` pass in; nothing else from the
    agent's environment (never the user's HOME) reaches it.
    """
    env = dict(run.spec.context.env)  # non-secret settings from the spec come first
    env |= {
        "PATH": run.env.get("PATH", os.defpath),
        "HOME": str(run.home),
        "TMPDIR": str(run.tmp),
        "LANG": run.env.get("LANG", "C.UTF-8"),
        "TERM": "dumb",
        "NO_COLOR": "1",
        "HOLON_INPUT_DIR": str(run.input_dir.absolute()),
        "HOLON_WORKSPACE_DIR": str(run.workspace.absolute()),
        "HOLON_OUTPUT_DIR": str(run.output_dir.absolute()),
    }
    names = (*run.engine.credential_env, *run.engine.passthrough_env, *run.pass_env)
    for name in (*names, *extra_names):
        value = run.env.get(name)
        if value:
            env[name] = value
    proxies = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")
    for name in (*proxies, "TRACEPARENT", "TRACESTATE"):  # W3C trace context: joins holon's trace
        if run.env.get(name):
            env[name] = run.env[name]
    return env
