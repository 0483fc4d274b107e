"""The execution record (``manifest.json``, RFC-0002 §3.2.1, RFC-0003 §8.1).

Extra keys are allowed everywhere so a skill that writes its own fields (``pr_url``, ...)
survives the merge; the fields below are what holon itself guarantees.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from holon_core.untrusted.relative import leaves_root

Status = Literal["completed", "failed", "running"]
Outcome = Literal["success", "failure", "needs_human"]
CostSource = Literal["reported", "estimated", "unavailable", "gateway"]
Staging = Literal["native", "fallback", "none"]

REASON_CODES = (
    "ok",
    "auth_failed",
    "rate_limited",
    "budget_exceeded",
    "replay_mismatch",
    "sandbox_unavailable",
    "engine_error",
    "engine_crashed",
    "engine_missing",
    "missing_credentials",
    "invalid_spec",
    "invalid_input",
    "invalid_skill",
    "unknown_engine",
    "output_not_writable",
    "timeout",
    "stalled",
    "cancelled",
    "silent_success",
    "max_steps",
    "missing_artifacts",
    "tool_failed",
    "secret_in_changes",
    "workspace_modified",
    "needs_human",
    "reported_failure",
    "workspace_error",
    "disk_full",
    "output_replaced",
    "plugin_error",
    "preflight_failed",
    "probe_failed",
    "holon_error",
    "internal_error",
)

_DURATION = re.compile(r"^\d+(\.\d+)?s$")


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class TokenCounts(_Open):
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    total_tokens: int | None = None


class ModelUsage(_Open):
    """One model's calls through the model gateway (docs/gateway.md)."""

    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    calls: int = 0
    cost_usd: float | None = None


class Usage(TokenCounts):
    source: Literal["gateway"] | None = Field(
        default=None, description='"gateway": read from the wire; absent: the engine\'s report.'
    )
    calls: int | None = Field(default=None, description="Every call through the gateway.")
    model_calls: int | None = None
    rate_limited_calls: int | None = None
    failed_calls: int | None = None
    rate_limit_reset_at: str | None = Field(
        default=None, description="When the API said its rate limit or quota resets."
    )
    models: list[ModelUsage] | None = None
    reported: TokenCounts | None = Field(
        default=None, description="The engine's own figures, beside the gateway's."
    )


class PriceProvenance(_Open):
    library: str
    version: str
    data: str
    table: str | None = Field(default=None, description="The HOLON_PRICES file, when set.")
    table_sha256: str | None = None


class CostInfo(_Open):
    usd: float | None = None
    source: CostSource = "unavailable"
    prices: PriceProvenance | None = None
    reported_usd: float | None = None
    unpriced_models: list[str] | None = None


class BudgetSpent(_Open):
    cost_usd: float = 0.0
    tokens: int = 0
    model_calls: int = 0


class SessionBudget(_Open):
    """A serve session's budget, spent over all its turns so far (docs/gateway.md)."""

    max_cost_usd: float | None = None
    spent: BudgetSpent | None = None
    exceeded: str | None = None


class BudgetRecord(_Open):
    """The run's budget as the gateway kept it (docs/gateway.md)."""

    max_cost_usd: float | None = None
    max_tokens: int | None = None
    max_model_calls: int | None = None
    spent: BudgetSpent | None = None
    exceeded: str | None = Field(default=None, description="The limit that stopped the run.")
    session: SessionBudget | None = Field(
        default=None, description="A serve turn: its session's budget (serve --max-cost)."
    )


class GatewayInfo(_Open):
    state: Literal["on", "bypassed"]
    reason: str | None = None
    api: str | None = None
    upstream: str | None = None


class EngineInfo(_Open):
    name: str
    version: str | None = None
    model: str | None = None
    binary: str | None = None


class AdapterInfo(_Open):
    name: str
    version: str | None = None
    distribution: str | None = None


