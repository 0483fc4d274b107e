"""The cassette's records as pydantic models: ``cassette.json`` (:class:`CassetteInfo`), a line
of ``calls.ndjson`` (:class:`RecordedCall`) and their parts; their JSON Schema is the format's
(``holon schema cassette``). The layout of the directory and the body store are
:mod:`holon_core.cassette.format`'s."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from holon_core.errors import HolonError

#: A body's name under ``bodies/``: its SHA-256 in hex.
SHA256 = re.compile(r"^[0-9a-f]{64}$")


class CassetteError(HolonError):
    """A cassette that cannot be read or written; the message names the problem and the fix."""

    reason = "invalid_input"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Body(_Model):
    """One body: inline ``text`` (exact), a JSON ``skeleton`` (parts by reference), or its
    exact bytes in ``bodies/<sha256>``. An empty body is ``size`` 0 with ``text`` ""."""

    size: int = Field(ge=0, description="Bytes of the body on the wire.")
    content_type: str | None = None
    text: str | None = Field(default=None, description="The exact body, when short UTF-8.")
    skeleton: Any = Field(
        default=None,
        alias="json",
        description='The JSON body with large parts as {"$holon_body": "<sha256>"} (requests).',
    )
    sha256: str | None = Field(
        default=None, description="The exact body is bodies/<sha256>.", pattern=SHA256.pattern
    )

    @model_validator(mode="after")
    def _one_form(self) -> Body:
        forms = [self.text is not None, "skeleton" in self.model_fields_set, bool(self.sha256)]
        if sum(forms) != 1:
            raise ValueError("a body has exactly one of text, json, sha256")
        return self


class StreamEvent(_Model):
    """One event of a streamed response (for SSE: the event's text up to and including the
    blank line that ends it), ``t`` milliseconds after the request started."""

    t: float = Field(ge=0, description="Milliseconds from the request's start to this event.")
    data: str | None = Field(default=None, description="The event's exact text, when short.")
    sha256: str | None = Field(
        default=None, description="The event's exact bytes are bodies/<sha256>."
    )

    @model_validator(mode="after")
    def _one_form(self) -> StreamEvent:
        if (self.data is None) == (self.sha256 is None):
            raise ValueError("an event has exactly one of data, sha256")
        return self


class RecordedCall(_Model):
    """One line of ``calls.ndjson``: a request the engine made and what the API answered."""

    seq: int = Field(ge=0, description="Order in which the calls started.")
    part: str | None = Field(default=None, description="The serve turn this call belongs to.")
    api: str = Field(description="Wire API, e.g. anthropic-messages.")
    kind: Literal["model", "count_tokens", "models", "other"]
    method: str
    path: str = Field(description="The path as the engine sent it (before the upstream's).")
    query: str = Field(default="", description="The query string, without key=.")
    request_headers: dict[str, str] = Field(default_factory=dict, description="Allowlisted.")
    request: Body
    status: int | None = Field(default=None, description="None when no answer came.")
    response_headers: dict[str, str] = Field(default_factory=dict, description="Allowlisted.")
    response: Body | None = Field(default=None, description="A response that was not streamed.")
    events: list[StreamEvent] | None = Field(default=None, description="A streamed response.")
    started_ms: float = Field(ge=0, description="Milliseconds since the recording began.")
    first_byte_ms: float | None = None
    total_ms: float | None = None
    attempt: int = Field(default=1, ge=1, description="Tries of the same path and body.")
    error: str | None = Field(default=None, description="client_closed, upstream_error: ...")


class EngineRecord(_Model):
    name: str
    version: str | None = None
    adapter_version: str | None = None


class InputEntry(_Model):
    path: str = Field(description="Relative to the run's input dir.")
    size: int = Field(ge=0)
    sha256: str = Field(pattern=SHA256.pattern)


class BaselineRecord(_Model):
    kind: str | None = None
    head: str | None = Field(default=None, description="The commit the workspace was at.")
    tree: str | None = Field(default=None, description="The git tree of the whole workspace.")
    dirty: bool | None = None


class ToolCallRecord(_Model):
    tool: str | None
    ok: bool
    command: str | None = None
    exit_code: int | None = None


class CassetteInfo(_Model):
    """``cassette.json``: what ran, where, and how it ended."""

    format: Literal["holon-cassette"] = "holon-cassette"
    version: Literal[1] = 1
    created: str = Field(description="ISO 8601 UTC time the cassette was written.")
    holon_version: str
    engine: EngineRecord
    model: str | None = Field(default=None, description="The model the engine reported.")
    requested_model: str | None = Field(
        default=None,
        description="The model holon asked the engine for (--model, HOLON_MODEL or the spec's "
        "engine.model); null: the engine's default. What a check replays with.",
    )
    api: str | None = Field(default=None, description="The wire API the gateway spoke.")
    spec: dict[str, Any] = Field(description="The run's spec.yaml as data (redacted).")
    input: list[InputEntry] = Field(default_factory=list)
    baseline: BaselineRecord | None = None
    outcome: Literal["success", "failure", "needs_human"]
    reason: str
    error: str | None = None
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    files_changed: int | None = None
    paths: dict[str, str] = Field(
        default_factory=dict,
        description="The recording's absolute paths (workspace, input, output, home, tmp), "
        "for replay to map to its own.",
    )
    calls: int = Field(ge=0, description="Lines of calls.ndjson.")
    parts: list[dict[str, Any]] = Field(
        default_factory=list, description="Serve mode: one entry a turn, in order."
    )
