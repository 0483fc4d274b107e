"""The shipped profiles: a direct adapter's CLI in its ACP mode, behind the bridge.

Each profile reuses what its direct adapter knows (``direct.py``): the binary and its pinned
package (``holon engines install gemini``), the preflight, the hermetic home and environment
its ``launch`` builds, the endpoint variables the gateway and the scripted model server use,
native skill staging. Only the command differs: the CLI's ACP server with the direct
launch's no-prompt settings, instead of its one-shot mode. The declarations below mirror the
direct adapter's (data the core reads before any launch); a test holds them equal.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from holon_adapter_acp.adapter import AcpAdapter
from holon_adapter_acp.command import policy_refusal, refusal_checks
from holon_adapter_acp.direct import direct_adapter, flag_value
from holon_core import Capabilities, Check, EngineAdapter, EnginePackage, RunContext

if TYPE_CHECKING:
    from collections.abc import Mapping

    from holon_adapter_acp.retries import RetryWatch
    from holon_core import LaunchPlan, ResolvedSkill, StagedSkill

#: The pinned package.json and lock of each profile shipped as an npm ACP server.
PINS = Path(__file__).with_name("engine_pin")


class ProfileAdapter(AcpAdapter):
    """An ACP profile of the direct adapter ``direct_engine``."""

    direct_engine: ClassVar[str]
    #: The direct adapter writes the system prompt into the engine's home (else it is prepended).
    system_in_home: ClassVar[bool] = False

    def installs_with(self) -> tuple[str, ...]:
        return (self.direct_engine,)  # the CLI itself (acp-claude's ACP server drives claude)

    def direct(self) -> EngineAdapter:
        adapter = direct_adapter(self.direct_engine)
        if adapter is None:
            from holon_core import EngineNotInstalled

            raise EngineNotInstalled(
                f"engine {self.name} runs the {self.direct_engine} adapter's CLI, and no "
                f"installed plugin provides engine {self.direct_engine}",
                hint=f"pip install holon-adapter-{self.direct_engine}",
            )
        return adapter

    def acp_command(self, run: RunContext, binary: str, plan: LaunchPlan) -> list[str]:
        """The ACP server's command line, given the direct adapter's one-shot launch (its
        ``binary`` and ``plan``, whose environment the agent gets)."""
        raise NotImplementedError

    # -- what the direct adapter answers ---------------------------------------------------
    # A profile with its own ``engine_package`` (an ACP server on npm) is that binary; the
    # others are the direct adapter's CLI itself.
    def preflight(self, env: Mapping[str, str]) -> list[Check]:
        adapter = direct_adapter(self.direct_engine)
        if adapter is None:
            detail = f"no installed plugin provides engine {self.direct_engine}"
            hint = f"pip install holon-adapter-{self.direct_engine}"
            return [Check("direct_adapter", False, detail, hint, "engine_missing")]
        settings = refusal_checks(policy_refusal(env))
        if self.engine_package is None:
            return adapter.preflight(env) + settings
        own = EngineAdapter.preflight(self, env)
        direct = [check for check in adapter.preflight(env) if check.name != "credentials"]
        return own + direct + settings

    def spec_problem(self, engine: Mapping[str, Any], env: Mapping[str, str]) -> Check | None:
        return None  # the agent's command is the direct adapter's engine, not the spec's

    def locate_binary(self, env: Mapping[str, str]) -> Path | None:
        if self.engine_package is not None:
            return super().locate_binary(env)
        adapter = direct_adapter(self.direct_engine)
        return adapter.locate_binary(env) if adapter is not None else None

    def version_of(self, binary: Path) -> str | None:
        if self.engine_package is not None:
            return super().version_of(binary)
        return self.direct().version_of(binary)

    def accepts_model(self, model: str) -> bool:
        return self.direct().accepts_model(model)

    def endpoint_env(self, base_url: str) -> dict[str, str]:
        return self.direct().endpoint_env(base_url)

    def stage_skills(self, run: RunContext, skills: list[ResolvedSkill]) -> list[StagedSkill]:
        direct = self.direct()
        return direct.stage_skills(dataclasses.replace(run, engine=direct), skills)

    # -- the launch ------------------------------------------------------------------------
    def missing_settings(self, env: Mapping[str, str]) -> str | None:
        return None  # a profile knows its agent's command

    def agent_argv(self, run: RunContext) -> tuple[list[str], dict[str, str]]:
        direct = self.direct()
        own = self.engine_package is not None
        as_direct = dataclasses.replace(
            run,
            engine=direct,
            binary=None if own else run.binary,
            engine_version=None if own else run.engine_version,
        )
        plan = direct.launch(as_direct)
        return self.acp_command(run, plan.argv[0], plan), plan.env

    def prompt_text(self, run: RunContext) -> str:
        return run.prompt.user if self.system_in_home else super().prompt_text(run)


class GeminiProfile(ProfileAdapter):
    """``gemini --acp``: Gemini CLI's own ACP server."""

    name: ClassVar[str] = "acp-gemini"
    direct_engine: ClassVar[str] = "gemini"
    system_in_home = True  # GEMINI.md in the run-local home
    capabilities: ClassVar[Capabilities] = Capabilities(
        native_skills=True,
        max_steps=True,
        model_selection=True,
        session_id=True,
        resume=True,
        usage_reporting=True,
        needs_credentials=True,
    )
    credential_env: ClassVar[tuple[str, ...]] = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    passthrough_env: ClassVar[tuple[str, ...]] = ("GOOGLE_GEMINI_BASE_URL",)
    workspace_skill_dirs: ClassVar[tuple[str, ...]] = (".gemini/skills", ".agents/skills")
    model_api: ClassVar[str | None] = "google-generate-content"

    def acp_command(self, run: RunContext, binary: str, plan: LaunchPlan) -> list[str]:
        # --yolo: every tool allowed up front, as the direct launch does; --skip-trust: the
        # direct adapter's folder-trust order (its home.py); -m: the model it chose.
        argv = [binary, "--acp", "--yolo", "--skip-trust"]
        model = flag_value(plan.argv, "-m")
        return [*argv, "-m", model] if model else argv


