"""Errors an agent reports beside the protocol, in a ``session/update``'s ``_meta``.

ACP has no update for "the model call failed", so agents put it in ``_meta`` and may still end
the turn ``end_turn``: codex-acp sends ``session_info_update`` with
``_meta.codex.error`` (``message``, ``additionalDetails``, ``willRetry``,
``codexErrorInfo.<kind>.httpStatusCode``) for each failed attempt and then
``threadStatus.type: systemError``, shows the error as assistant text and answers
``end_turn``. An error the agent will not retry, or a ``systemError`` thread, makes that turn
a failure (``parser.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class AgentError:
    message: str
    http_status: int | None
    will_retry: bool


def _vendor_blocks(update: dict[str, Any]) -> list[dict[str, Any]]:
    meta = update.get("_meta")
    if not isinstance(meta, dict):
        return []
    return [block for block in meta.values() if isinstance(block, dict)]


def _status(info: Any) -> int | None:
    if not isinstance(info, dict):
        return None
    for detail in info.values():
        code = detail.get("httpStatusCode") if isinstance(detail, dict) else None
        if isinstance(code, int):
            return code
    return None


def meta_error(update: dict[str, Any]) -> AgentError | None:
    """The error an update's ``_meta`` reports, if any."""
    for block in _vendor_blocks(update):
        error = block.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            details = error.get("additionalDetails")
            message = error["message"]
            if isinstance(details, str) and details:
                message = f"{message} ({details})"
            retry = error.get("willRetry") is True
            return AgentError(message, _status(error.get("codexErrorInfo")), retry)
    return None


def system_error(update: dict[str, Any]) -> bool:
    """Whether the update says the agent's session broke (codex ``threadStatus``)."""
    for block in _vendor_blocks(update):
        status = block.get("threadStatus")
        if isinstance(status, dict) and status.get("type") == "systemError":
            return True
    return False
