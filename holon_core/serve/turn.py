"""One serve turn: where it reads and writes, how it continues the session, and its record.

Planned by :mod:`holon_core.serve.turn_plan` (ids, dirs, continuation); run here. A turn is
the one-shot pipeline (:func:`holon_core.agent.run.run_turn`) with a per-turn input
and output dir, the engine's home kept per session under the state dir, and an Open Responses
stream written to ``<output_dir>/events.ndjson`` as it is sent. Continuation: an adapter that
declares ``resume`` gets the engine's own session id of the previous turn
(``RunContext.resume_session``); any other gets the stored transcript of the earlier turns
rendered before its task (``transcript.md`` in the turn's output dir). A stateless client's
input that carries the earlier turns itself (:mod:`holon_core.serve.input_items`) is rendered
the same way (mode ``history``). ``turn.json`` names which one was used. The request's
images and files are written to ``<input dir>/attachments/`` and named in the task; its
system and developer messages join ``instructions`` in the system prompt.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from holon_core.agent.output_dir import mark_owned
from holon_core.agent.paths import AgentPaths
from holon_core.agent.run import AgentOptions, run_turn
from holon_core.models.spec import Spec
from holon_core.record.outcome import Decision
from holon_core.serve import attachments
from holon_core.serve.budget import with_budget
from holon_core.serve.protocol import (
    response_object,
    usage_object,
)
from holon_core.serve.store import (
    TRANSCRIPT_TURNS,
    UNFINISHED,
    render_transcript,
    write_atomic,
)
from holon_core.serve.stream import Sink, TurnStream
from holon_core.serve.turn_plan import Session, Turn
from holon_core.untrusted.files import HeldDir


def execute(session: Session, turn: Turn, deliver: Callable[[dict[str, Any]], None]) -> None:
    """Run the turn; every event goes to ``events.ndjson`` and then to ``deliver``."""
    turn.output_dir.mkdir(parents=True, exist_ok=True)
    held = HeldDir.open(turn.output_dir)
    try:
        mark_owned(held, owner="holon-agent serve")
    finally:
        held.close()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(turn.output_dir / "events.ndjson", flags, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as events:
        for event in turn.prelude:  # sent while queued: only written here
            events.write(session.redact(json.dumps(event, ensure_ascii=False)) + "\n")
        shift = 0

        def sink(event: dict[str, Any]) -> None:
            nonlocal shift
            if turn.prelude:  # numbered on from the prelude, which had response.created
                if event["type"] == "response.created":
                    shift = turn.prelude[-1]["sequence_number"] - event["sequence_number"]
                    return
                event = {**event, "sequence_number": event["sequence_number"] + shift}
            # one redaction of the whole line: what the client sent back to it included
            line = json.dumps(event, ensure_ascii=False)
            clean = session.redact(line)
            events.write(clean + "\n")
            events.flush()
            deliver(event if clean == line else json.loads(clean))

        _run(session, turn, sink)


def _run(session: Session, turn: Turn, sink: Sink) -> None:
    stream = TurnStream(sink, session.redact)
    model = turn.model.model or session.engine.name
    warnings = [turn.model.warning] if turn.model.warning else []
    started = datetime.now(UTC)

    def snapshot(status: str, **extra: Any) -> dict[str, Any]:
        return response_snapshot(turn, status, model, list(stream.output), warnings, **extra)

    first = snapshot("in_progress")
    if turn.stored != "in_progress":  # serve stores it when the turn starts at once
        _save(session, turn, first, report_session=None, output_text="", durable=False)
    stream.lifecycle("created", first)
    stream.lifecycle("in_progress", first)
    decision, report = _run_pipeline(session, turn, stream)
    model = _model_used(turn) or model
    stream.close_open_items()
    output_text = "\n\n".join(stream.text_parts) or (report.final_text if report else "")
    outcome = {"outcome": decision.outcome, "reason": decision.reason}
    extra: dict[str, Any] = {
        "completed_at": int(time.time()),
        "usage": usage_object(report.usage) if report else None,
        "holon": {**outcome, "manifest": str(turn.output_dir / "manifest.json")},
    }
    if decision.outcome == "success":
        final = snapshot("completed", **extra)
    elif decision.outcome == "needs_human":
        final = snapshot("incomplete", incomplete=decision.reason, **extra)
    else:
        message = session.redact(decision.error or decision.reason)
        final = snapshot("failed", error={"code": decision.reason, "message": message}, **extra)
    engine_session = report.session_id if report else None
    _save(session, turn, final, report_session=engine_session, output_text=output_text)
    _write_turn_record(
        session, turn, final, decision, engine_session=engine_session, started=started
    )
    if decision.outcome == "failure":
        stream.error(decision.reason, final["error"]["message"])
    kind = {"completed": "completed", "incomplete": "incomplete"}.get(final["status"], "failed")
    stream.lifecycle(kind, final)


def response_snapshot(
    turn: Turn,
    status: str,
    model: str,
    output: list[dict[str, Any]],
    warnings: list[str],
    **extra: Any,
) -> dict[str, Any]:
    """The turn's response object as it stands (``extra``: completed_at, error, holon, ...)."""
    holon = {
        "session_id": turn.session_id,
        "turn_id": turn.turn_id,
        "input_dir": str(turn.input_dir),
        "output_dir": str(turn.output_dir),
        "workspace": "isolated" if turn.isolated else "shared",
        **({"warnings": warnings} if warnings else {}),
        **extra.pop("holon", {}),
    }
    return response_object(
        response_id=turn.response_id,
        created_at=turn.created_at,
        status=status,
        model=model,
        request=turn.request,
        output=output,
        holon=holon,
        **extra,
    )