class OpenCodeProfile(ProfileAdapter):
    """``opencode acp``: OpenCode's ACP server, with the direct adapter's generated config."""

    name: ClassVar[str] = "acp-opencode"
    direct_engine: ClassVar[str] = "opencode"
    capabilities: ClassVar[Capabilities] = Capabilities(
        native_skills=True,
        max_steps=True,
        model_selection=True,
        session_id=True,
        resume=True,
        needs_credentials=True,
    )
    credential_env: ClassVar[tuple[str, ...]] = ("ANTHROPIC_API_KEY",)
    passthrough_env: ClassVar[tuple[str, ...]] = ("ANTHROPIC_BASE_URL",)
    workspace_skill_dirs: ClassVar[tuple[str, ...]] = (".opencode/skills", ".agents/skills")
    model_api: ClassVar[str | None] = "anthropic-messages"

    def retry_watch(self) -> RetryWatch | None:
        from holon_adapter_acp.retries import OPENCODE  # imported with the parser

        return OPENCODE

    def acp_command(self, run: RunContext, binary: str, plan: LaunchPlan) -> list[str]:
        # The config the direct launch wrote (model, permissions allowed, nothing fetched)
        # is in the home its environment points at; --pure loads no external plugin.
        disable_title_agent(Path(plan.env["OPENCODE_CONFIG"]))
        return [binary, "acp", "--print-logs", "--log-level", "WARN", "--pure"]


def disable_title_agent(config: Path) -> None:
    """``opencode run --title`` spares the session title's model call; ``opencode acp`` has no
    such flag, so the title agent is disabled in the config (a budget of one model call would
    otherwise be spent on the title)."""
    import json

    settings = json.loads(config.read_text(encoding="utf-8"))
    settings.setdefault("agent", {}).setdefault("title", {})["disable"] = True
    config.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


