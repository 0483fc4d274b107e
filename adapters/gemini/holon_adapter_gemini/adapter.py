"""The Gemini CLI adapter: headless launch, hermetic home, skills, parser and manifest keys.

The parser and ``resume`` are imported when a run asks for them: every holon process loads every
adapter plugin, ``holon-agent --probe`` included (its CPU budget, ``bench/probe_cpu.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from holon_adapter_gemini.home import (
    SKIP_TRUST_FLAG,
    TRUST_ENV,
    forced_settings,
    max_attempts,
    write_home,
)
from holon_core import (
    Capabilities,
    EngineAdapter,
    EnginePackage,
    EventParser,
    LaunchPlan,
    RunContext,
    StagedSkill,
    base_env,
    copy_skills,
)

if TYPE_CHECKING:
    from holon_core import EngineReport, ResolvedSkill

#: The CLI's own default model name (``DEFAULT_GEMINI_MODEL`` in 0.61). We always pass ``-m``:
#: without it the CLI sends an extra routing request whose five retries no setting bounds.
DEFAULT_MODEL = "gemini-2.5-pro"
#: Linux refuses a single argv string over 128 KiB; longer prompts go through stdin instead.
ARGV_PROMPT_LIMIT = 100_000


class GeminiAdapter(EngineAdapter):
    """Google Gemini CLI (``@google/gemini-cli``) behind the holon contract."""

    name: ClassVar[str] = "gemini"
    distribution: ClassVar[str | None] = "holon-adapter-gemini"
    capabilities: ClassVar[Capabilities] = Capabilities(
        native_skills=True,
        max_steps=True,
        model_selection=True,
        session_id=True,
        usage_reporting=True,
        cost_reporting=False,
        # --resume <uuid>, or --session-file from another cwd (resume.py).
        resume=True,
        needs_credentials=True,
    )
    credential_env: ClassVar[tuple[str, ...]] = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    passthrough_env: ClassVar[tuple[str, ...]] = ("GOOGLE_GEMINI_BASE_URL",)
    #: Gemini CLI discovers these in its cwd itself; holon validates and records them.
    workspace_skill_dirs: ClassVar[tuple[str, ...]] = (".gemini/skills", ".agents/skills")
    model_api: ClassVar[str | None] = "google-generate-content"
    engine_package: ClassVar[EnginePackage | None] = EnginePackage(
        npm="@google/gemini-cli",
        version="0.61.0",
        supported=("0.61", "0.61"),
        binary="gemini",
        pins=Path(__file__).with_name("engine_pin"),
    )

    def endpoint_env(self, base_url: str) -> dict[str, str]:
        """``GOOGLE_GEMINI_BASE_URL`` (the CLI adds ``/v1beta``) and a fake API key."""
        return {"GOOGLE_GEMINI_BASE_URL": base_url, "GEMINI_API_KEY": "sk-holon-fake-0000"}

    def accepts_model(self, model: str) -> bool:
        """Gemini model names (``gemini-...``), what ``-m`` takes."""
        return model.startswith("gemini-")

    def model_for(self, run: RunContext) -> str:
        return run.model or DEFAULT_MODEL

    def launch(self, run: RunContext) -> LaunchPlan:
        binary = self.require_binary(run)
        run.home.mkdir(parents=True, exist_ok=True)
        run.tmp.mkdir(parents=True, exist_ok=True)
        settings = forced_settings(max_attempts(run.env), run.max_steps)
        env = base_env(run)
        env.update(write_home(run.home, run.run_dir, settings, run.prompt.system))
        # The CLI otherwise re-executes itself in a child node whose parent ignores SIGTERM.
        env["GEMINI_CLI_NO_RELAUNCH"] = "1"
        env.pop(TRUST_ENV, None)  # trust comes from --skip-trust, after env files (home.py)
        if not env.get("GEMINI_API_KEY") and env.get("GOOGLE_API_KEY"):
            # With the gemini-api-key auth type the CLI reads only GEMINI_API_KEY.
            env["GEMINI_API_KEY"] = env["GOOGLE_API_KEY"]
        argv = [str(binary)]
        stdin: bytes | None = None
        prompt = run.prompt.user
        if len(prompt.encode("utf-8")) <= ARGV_PROMPT_LIMIT:
            # One token with "=": a prompt such as "-p hello" is never parsed as a flag.
            argv.append(f"--prompt={prompt}")
        else:
            # Without -p and with a non-TTY stdin the CLI reads the prompt from stdin.
            stdin = prompt.encode("utf-8")
        # --output-format exactly once: a second one silently switches back to plain text.
        argv += ["--output-format", "stream-json", "--yolo", SKIP_TRUST_FLAG]
        argv += ["-m", self.model_for(run)]
        if run.resume_session:
            from holon_adapter_gemini.resume import resume_args  # see the module docstring

            argv += resume_args(run.home, run.resume_session, run.workspace)
        return LaunchPlan(argv=argv, env=env, cwd=run.workspace, stdin=stdin, grace_seconds=3.0)

    def stage_skills(self, run: RunContext, skills: list[ResolvedSkill]) -> list[StagedSkill]:
        """Copy into ``$GEMINI_CLI_HOME/.gemini/skills``: listed in the system instruction."""
        return copy_skills(skills, run.home / ".gemini" / "skills")

    def event_parser(self, run: RunContext) -> EventParser:
        from holon_adapter_gemini.parser import GeminiParser  # see the module docstring

        return GeminiParser(model=self.model_for(run), max_steps=run.max_steps, home=run.home)

    def manifest_metadata(self, run: RunContext, report: EngineReport) -> dict[str, Any]:
        meta: dict[str, Any] = {"gemini": {"max_attempts": max_attempts(run.env)}}
        gemini: dict[str, Any] = meta["gemini"]
        for key in ("models", "http_status", "exit_code", "engine_warnings"):
            if report.extra.get(key) is not None:
                gemini[key] = report.extra[key]
        if report.skills_seen:
            gemini["skills_activated"] = sorted(report.skills_seen)
        return meta
