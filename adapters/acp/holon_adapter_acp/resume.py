"""Continuing an agent's session in the next serve turn, in the bridge.

serve hands the previous turn's ACP session id to the adapter (``RunContext.resume_session``)
and keeps the agent's home per session, where each agent stores its sessions. The bridge
continues the session with what ``initialize`` says the agent supports: ``session/resume``
(``sessionCapabilities.resume``: the agent goes on without replaying anything), else
``session/load`` (``loadSession``: the agent replays the conversation as ``session/update``
notifications first, which are the earlier turns' and not written as this turn's events).

When the agent supports neither, or its answer is an error, the turn is not failed for it:
the bridge writes a ``resume_failed`` line (a warning in the record), opens a new session and
sends serve's transcript of the earlier turns before the prompt, as for an engine that
cannot resume at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from holon_adapter_acp.bridge import BridgeConfig, Conversation


def continue_method(capabilities: Any) -> str | None:
    """``session/resume``, ``session/load`` or None, from ``initialize``'s agentCapabilities."""
    if capabilities is None:
        return None
    session = getattr(capabilities, "session_capabilities", None)
    if session is not None and getattr(session, "resume", None) is not None:
        return "session/resume"
    return "session/load" if getattr(capabilities, "load_session", False) else None


async def continue_session(talk: Conversation, cfg: BridgeConfig, method: str | None) -> bool:
    """Continue ``cfg.resume`` with ``method``; False (and a ``resume_failed`` line) if not."""
    session_id = cfg.resume or ""
    if method is None:
        talk.out.emit(
            "resume_failed",
            session_id=session_id,
            method=None,
            message="the agent offers neither session/resume nor session/load",
        )
        return False
    talk.stage = method
    answer: object
    try:
        if method == "session/resume":
            answer = await talk.conn.resume_session(
                session_id=session_id, cwd=cfg.cwd, mcp_servers=[]
            )
        else:
            talk.client.replaying = True
            try:
                answer = await talk.conn.load_session(
                    session_id=session_id, cwd=cfg.cwd, mcp_servers=[]
                )
            finally:
                talk.client.replaying = False
    except Exception as exc:  # a JSON-RPC error, or an answer the schema refuses
        if talk.proc.returncode is not None:
            raise
        from holon_adapter_acp.bridge import request_error  # the bridge imports this module

        message = request_error(exc)["message"]
        talk.out.emit("resume_failed", session_id=session_id, method=method, message=message)
        return False
    talk.session_id = session_id
    talk.emit_session(answer, resumed=True)
    if talk.client.replayed:
        talk.out.emit("replayed", method=method, updates=talk.client.replayed)
    return True


def with_transcript(fallback: str | None, prompt: str) -> str:
    """The prompt after serve's transcript of the earlier turns (the file ``--fallback``)."""
    if not fallback:
        return prompt
    try:
        transcript = Path(fallback).read_text(encoding="utf-8").strip()
    except OSError:
        return prompt
    return f"{transcript}\n\n{prompt}" if transcript else prompt
