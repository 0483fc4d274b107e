"""One plain sentence per reason code: what a reader who never saw holon needs to know first.

Covers every code of the contract (``holon_core.models.manifest.REASON_CODES``, a test keeps
the two in step) and ``holon run``'s own codes (docs/manifest.md).
"""

from __future__ import annotations

REASONS: dict[str, str] = {
    "ok": "The engine finished the task and every check holon makes passed.",
    "auth_failed": "The model provider refused the engine's credential, so no work was done.",
    "rate_limited": "The model provider kept refusing requests (rate limit or quota) "
    "after the engine's retries.",
    "budget_exceeded": "The run reached its budget (cost, tokens or model calls); holon "
    "stopped the engine and kept the work done so far.",
    "replay_mismatch": "The engine asked the model something the cassette being replayed "
    "did not record (the prompt, a skill or the engine changed); holon stopped it.",
    "sandbox_unavailable": "This machine could not build the room the engine runs in "
    "(user namespaces or bubblewrap unavailable), so the engine was not started.",
    "engine_error": "The engine itself reported an error and stopped.",
    "engine_crashed": "The engine exited with an error code before finishing, or after "
    "claiming success.",
    "engine_missing": "The engine program could not be found or started on this machine.",
    "missing_credentials": "A credential the engine needs (an API key) was not set.",
    "invalid_spec": "The task file (spec.yaml) is missing or invalid, so nothing ran.",
    "invalid_input": "An input, workspace or output path could not be used, so nothing ran.",
    "invalid_skill": "A skill given to the run is invalid, so nothing ran.",
    "unknown_engine": "No installed adapter has the engine name that was asked for.",
    "output_not_writable": "holon could not write to the output directory.",
    "timeout": "The run took longer than its wall-clock time limit and was stopped.",
    "stalled": "The engine printed nothing for too long and was stopped.",
    "cancelled": "Someone stopped the run (a signal such as Ctrl-C) before it finished.",
    "silent_success": "The engine exited without its final report, so its success cannot "
    "be trusted.",
    "max_steps": "The engine used up the number of steps the task allows.",
    "missing_artifacts": "A file the task requires as output was not produced.",
    "tool_failed": "The engine claimed success, but the commands it ran failed.",
    "secret_in_changes": "A credential given to the engine appears in its changes: a "
    "person must review them before anything is applied.",
    "workspace_modified": "The original workspace changed while the engine ran: a person "
    "must check what reached outside the snapshot.",
    "needs_human": "The engine asked for a person to decide or help.",
    "reported_failure": "The engine itself said it could not do the task.",
    "workspace_error": "holon could not record the workspace's state or the engine's changes.",
    "disk_full": "The disk filled up during the run; only a minimal record was written.",
    "output_replaced": "The output directory was swapped during the run: this record "
    "cannot be trusted.",
    "plugin_error": "A holon plugin failed to load or registered something invalid.",
    "preflight_failed": "A readiness check failed before the engine started (often a "
    "missing variable), so nothing ran.",
    "probe_failed": "The readiness probe found the agent not ready.",
    "holon_error": "holon hit an error of its own.",
    "internal_error": "holon hit a bug; the execution log says where.",
    # holon run's own verdicts on an agent's record
    "missing_manifest": "The agent ended without writing its record (manifest.json).",
    "invalid_manifest": "The agent's record (manifest.json) is not valid.",
    "patch_does_not_apply": "The engine's changes (diff.patch) do not apply to the "
    "original workspace.",
    "runner_error": "holon run could not check the agent's result.",
}


def explain(reason: str | None) -> str:
    """The sentence for ``reason``; an unknown code is named as such, never guessed at."""
    if not reason:
        return "The record gives no reason code."
    return REASONS.get(
        reason,
        f"The record gives the reason code {reason!r}, which holon "
        "does not know; read the error below.",
    )
