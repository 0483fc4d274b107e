"""The generic ``acp`` engine: any ACP agent, run by the bridge (``bridge.py``).

holon launches ``python -m holon_adapter_acp.bridge`` (this interpreter), which starts the
agent and talks ACP to it; the prompt goes in on stdin. The profiles (``profiles.py``) are
this adapter with the agent's command, home and credentials taken from a direct adapter.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, ClassVar

from holon_adapter_acp.command import (
    AUTH_ENV,
    BASE_URL_ENV,
    COMMAND_ENV,
    MODEL_API_ENV,
    agent_command,
    bad_pass_env_names,
    command_check,
    endpoint_settings,
    pass_env_names,
    policy_refusal,
    refusal_checks,
    settings_refusal,
)
from holon_adapter_acp.policy import POLICY_ENV
from holon_core import (
    Capabilities,
    Check,
    EngineAdapter,
    EngineReport,
    EventParser,
    LaunchPlan,
    RunContext,
    base_env,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from holon_adapter_acp.retries import RetryWatch

#: Seconds the agent gets to answer ``session/cancel`` before the bridge stops it.
CANCEL_GRACE = 2.0


class AcpAdapter(EngineAdapter):
    """Base of every ACP engine: the bridge's launch plan, parser and manifest keys."""

    name: ClassVar[str] = "acp"
    distribution: ClassVar[str | None] = "holon-adapter-acp"
    #: ``resume``: the bridge continues the agent's session where ``initialize`` offers it,
    #: and falls back to the transcript where not (``resume.py``).
    capabilities: ClassVar[Capabilities] = Capabilities(needs_credentials=False, resume=True)

    def agent_argv(self, run: RunContext) -> tuple[list[str], dict[str, str]]:
        """The agent's command line and environment (the generic engine: from the user)."""
        spec_command = run.spec.engine.extra.get("command")
        argv = agent_command(run.env, spec_command)
        refused = settings_refusal(run.env)
        if refused is not None:
            raise refused
        return argv, base_env(run, pass_env_names(run.env))

    def prompt_text(self, run: RunContext) -> str:
        system = run.prompt.system.strip()
        return f"{system}\n\n{run.prompt.user}" if system else run.prompt.user

    #: The generic engine's settings from the environment (``generic_adapter``).
    auth_method: ClassVar[str | None] = None
    base_url_env: ClassVar[str | None] = None

    def missing_settings(self, env: Mapping[str, str]) -> str | None:
        """The generic engine runs the agent the user names (profiles override this)."""
        if env.get(COMMAND_ENV, "").strip():
            return None
        return (
            f'set {COMMAND_ENV} to the ACP agent\'s command (e.g. "gemini --acp"); to certify '
            f"it offline also {MODEL_API_ENV} and {BASE_URL_ENV} (docs/acp.md)"
        )

    def metering_fix(self) -> str:
        """Asked only while ``model_api`` is None, which only the generic engine can be."""
        return (
            f"set {MODEL_API_ENV} (the model API the agent calls) and {BASE_URL_ENV} (the "
            "variable it reads its base URL from; docs/acp.md)"
        )

    def bridge_options(self, run: RunContext) -> list[str]:
        """Extra bridge flags (``--auth``, ``--mode``) a profile needs."""
        return ["--auth", self.auth_method] if self.auth_method else []

    def endpoint_env(self, base_url: str) -> dict[str, str]:
        """The endpoint variable ``HOLON_ACP_BASE_URL_ENV`` names, and a placeholder key."""
        if self.base_url_env is None:
            return {}
        env = {self.base_url_env: base_url}
        if self.credential_env:
            env[self.credential_env[0]] = "sk-holon-fake-0000"
        return env

    def launch(self, run: RunContext) -> LaunchPlan:
        refused = policy_refusal(run.env)
        if refused is not None:
            raise refused
        run.home.mkdir(parents=True, exist_ok=True)
        run.tmp.mkdir(parents=True, exist_ok=True)
        argv, env = self.agent_argv(run)
        if run.env.get(POLICY_ENV):
            env[POLICY_ENV] = run.env[POLICY_ENV]
        bridge = [sys.executable, "-m", "holon_adapter_acp.bridge", "--cwd", str(run.workspace)]
        bridge += ["--cancel-grace", str(CANCEL_GRACE), *self.bridge_options(run)]
        bridge += [*resume_options(run), "--", *argv]
        stdin = self.prompt_text(run).encode("utf-8")
        return LaunchPlan(bridge, env, run.workspace, stdin=stdin, grace_seconds=CANCEL_GRACE + 3)

    def retry_watch(self) -> RetryWatch | None:
        """The agent's silent model retries, counted on its stderr (``retries.py``)."""
        return None

    def event_parser(self, run: RunContext) -> EventParser:
        from holon_adapter_acp.parser import AcpParser  # see holon_adapter_acp/__init__.py

        watch = self.retry_watch()
        return AcpParser(run.model, (watch, watch.limit(run.env)) if watch else None)

    def spec_problem(self, engine: Mapping[str, Any], env: Mapping[str, str]) -> Check | None:
        """The agent's command from the spec (``engine.command``) when the environment gives
        none: the preflight checks ``HOLON_ACP_COMMAND``, this the rest of what the launch
        would refuse, for the run and the probe alike."""
        if env.get(COMMAND_ENV, "").strip():
            return None
        check = command_check(env, engine.get("command"))
        return None if check.ok else check

    def preflight(self, env: Mapping[str, str]) -> list[Check]:
        checks = super().preflight(env)
        checks += refusal_checks(settings_refusal(env), policy_refusal(env))
        if env.get(COMMAND_ENV, "").strip():
            checks.append(command_check(env, None))
        return checks

    def manifest_metadata(self, run: RunContext, report: EngineReport) -> dict[str, Any]:
        keys = (
            "agent",
            "stop_reason",
            "rpc_error",
            "unanswerable_requests",
            "permissions",
            "plan",
            "acp_usage",
            "resume",
        )
        return {"acp": {key: report.extra[key] for key in keys if report.extra.get(key)}}


def resume_options(run: RunContext) -> list[str]:
    """``--resume`` with the agent session serve continues, and ``--fallback``: serve's
    transcript of the earlier turns (``transcript.md`` in the turn's output dir), sent in a
    new session if the agent cannot continue it (``resume.py``)."""
    if not run.resume_session:
        return []
    return ["--resume", run.resume_session, "--fallback", str(run.output_dir / "transcript.md")]


def generic_adapter(env: Mapping[str, str]) -> AcpAdapter:
    """The ``acp`` engine, its credentials being the names in ``HOLON_ACP_PASS_ENV``.

    Declared on a subclass made per process, so the core's own credential check, environment
    and redaction treat them as this engine's credentials.
    """
    names = tuple(name for name in pass_env_names(env) if name not in bad_pass_env_names(env))
    api, base_url_env = endpoint_settings(env)
    attrs = {
        "credential_env": names,
        "capabilities": Capabilities(needs_credentials=bool(names), resume=True),
        "model_api": api,
        "base_url_env": base_url_env,
        "passthrough_env": (base_url_env,) if base_url_env else (),
        "auth_method": env.get(AUTH_ENV, "").strip() or None,
        "__doc__": AcpAdapter.__doc__,
    }
    generic: type[AcpAdapter] = type("GenericAcpAdapter", (AcpAdapter,), attrs)
    return generic()
