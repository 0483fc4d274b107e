"""The ``opencode`` engine: OpenCode (npm ``opencode-ai``) via ``opencode run --format json``.

The parser and its log reader are imported when a run asks for them: every holon process
loads every adapter plugin, ``holon-agent --probe`` included (its CPU budget,
``bench/probe_cpu.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from holon_adapter_opencode.home import DEFAULT_MODEL, config, skills_dir, write_home
from holon_adapter_opencode.startup import snapshot_models
from holon_core import (
    Capabilities,
    EngineAdapter,
    EnginePackage,
    EngineReport,
    EventParser,
    LaunchPlan,
    RunContext,
    StagedSkill,
    base_env,
    copy_skills,
)

if TYPE_CHECKING:
    from holon_core import ResolvedSkill


class OpenCodeAdapter(EngineAdapter):
    """OpenCode behind the holon contract, through its Anthropic provider."""

    name: ClassVar[str] = "opencode"
    distribution: ClassVar[str | None] = "holon-adapter-opencode"
    engine_package: ClassVar[EnginePackage | None] = EnginePackage(
        npm="opencode-ai",
        version="1.18.33",
        supported=("1.18", "1.18"),
        binary="opencode",
        pins=Path(__file__).with_name("engine_pin"),
    )
    capabilities: ClassVar[Capabilities] = Capabilities(
        native_skills=True,
        max_steps=True,
        model_selection=True,
        session_id=True,
        usage_reporting=True,
        cost_reporting=True,
        needs_credentials=True,
    )
    credential_env: ClassVar[tuple[str, ...]] = ("ANTHROPIC_API_KEY",)
    passthrough_env: ClassVar[tuple[str, ...]] = ("ANTHROPIC_BASE_URL",)
    #: OpenCode 1.18.33 discovers these in the workspace itself (measured): holon validates them.
    workspace_skill_dirs: ClassVar[tuple[str, ...]] = (".opencode/skills", ".agents/skills")
    model_api: ClassVar[str | None] = "anthropic-messages"

    def endpoint_env(self, base_url: str) -> dict[str, str]:
        """``ANTHROPIC_BASE_URL`` (holon writes ``/v1`` into the provider config) and a key."""
        return {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "sk-holon-fake-0000"}

    def accepts_model(self, model: str) -> bool:
        """A model of the bundled Anthropic models snapshot, bare or as ``anthropic/<id>``
        (the provider holon configures; ``models_anthropic.json``)."""
        return model.removeprefix("anthropic/") in snapshot_models()

    def model_for(self, run: RunContext) -> str:
        model = run.model or DEFAULT_MODEL
        return model if "/" in model else f"anthropic/{model}"

    def launch(self, run: RunContext) -> LaunchPlan:
        binary = self.require_binary(run)
        run.home.mkdir(parents=True, exist_ok=True)
        run.tmp.mkdir(parents=True, exist_ok=True)
        settings = config(
            self.model_for(run),
            run.env.get("ANTHROPIC_BASE_URL"),
            run.max_steps,
            sandboxed=run.sandboxed,
        )
        env = base_env(run)
        env |= write_home(run.home, settings, env.get("PATH"))
        prompt = run.prompt.user
        if run.prompt.system:
            prompt = f"{run.prompt.system}\n\n{prompt}"
        # Logs on stderr show the retries (logs.py); a fixed title spares the title side
        # call; --pure loads no external plugin.
        argv = [str(binary), "run", "--format", "json", "--print-logs", "--log-level", "WARN"]
        argv += ["--pure", "--title", "holon", "-m", self.model_for(run), "--", prompt]
        return LaunchPlan(argv=argv, env=env, cwd=run.workspace, grace_seconds=3.0)

    def stage_skills(self, run: RunContext, skills: list[ResolvedSkill]) -> list[StagedSkill]:
        """Copy into ``$XDG_CONFIG_HOME/opencode/skills``: listed to the model by the skill tool."""
        return copy_skills(skills, skills_dir(run.home))

    def event_parser(self, run: RunContext) -> EventParser:
        from holon_adapter_opencode.logs import max_retries  # see the module docstring
        from holon_adapter_opencode.parser import OpenCodeParser

        return OpenCodeParser(run.max_steps, max_retries(run.env))

    def manifest_metadata(self, run: RunContext, report: EngineReport) -> dict[str, Any]:
        meta: dict[str, Any] = {"model": self.model_for(run)}
        if report.extra.get("http_status") is not None:
            meta["http_status"] = report.extra["http_status"]
        return {"opencode": meta}
