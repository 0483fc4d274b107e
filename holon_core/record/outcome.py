"""Step 10: the outcome, decided from evidence by one rule — never from the exit code alone.

Every engine reports false success somewhere (engines.md §5), so the rule reads all signals.
In order, the first that applies wins:

1. the run was cancelled (SIGTERM/SIGINT)            -> failure ``cancelled``
2. the wall-clock timeout fired                       -> failure ``timeout``
3. the silence timeout fired                          -> failure ``stalled``
4. a parser asked to abort (e.g. 401 being retried)   -> failure with that reason
5. the engine could not be started                    -> failure ``engine_missing``
6. no terminal event: exit != 0 -> ``engine_crashed``; exit 0 -> ``silent_success``
7. the terminal event carries an error                -> failure, the parser's reason
                                                         (default ``engine_error``)
8. terminal success but exit != 0                     -> failure ``engine_crashed``
9. the engine's tools failed (see below)               -> failure ``tool_failed``
10. required artifacts are missing                    -> failure ``missing_artifacts``
11. a passed credential appears in the changes         -> needs_human ``secret_in_changes``
12. the engine declared needs_human                    -> needs_human ``needs_human``
13. otherwise                                          -> success ``ok``

Rule 9, failed tools. Parsers normalize every engine's tool results the same way (a shell
command fails when it exits non-zero, except exit 1 of ``grep``/``diff``/``test`` and the
like, which is an answer: :func:`holon_core.engine.events.command_ok`). The run fails when

* tools were called and every one of them failed, or
* the engine ran shell commands, not one of them succeeded, and its last tool call failed.

So an engine whose every command failed cannot claim success ("done, all good"), nor can
one whose every test run failed after its edits; but one failed exploratory command followed
by working commands or edits is ordinary work, and so is a run whose last step is a failed
command after other commands succeeded (an engine may end on a check it expects to fail; the
last-command rule alone would call that a failure). ``metadata.tools`` in the manifest
records the counts and the failed commands, for users who want a stricter gate.

Decided around this rule by the agent, because they are about the record, not the engine:
a full disk (or quota) while running or recording -> failure ``disk_full``; the output dir or
``evidence/`` replaced during the run (e.g. by a symlink) -> failure ``output_replaced``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from holon_core.engine.adapter import EngineReport
from holon_core.engine.events import ToolOutcome

Outcome = Literal["success", "failure", "needs_human"]


@dataclass(frozen=True, slots=True)
class Signals:
    report: EngineReport
    exit_code: int | None
    ended_by: str
    abort_reason: str | None = None
    spawn_error: str | None = None
    missing_artifacts: tuple[str, ...] = ()
    secret_files: tuple[str, ...] = ()
    wall_timeout: float | None = None
    silence_timeout: float | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    outcome: Outcome
    reason: str
    error: str | None

    @property
    def exit_code(self) -> int:
        return {"success": 0, "failure": 1, "needs_human": 2}[self.outcome]


def _fail(reason: str, error: str) -> Decision:
    return Decision("failure", reason, error)


def decide(s: Signals) -> Decision:
    r = s.report
    if s.ended_by == "cancelled":
        return _fail("cancelled", "the run was cancelled (SIGTERM/SIGINT); the engine was stopped")
    if s.ended_by == "timeout":
        return _fail("timeout", f"the engine exceeded the wall-clock timeout of {s.wall_timeout}s")
    if s.ended_by == "stalled":
        return _fail(
            "stalled",
            f"the engine printed nothing for {s.silence_timeout}s and was stopped "
            "(raise HOLON_SILENCE_TIMEOUT if the task needs long silent steps)",
        )
    if s.ended_by == "aborted" or s.abort_reason:
        reason = s.abort_reason or r.reason or "engine_error"
        return _fail(reason, r.error or f"the run was stopped early: {reason}")
    if s.ended_by == "spawn_failed":
        return _fail("engine_missing", f"the engine could not be started: {s.spawn_error}")
    if not r.terminal_seen:
        if s.exit_code not in (0, None):
            detail = f": {r.error}" if r.error else ""
            return _fail(
                r.reason or "engine_crashed",
                f"the engine exited with code {s.exit_code} before finishing{detail}",
            )
        return _fail(
            "silent_success",
            "the engine exited 0 without a terminal event; its success cannot be trusted",
        )
    if r.is_error:
        return _fail(r.reason or "engine_error", r.error or "the engine reported an error")
    if s.exit_code not in (0, None):
        return _fail(
            "engine_crashed", f"the engine reported success but exited with code {s.exit_code}"
        )
    failed_tools = tools_failed(r)
    if failed_tools:
        return _fail("tool_failed", failed_tools)
    if s.missing_artifacts:
        missing = ", ".join(s.missing_artifacts)
        return _fail("missing_artifacts", f"required artifacts are missing: {missing}")
    if s.secret_files:
        files = ", ".join(s.secret_files)
        return Decision(
            "needs_human",
            "secret_in_changes",
            f"a credential passed to the engine appears in the changes to: {files}; "
            "diff.patch is left intact for review",
        )
    if r.declared_outcome == "needs_human":
        return Decision("needs_human", "needs_human", r.error)
    if r.declared_outcome == "failure":
        return _fail(r.reason or "reported_failure", r.error or "the engine reported failure")
    return Decision("success", "ok", None)


def tools_failed(r: EngineReport) -> str | None:
    """Rule 9's sentence when the engine's tools failed, else None."""
    log = r.tool_log
    commands = [t for t in log if t.command is not None]
    last = _last_failure(log)
    if r.tool_calls > 0 and r.tool_failures >= r.tool_calls:
        return f"all {r.tool_calls} tool calls of the engine failed{last}"
    if commands and not log[-1].ok and not any(t.ok for t in commands):
        return (
            f"none of the {len(commands)} shell commands the engine ran succeeded and its "
            f"last tool call failed{last}"
        )
    return None


def _last_failure(log: list[ToolOutcome]) -> str:
    failed = [t for t in log if not t.ok]
    if not failed:
        return ""
    t = failed[-1]
    what = f"`{t.command[:80]}`" if t.command is not None else (t.tool or "a tool")
    if t.exit_code is not None:
        code = f" exited {t.exit_code}"
    else:
        code = f" failed: {t.error}" if t.error else " failed"
    return f" (last: {what}{code}); the engine's claim of success is not trusted"