def save_unrun(session: Session, turn: Turn, status: str, **extra: Any) -> dict[str, Any]:
    """Store the response of a turn that has not run: ``queued``, ``in_progress`` (about to
    start), or taken out of the queue before it started (``failed``, with ``error`` and
    ``holon`` saying why; only this final record is flushed to disk)."""
    warnings = [turn.model.warning] if turn.model.warning else []
    model = turn.model.model or session.engine.name
    response = response_snapshot(turn, status, model, [], warnings, **extra)
    durable = status not in UNFINISHED
    _save(session, turn, response, report_session=None, output_text="", durable=durable)
    turn.stored = status
    return response


def _run_pipeline(session: Session, turn: Turn, stream: TurnStream) -> tuple[Decision, Any]:
    try:
        if turn.isolated:
            _copy_workspace(turn)
        folder = turn.input_dir / attachments.DIR_NAME
        if turn.request.earlier_attachments:
            attachments.write_all(turn.request.earlier_attachments, folder, allow_fetch=False)
            _name_earlier_files(turn)
        if turn.history or turn.fallback_history:
            text = turn.history or turn.fallback_history
            write_atomic(turn.output_dir / "transcript.md", text + "\n", durable=False)
        files = attachments.write_all(
            turn.request.attachments, folder, allow_fetch=session.allow_fetch
        )
    except attachments.AttachmentError as exc:
        return Decision("failure", "invalid_input", f"cannot prepare the turn: {exc}"), None
    except OSError as exc:
        return Decision("failure", "internal_error", f"cannot prepare the turn: {exc}"), None
    whole_input = turn.input_dir == session.paths.input.resolve()
    text = turn.request.input_text
    if files:
        text = (
            f"{text}\n\nThe user attached these files (in your input dir, read-only):\n"
            + "\n".join(files)
        )
    spec = _turn_spec(session.base_spec, text, keep_context=whole_input)
    if turn.request.budget:  # holon.budget: this turn's limits, beside the spec's
        spec = with_budget(spec, turn.request.budget)
    paths = AgentPaths(
        input=turn.input_dir,
        workspace=turn.workspace,
        output=turn.output_dir,
        state=session.paths.state,
    )
    options = AgentOptions(
        engine=session.engine.name,
        model=turn.model.model,
        skills=session.skills,
        resume_session=turn.resume_session,
        home_root=session.store.session_dir(turn.session_id) / "home",
        mode="serve",
        plugins=session.plugins,
        spec=spec,
        history=turn.history,
        instructions=turn.request.system_prompt,
        on_event=stream.feed,
        preflight=session.preflight,
        gateway=session.gateway,
    )
    result = run_turn(paths, options, {**session.env, **turn.trace_env}, turn.cancel)
    if result is None:
        why = f"holon-agent refused the output dir {turn.output_dir} (see its stderr)"
        return Decision("failure", "invalid_input", why), None
    return result.decision, result.report


