"""Reason codes and the one-sentence errors users read in ``manifest.error``.

Each sentence says what happened and what to do next, in the voice of ``holon_core.errors``.
"""

from __future__ import annotations

CREDENTIALS = "ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or CLAUDE_CODE_OAUTH_TOKEN"


def reason_for_status(status: int | None) -> str:
    """The holon reason code for an HTTP status the model API answered with."""
    if status in (401, 403):
        return "auth_failed"
    if status == 429:
        return "rate_limited"
    return "engine_error"


def auth_error(status: int | None) -> str:
    code = f"HTTP {status}" if status else "an authentication error"
    return (
        f"The model API rejected Claude Code's credentials ({code}); holon stopped the run "
        f"instead of waiting out the engine's retries. Check {CREDENTIALS} and "
        "ANTHROPIC_BASE_URL."
    )


def rate_limit_error(retries: int, detail: str) -> str:
    return (
        f"The model API kept rate limiting Claude Code (HTTP 429) after {retries} "
        f"retries: {detail}. Wait and rerun, or raise HOLON_CLAUDE_MAX_RETRIES."
    )


def server_error(status: int, retries: int, detail: str) -> str:
    return (
        f"The model API failed with HTTP {status} after {retries} retries: {detail}. "
        "Rerun later, or raise HOLON_CLAUDE_MAX_RETRIES to retry longer."
    )


def max_turns_error(turns: int | None, detail: str) -> str:
    done = f" after {turns} turns" if turns is not None else ""
    return (
        f"Claude Code stopped at the step limit{done} ({detail or 'max turns reached'}); "
        "raise constraints.max_steps or narrow the goal."
    )
