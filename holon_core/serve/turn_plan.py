"""Planning a serve turn before it runs: ids, its dirs inside the mounted parents, continuation.

A request that passed :mod:`holon_core.serve.protocol` becomes a :class:`Turn` here, or a
``RequestError`` (4xx) for anything the client got wrong: an unknown previous response, a
session mismatch, dirs outside the mounted ones, a used output dir, a URL to fetch without
``--allow-fetch``. Continuation is native resume when the adapter declares it, else the
stored transcript of the earlier turns. :class:`Session` is what serve loads once at start.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holon_core.agent.output_dir import foreign_files
from holon_core.agent.paths import AgentPaths
from holon_core.engine.adapter import EngineAdapter
from holon_core.engine.checks import Check
from holon_core.hooks.manager import HolonPlugins
from holon_core.models.spec import Spec
from holon_core.serve.errors import RequestError
from holon_core.serve.model_choice import ModelChoice, choose_model
from holon_core.serve.protocol import (
    TurnRequest,
    new_id,
)
from holon_core.serve.store import (
    Store,
    render_transcript,
)
from holon_core.untrusted.redact import Redactor


@dataclass
class Turn:
    """A request that passed every check, with everything decided before it runs."""

    request: TurnRequest
    response_id: str
    session_id: str
    turn_id: str
    input_dir: Path
    output_dir: Path
    workspace: Path
    isolated: bool
    #: Where an isolated turn's workspace is copied from.
    workspace_source: Path | None
    continuation: str  # "none", "native", "transcript" or "history"
    model: ModelChoice = field(default_factory=lambda: ModelChoice(None))
    resume_session: str | None = None
    history: str = ""
    #: A native resume's transcript of the earlier turns, written as ``transcript.md`` for
    #: an adapter whose engine turns out unable to continue its session (ACP's fallback).
    fallback_history: str = ""
    earlier_turns: int = 0
    created_at: int = field(default_factory=lambda: int(time.time()))
    cancel: threading.Event = field(default_factory=threading.Event)
    #: Events the client got while the turn waited in the queue (``response.created`` with
    #: status ``queued``, ``response.queued``): first in ``events.ndjson``, and the turn's
    #: own stream goes on from them (its ``response.created`` is not sent twice).
    prelude: list[dict[str, Any]] = field(default_factory=list)
    #: The status of the record serve stored before the turn ran (``save_unrun``), if any.
    stored: str | None = None
    #: ``TRACEPARENT``/``TRACESTATE`` from the request's W3C headers: the turn's span joins
    #: the client's trace (docs/telemetry.md); over the server's own when set.
    trace_env: dict[str, str] = field(default_factory=dict)


@dataclass
class Session:
    """What serve loads once at start: plugins, the engine, its preflight, the base spec."""

    paths: AgentPaths
    env: Mapping[str, str]
    plugins: HolonPlugins
    engine: EngineAdapter
    preflight: tuple[Path | None, str | None, list[Check]]
    base_spec: Spec | None
    store: Store
    redact: Redactor
    model: str | None = None
    skills: list[Path] = field(default_factory=list)
    isolate: bool = False
    #: ``--allow-fetch``: http(s) URLs of images and files are fetched (else refused).
    allow_fetch: bool = False
    #: ``--model-map``: a client's model name -> the engine's.
    model_map: dict[str, str] = field(default_factory=dict)
    #: The session's model gateway, leased to each turn (``holon_core.gateway.shared``).
    gateway: object = None


def plan_turn(session: Session, request: TurnRequest) -> Turn:
    """Decide ids, dirs and continuation; RequestError (4xx) for anything the client got wrong."""
    previous = None
    if request.previous_response_id is not None:
        previous = session.store.load(request.previous_response_id)
        if previous is None:
            raise RequestError(
                404,
                f"no stored response {request.previous_response_id!r}; "
                "pass the id of a response this serve state dir holds",
                param="previous_response_id",
                code="response_not_found",
            )
    session_id = request.session_id or (previous or {}).get("session_id") or new_id("sess")
    if previous is not None and request.session_id not in (None, previous.get("session_id")):
        raise RequestError(
            400,
            f"previous_response_id belongs to session {previous.get('session_id')!r}, "
            f"not {request.session_id!r}",
            param="holon.session_id",
        )
    turn_id = request.turn_id or new_id("turn")
    _check_fetch(session, request)
    input_dir = _inside(request.input_dir, session.paths.input, turn_id, "input_dir")
    output_dir = _inside(request.output_dir, session.paths.output, turn_id, "output_dir")
    if (output_dir / "manifest.json").exists() or foreign_files(output_dir):
        raise RequestError(
            409,
            f"the turn's output dir {output_dir} is already used; pick a new holon.turn_id",
            param="holon.turn_id",
            code="turn_exists",
        )
    isolated = session.isolate if request.workspace is None else request.workspace == "isolated"
    workspace, source = session.paths.workspace, None
    if isolated:
        source = _isolated_source(session, previous)
        workspace = session.store.session_dir(session_id) / "workspaces" / turn_id
    turn = Turn(
        request=request,
        response_id=new_id("resp"),
        session_id=session_id,
        turn_id=turn_id,
        input_dir=input_dir,
        output_dir=output_dir,
        workspace=workspace,
        isolated=isolated,
        workspace_source=source,
        continuation="none",
        model=choose_model(
            request.model, session.engine, default=session.model, model_map=session.model_map
        ),
    )
    if request.history:
        turn.continuation, turn.earlier_turns = "history", len(request.history)
        turn.history = render_transcript(request.history)
    if previous is not None:
        decide_continuation(session, turn, previous)
    return turn


def decide_continuation(session: Session, turn: Turn, previous: dict[str, Any]) -> None:
    """Native resume or transcript (and an isolated turn's copy source), from the previous
    turn's stored record.

    Serve decides again when a queued turn starts if its previous turn had not ended when
    it was planned (the engine session it resumes, and the workspace copy it leaves, exist
    only then).
    """
    if turn.isolated:
        turn.workspace_source = _isolated_source(session, previous)
    engine_session = previous.get("engine_session_id")
    chain = session.store.chain(turn.request.previous_response_id or "")
    if session.engine.capabilities.resume and isinstance(engine_session, str):
        turn.continuation, turn.resume_session = "native", engine_session
        turn.earlier_turns, turn.history = 0, ""
        turn.fallback_history = render_transcript(chain)
    else:
        turn.continuation, turn.resume_session = "transcript", None
        turn.earlier_turns, turn.history = len(chain), render_transcript(chain)


def _isolated_source(session: Session, previous: dict[str, Any] | None) -> Path:
    """Where an isolated turn's copy comes from: the previous turn's, else the mounted one."""
    earlier = Path(str((previous or {}).get("workspace") or session.paths.workspace))
    return earlier if earlier.is_dir() else session.paths.workspace


def _check_fetch(session: Session, request: TurnRequest) -> None:
    for item in request.attachments:
        if item.url is not None and not session.allow_fetch:
            field_name = "image_url" if item.kind == "image" else "file_url"
            raise RequestError(
                400,
                f"{item.param}.{field_name}: this server fetches no URLs; send the data inline "
                "(a base64 data URL), or start the server with --allow-fetch",
                param=f"{item.param}.{field_name}",
                code="fetch_disabled",
            )


def _inside(given: str | None, root: Path, turn_id: str, name: str) -> Path:
    """The turn's dir: given (absolute, or relative to ``root``) or ``root/turns/<turn_id>``."""
    path = Path(given) if given else root / "turns" / turn_id
    if not path.is_absolute():
        path = root / path
    resolved, base = path.resolve(), root.resolve()
    if resolved != base and not resolved.is_relative_to(base):
        raise RequestError(
            400,
            f"holon.{name} {given!r} is outside the mounted dir {root}; "
            f"give a directory inside it (default: {root}/turns/<turn_id>)",
            param=f"holon.{name}",
            code="path_outside_root",
        )
    return resolved
