"""The ACP client side the bridge offers an agent: permissions answered, nothing else served.

holon offers no ``fs`` or ``terminal`` capability, so the agent edits the snapshot and runs
commands itself and holon's diff stays the source of truth. Whatever the agent asks besides a
permission is answered with JSON-RPC "method not found" at once (a client that drops a request
hangs the agent) and written to the record as ``unanswerable``. Every ``session/update`` is
written as the agent sent it, from the connection's observer, before the SDK validates it: an
update of a newer schema than the SDK's still reaches the record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp import RequestError, RequestPermissionResponse
from acp.connection import StreamDirection, StreamEvent
from acp.schema import AllowedOutcome, DeniedOutcome

from holon_adapter_acp.policy import choose

if TYPE_CHECKING:
    from acp.schema import PermissionOption, ToolCallUpdate

    from holon_adapter_acp.wire import LineWriter

#: Agent requests this client answers with something other than "method not found".
SERVED = frozenset({"session/request_permission"})


class HeadlessClient:
    """An ACP ``Client`` for unattended runs (the SDK calls these methods by name)."""

    def __init__(self, out: LineWriter, policy: str) -> None:
        self._out = out
        self._policy = policy
        #: Set once ``session/cancel`` was sent: every permission is then answered cancelled.
        self.cancelled = False
        #: Set while ``session/load`` replays the earlier conversation: those updates are
        #: the agent's history, not this turn's events, so they are counted and not written.
        self.replaying = False
        self.replayed = 0

    def observe(self, event: StreamEvent) -> None:
        """Record what arrives from the agent, in the order it arrives."""
        if event.direction is not StreamDirection.INCOMING:
            return
        message = event.message
        method = message.get("method")
        if not isinstance(method, str):
            return
        found = message.get("params")
        params: dict[str, Any] = found if isinstance(found, dict) else {}
        if "id" not in message:
            if method == "session/update" and self.replaying:
                self.replayed += 1
            elif method == "session/update" and isinstance(params.get("update"), dict):
                self._out.emit("update", update=params["update"])
            return
        if method not in SERVED:
            self._out.emit("unanswerable", method=method)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **_: Any
    ) -> RequestPermissionResponse:
        pairs = [(option.option_id, str(option.kind)) for option in options]
        chosen = None if self.cancelled else choose(self._policy, pairs)
        kind = next((k for option_id, k in pairs if option_id == chosen), None)
        self._out.emit(
            "permission",
            tool_call=tool_call.model_dump(mode="json", by_alias=True, exclude_none=True),
            options=[{"optionId": i, "kind": k} for i, k in pairs],
            option_id=chosen,
            kind=kind,
        )
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen)
        )

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        """Already written by :meth:`observe`."""

    # Not offered in ``initialize``: an agent that asks anyway gets "method not found".
    async def write_text_file(self, **_: Any) -> None:
        raise RequestError.method_not_found("fs/write_text_file")

    async def read_text_file(self, **_: Any) -> None:
        raise RequestError.method_not_found("fs/read_text_file")

    async def create_terminal(self, **_: Any) -> None:
        raise RequestError.method_not_found("terminal/create")

    async def terminal_output(self, **_: Any) -> None:
        raise RequestError.method_not_found("terminal/output")

    async def release_terminal(self, **_: Any) -> None:
        raise RequestError.method_not_found("terminal/release")

    async def wait_for_terminal_exit(self, **_: Any) -> None:
        raise RequestError.method_not_found("terminal/wait_for_exit")

    async def kill_terminal(self, **_: Any) -> None:
        raise RequestError.method_not_found("terminal/kill")
