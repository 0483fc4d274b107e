"""The ``claude`` engine: Claude Code run headlessly behind the holon contract.

The parser is imported when a run asks for it: every holon process loads every
adapter plugin, ``holon-agent --probe`` included (its CPU budget, ``bench/probe_cpu.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from holon_adapter_claude.home import config_dir, skills_dir
from holon_adapter_claude.launch import build_plan, max_retries
from holon_core import (
    Capabilities,
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
    from holon_core import ResolvedSkill


#: Model aliases Claude Code's ``--model`` resolves itself (besides full ``claude-...`` ids).
CLAUDE_ALIASES = frozenset({"default", "sonnet", "opus", "haiku", "opusplan"})


class ClaudeAdapter(EngineAdapter):
    """Claude Code (``@anthropic-ai/claude-code``) via ``claude -p --output-format stream-json``."""

    name: ClassVar[str] = "claude"
    distribution: ClassVar[str | None] = "holon-adapter-claude"
    capabilities: ClassVar[Capabilities] = Capabilities(
        native_skills=True,
        max_steps=True,
        model_selection=True,
        session_id=True,
        usage_reporting=True,
        cost_reporting=True,
        # --resume <session_id> (launch.py); the transcript follows the turn's cwd.
        resume=True,
        needs_credentials=True,
    )
    credential_env: ClassVar[tuple[str, ...]] = (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
    )
    passthrough_env: ClassVar[tuple[str, ...]] = ("ANTHROPIC_BASE_URL",)
    #: Claude Code discovers ``<cwd>/.claude/skills`` itself; holon validates and records it.
    workspace_skill_dirs: ClassVar[tuple[str, ...]] = (".claude/skills",)
    model_api: ClassVar[str | None] = "anthropic-messages"
    #: Tested against 2.1.x; the stream-json fields we read appeared in 2.0.
    engine_package: ClassVar[EnginePackage | None] = EnginePackage(
        npm="@anthropic-ai/claude-code",
        version="2.1.197",
        supported=("2.0", "2.1"),
        binary="claude",
        pins=Path(__file__).with_name("engine_pin"),
    )

    def endpoint_env(self, base_url: str) -> dict[str, str]:
        """``ANTHROPIC_BASE_URL`` (no ``/v1``: the CLI appends it) and a fake API key."""
        return {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "sk-holon-fake-0000"}

    def accepts_model(self, model: str) -> bool:
        """Claude model ids (``claude-...``) and the aliases ``--model`` takes."""
        return model.startswith("claude-") or model.removesuffix("[1m]") in CLAUDE_ALIASES

    def launch(self, run: RunContext) -> LaunchPlan:
        return build_plan(self.require_binary(run), run)

    def stage_skills(self, run: RunContext, skills: list[ResolvedSkill]) -> list[StagedSkill]:
        return copy_skills(skills, skills_dir(run.home))

    def event_parser(self, run: RunContext) -> EventParser:
        from holon_adapter_claude.parser import ClaudeParser  # see the module docstring

        return ClaudeParser()

    def manifest_metadata(self, run: RunContext, report: EngineReport) -> dict[str, Any]:
        extra = report.extra
        return {
            "claude": {
                "config_dir": str(config_dir(run.home)),
                "max_retries": max_retries(run.env),
                "result_subtype": extra.get("result_subtype"),
                "api_error_status": extra.get("api_error_status"),
                "api_key_source": extra.get("api_key_source"),
                "models_used": extra.get("models_used", []),
                "skills_used": sorted(set(extra.get("skills_used", []))),
            }
        }