def _name_earlier_files(turn: Turn) -> None:
    """The history names where its files were written (in order; URLs stay as they are)."""
    written = iter(str(a.path) for a in turn.request.earlier_attachments)
    for record in turn.request.history:
        names = record.get("attachments") or []
        record["attachments"] = [
            name if name.startswith(("http://", "https://")) else next(written, name)
            for name in names
        ]
    turn.history = render_transcript(turn.request.history)


def _model_used(turn: Turn) -> str | None:
    """The model the turn's manifest records (what ``response.model`` reports)."""
    try:
        manifest = json.loads((turn.output_dir / "manifest.json").read_text("utf-8"))
        model = manifest["metadata"]["engine"]["model"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return model if isinstance(model, str) and model else None


def _turn_spec(base: Spec | None, text: str, *, keep_context: bool = False) -> Spec:
    """The serve spec with this turn's input as its goal.

    A turn reading its own input dir gets its context from that dir, so the spec's named
    context files are dropped; a turn given the whole input dir (``serve --once``) keeps them.
    """
    if base is None:
        return Spec.from_mapping(
            {"version": "v1", "kind": "Holon", "metadata": {"name": "serve"}, "goal": text}
        )
    if keep_context:
        return dataclasses.replace(base, goal=text)
    context = dataclasses.replace(base.context, files=[])
    return dataclasses.replace(base, goal=text, context=context)


def _copy_workspace(turn: Turn) -> None:
    """The isolated turn's own workspace: a copy of where the session's last turn left it."""
    assert turn.workspace_source is not None
    if turn.workspace.exists():
        shutil.rmtree(turn.workspace)
    turn.workspace.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(turn.workspace_source, turn.workspace, symlinks=True)


def _save(
    session: Session,
    turn: Turn,
    response: dict[str, Any],
    *,
    report_session: str | None,
    output_text: str,
    durable: bool = True,
) -> None:
    session.store.save(
        session.redact,
        turn.response_id,
        {
            "response": response,
            "session_id": turn.session_id,
            "turn_id": turn.turn_id,
            "previous_response_id": turn.request.previous_response_id,
            "engine": session.engine.name,
            "engine_session_id": report_session,
            "input_text": turn.request.input_text,
            "history": turn.request.history[-TRANSCRIPT_TURNS:],  # what a chain renders
            "attachments": [str(a.path) for a in turn.request.attachments if a.path],
            "output_text": output_text,
            "workspace": str(turn.workspace),
            "output_dir": str(turn.output_dir),
        },
        durable=durable,
    )


def _write_turn_record(
    session: Session,
    turn: Turn,
    final: dict[str, Any],
    decision: Decision,
    *,
    engine_session: str | None,
    started: datetime,
) -> None:
    continuation: dict[str, Any] = {"mode": turn.continuation}
    if turn.continuation == "native":
        continuation["engine_session_id"] = turn.resume_session
    if turn.continuation in ("transcript", "history"):
        continuation |= {"turns": turn.earlier_turns, "transcript": "transcript.md"}
    record = {
        "session_id": turn.session_id,
        "turn_id": turn.turn_id,
        "response_id": turn.response_id,
        "previous_response_id": turn.request.previous_response_id,
        "started_at": started.isoformat(timespec="milliseconds"),
        "ended_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "status": final["status"],
        "outcome": decision.outcome,
        "reason": decision.reason,
        "engine_session_id": engine_session,
        "continuation": continuation,
        "workspace": {
            "mode": "isolated" if turn.isolated else "shared",
            "path": str(turn.workspace),
        },
        "input_dir": str(turn.input_dir),
        "output_dir": str(turn.output_dir),
    }
    # like manifest.json: atomic, not fsynced (the state dir's record is the durable one)
    text = session.redact(json.dumps(record, indent=2))
    write_atomic(turn.output_dir / "turn.json", text + "\n", durable=False)