class ClaudeProfile(ProfileAdapter):
    """``claude-agent-acp``: the ACP server on the Claude Agent SDK, running the direct
    adapter's pinned ``claude`` (``CLAUDE_CODE_EXECUTABLE``) in its run-local config home."""

    name: ClassVar[str] = "acp-claude"
    direct_engine: ClassVar[str] = "claude"
    engine_package: ClassVar[EnginePackage | None] = EnginePackage(
        npm="@agentclientprotocol/claude-agent-acp",
        version="0.101.0",
        supported=("0.101", "0.101"),
        binary="claude-agent-acp",
        pins=PINS / "acp-claude",
    )
    capabilities: ClassVar[Capabilities] = Capabilities(
        native_skills=True,
        model_selection=True,
        session_id=True,
        resume=True,
        needs_credentials=True,
    )
    credential_env: ClassVar[tuple[str, ...]] = (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
    )
    passthrough_env: ClassVar[tuple[str, ...]] = ("ANTHROPIC_BASE_URL",)
    workspace_skill_dirs: ClassVar[tuple[str, ...]] = (".claude/skills",)
    model_api: ClassVar[str | None] = "anthropic-messages"

    def bridge_options(self, run: RunContext) -> list[str]:
        # The direct launch's --dangerously-skip-permissions, as an ACP session mode; the
        # prompt as a resource, so no session title is generated (bridge.prompt_blocks).
        return ["--mode", "bypassPermissions", "--prompt-resource"]

    def acp_command(self, run: RunContext, binary: str, plan: LaunchPlan) -> list[str]:
        plan.env["CLAUDE_CODE_EXECUTABLE"] = binary
        model = flag_value(plan.argv, "--model")
        if model:
            plan.env["ANTHROPIC_MODEL"] = model
        return [str(self.require_binary(run))]


def set_codex_model(config: Path, model: str) -> None:
    """The direct launch's ``-m``, as the config's top-level ``model``: codex-acp takes the
    session's model from the config (and accepts through ACP only models of codex's own
    catalog, which a gateway's or a scripted server's model need not be in)."""
    import json

    text = config.read_text(encoding="utf-8") if config.exists() else ""
    lines = [line for line in text.splitlines() if not line.startswith("model =")]
    config.write_text("\n".join([f"model = {json.dumps(model)}", *lines]) + "\n", "utf-8")


class CodexProfile(ProfileAdapter):
    """``codex-acp``: the ACP server on the Codex app-server, running the codex adapter's
    pinned ``codex`` (``CODEX_PATH``) with the ``CODEX_HOME`` and provider config it writes
    (codex-acp ignores ``OPENAI_BASE_URL``; the config carries the endpoint)."""

    name: ClassVar[str] = "acp-codex"
    direct_engine: ClassVar[str] = "codex"
    engine_package: ClassVar[EnginePackage | None] = EnginePackage(
        npm="@agentclientprotocol/codex-acp",
        version="2.6.0",
        supported=("2.6", "2.6"),
        binary="codex-acp",
        pins=PINS / "acp-codex",
    )
    capabilities: ClassVar[Capabilities] = Capabilities(
        native_skills=True,
        model_selection=True,
        session_id=True,
        resume=True,
        needs_credentials=True,
    )
    credential_env: ClassVar[tuple[str, ...]] = ("OPENAI_API_KEY", "CODEX_API_KEY")
    passthrough_env: ClassVar[tuple[str, ...]] = ("OPENAI_BASE_URL",)
    workspace_skill_dirs: ClassVar[tuple[str, ...]] = (".agents/skills", ".codex/skills")
    model_api: ClassVar[str | None] = "openai-responses"

    def bridge_options(self, run: RunContext) -> list[str]:
        # codex-acp serves no prompt before authenticate; "api-key" reads the key from the env.
        return ["--auth", "api-key"]

    def acp_command(self, run: RunContext, binary: str, plan: LaunchPlan) -> list[str]:
        plan.env["CODEX_PATH"] = binary
        model = flag_value(plan.argv, "-m")
        if model:
            set_codex_model(Path(plan.env["CODEX_HOME"]) / "config.toml", model)
        # Approval "never" and no sandbox: the direct launch's
        # --dangerously-bypass-approvals-and-sandbox, as codex-acp's initial mode.
        plan.env["INITIAL_AGENT_MODE"] = "agent-full-access"
        plan.env["NO_BROWSER"] = "1"
        return [str(self.require_binary(run))]


PROFILES: tuple[type[ProfileAdapter], ...] = (
    GeminiProfile,
    OpenCodeProfile,
    ClaudeProfile,
    CodexProfile,
)