class SkillRecord(_Open):
    name: str
    version: str | None = Field(default=None, description="The front matter `version`, if any.")
    source: str = Field(description="The layer: builtin, user, workspace, spec or flag")
    origin: str | None = Field(
        default=None,
        description="Where exactly: its directory, a pinned archive's URL or path, "
        "or store:NAME@VERSION.",
    )
    sha256: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{64}$",
        description="The package digest, lowercase hex (docs/skills.md).",
    )
    path: str | None = None
    native_dir: str | None = Field(
        default=None,
        description="For a skill in the engine's own skill folder in the workspace: that folder.",
    )
    staging: Staging = "none"
    seen_by_engine: bool | None = Field(
        default=None, description="True when the engine listed or loaded it; None if unknowable."
    )


class Baseline(_Open):
    kind: Literal["git", "directory"]
    head: str | None = None
    tree: str | None = None
    dirty: bool | None = None


class Check(_Open):
    name: str
    ok: bool
    detail: str = ""
    hint: str | None = None


class FailedCommand(_Open):
    command: str = Field(description="The command line (first 200 characters).")
    exit_code: int | None = Field(
        default=None, description="None when the engine's evidence does not show it."
    )
    error: str | None = Field(
        default=None,
        description="Why it failed when no exit code tells, e.g. the engine refused to run it.",
    )


class ToolStats(_Open):
    """The engine's tool calls as holon judged them, the same way on every engine."""

    calls: int = 0
    failed: int = 0
    commands: int = Field(default=0, description="Shell commands among the calls.")
    commands_failed: int = Field(
        default=0, description="Non-zero exit, except exit 1 of grep, diff, test and the like."
    )
    last_failed: bool = Field(default=False, description="The last finished tool call failed.")
    failed_commands: list[FailedCommand] = Field(
        default_factory=list, description="The first 10 failed commands."
    )


class ManifestMetadata(_Open):
    agent: str = "holon-agent"
    holon_version: str
    mode: Literal["run", "probe", "serve"] = "run"
    reason: str = Field(
        "ok",
        description="Normalized reason code; holon writes one of: " + ", ".join(REASON_CODES),
    )
    adapter: AdapterInfo | None = None
    engine: EngineInfo | None = None
    session_id: str | None = None
    turns: int | None = None
    usage: Usage | None = None
    cost: CostInfo | None = None
    gateway: GatewayInfo | None = None
    budget: BudgetRecord | None = None
    skills: list[SkillRecord] = Field(default_factory=list)
    baseline: Baseline | None = None
    changed: bool | None = None
    files_changed: int | None = None
    checks: list[Check] = Field(default_factory=list)
    tools: ToolStats | None = Field(
        default=None, description="Present once the engine ran; read by outcome rule 9."
    )
    secrets_in_changes: list[str] = Field(
        default_factory=list, description="Files whose changes contain a passed credential."
    )


class Manifest(_Open):
    """What happened in one run; the one artifact RFC-0002 v0.2 requires."""

    status: Status
    outcome: Outcome
    duration: str = Field(description='Wall time like "12.5s".')
    artifacts: list[str] = Field(description="Paths relative to the output directory.")
    metadata: ManifestMetadata
    error: str | None = None

    @field_validator("duration")
    @classmethod
    def _duration(cls, value: str) -> str:
        if not _DURATION.match(value):
            raise ValueError('duration must look like "12.5s"')
        return value

    @field_validator("artifacts")
    @classmethod
    def _relative(cls, value: list[str]) -> list[str]:
        for path in value:
            if leaves_root(path):
                raise ValueError(f"artifact {path!r} must be relative to the output directory")
        return value

    @model_validator(mode="after")
    def _error_on_failure(self) -> Manifest:
        if self.outcome == "failure" and not self.error:
            raise ValueError("error is required when outcome is failure")
        return self

    def to_json(self) -> str:
        return self.model_dump_json(indent=2, exclude_none=True) + "\n"


def manifest_schema() -> dict[str, Any]:
    return Manifest.model_json_schema()
