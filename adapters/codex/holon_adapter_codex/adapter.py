"""The Codex CLI adapter: capabilities as data, and the few methods that differ per engine.

The parser is imported when a run asks for it: every holon process loads every
adapter plugin, ``holon-agent --probe`` included (its CPU budget, ``bench/probe_cpu.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from holon_adapter_codex.home import KEY_VARIABLES, base_url, codex_home, skills_dir
from holon_adapter_codex.launch import build_plan, model_of
from holon_core import (
    Capabilities,
    Check,
    EngineAdapter,
    EnginePackage,
    EngineReport,
    EventParser,
    LaunchPlan,
    RunContext,
    StagedSkill,
    copy_skills,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from holon_core import ResolvedSkill


#: Model names of the OpenAI Responses API Codex talks to (a client's ``model`` is passed on).
OPENAI_MODEL_PREFIXES = ("gpt-", "o1", "o3", "o4", "codex-")


class CodexAdapter(EngineAdapter):
    name = "codex"
    distribution = "holon-adapter-codex"
    capabilities = Capabilities(
        native_skills=True,
        # Codex has no turn limit; the parser stops the run when the step budget is spent.
        max_steps=True,
        model_selection=True,
        session_id=True,
        usage_reporting=True,
        cost_reporting=False,
        # codex exec ... resume <thread_id> (launch.py); sessions persist in CODEX_HOME.
        resume=True,
        needs_credentials=True,
    )
    credential_env = KEY_VARIABLES
    #: Honoured by writing it into the run's provider config (and passed through as is).
    passthrough_env = ("OPENAI_BASE_URL",)
    #: Codex discovers these in its cwd itself; holon validates and records them.
    workspace_skill_dirs = (".agents/skills", ".codex/skills")
    model_api = "openai-responses"
    engine_package = EnginePackage(
        npm="@openai/codex",
        version="0.169.0",
        supported=("0.169", "0.169"),
        binary="codex",
        pins=Path(__file__).with_name("engine_pin"),
    )

    def endpoint_env(self, base_url: str) -> dict[str, str]:
        """``OPENAI_BASE_URL`` with ``/v1`` (written into the run's provider config) and a key."""
        return {"OPENAI_BASE_URL": f"{base_url}/v1", "OPENAI_API_KEY": "sk-holon-fake-0000"}

    def preflight(self, env: Mapping[str, str]) -> list[Check]:
        checks = super().preflight(env)
        checks.append(Check(name="model_endpoint", ok=True, detail=base_url(env)))
        return checks

    def accepts_model(self, model: str) -> bool:
        """OpenAI model names (``gpt-...``, the ``o`` series, ``codex-...``): what ``-m`` takes."""
        return model.startswith(OPENAI_MODEL_PREFIXES)

    def launch(self, run: RunContext) -> LaunchPlan:
        return build_plan(self.require_binary(run), run)

    def stage_skills(self, run: RunContext, skills: list[ResolvedSkill]) -> list[StagedSkill]:
        """Copy into ``$CODEX_HOME/skills``; Codex lists them in its developer message."""
        return copy_skills(skills, skills_dir(run.home))

    def event_parser(self, run: RunContext) -> EventParser:
        from holon_adapter_codex.parser import CodexParser  # see the module docstring

        return CodexParser(codex_home(run.home), base_url(run.env), run.max_steps)

    def manifest_metadata(self, run: RunContext, report: EngineReport) -> dict[str, Any]:
        codex: dict[str, Any] = {
            "model_requested": model_of(run),
            "model_endpoint": base_url(run.env),
        }
        keys = ["duration_ms", "time_to_first_token_ms", "model_provider"]
        if run.env.get("HOLON_KEEP_RUN_DIR") == "1":
            keys.append("rollout")  # otherwise the run dir, and the log, are gone
        for key in keys:
            if key in report.extra:
                codex[key] = report.extra[key]
        return {"codex": codex}
