"""The cassette format, version 1: a directory any tool can read (docs/cassettes.md, "Format").

::

    cassette.json   what was run and how it ended (:class:`CassetteInfo`)
    calls.ndjson    one model call a line, in the order the calls started (:class:`RecordedCall`)
    diff.patch      the run's diff.patch, byte for byte
    bodies/<sha256> large bodies and body parts, each stored once (content-addressed)

Why content-addressed parts and not whole bodies: every model request resends the whole
conversation, the tool definitions and the system prompt, so no two request bodies are equal
but most of their parts are. A JSON request body is kept as a *skeleton*: each top-level
value, and each item of a top-level array (a message, a tool, a system block), whose compact
JSON reaches :data:`PART_THRESHOLD` bytes is replaced by ``{"$holon_body": "<sha256>"}`` and
stored once under ``bodies/``. Requests are matched on their JSON, never on their bytes, so
the skeleton keeps no byte layout. Responses are served byte for byte: a streamed one
(``text/event-stream``) as its events with their time since the request started, anything
else as its exact bytes (inline text when short, else one file under ``bodies/``).

The JSON Schema of both files is ``holon schema cassette``; readers refuse another
``version`` by name.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from holon_core.cassette.records import (
    SHA256,
    BaselineRecord,
    Body,
    CassetteError,
    CassetteInfo,
    EngineRecord,
    InputEntry,
    RecordedCall,
    StreamEvent,
    ToolCallRecord,
)

#: The records are defined in :mod:`.records`; they are part of the format and imported from
#: here as ever.
__all__ = [
    "BaselineRecord",
    "Body",
    "CassetteError",
    "CassetteInfo",
    "EngineRecord",
    "InputEntry",
    "RecordedCall",
    "StreamEvent",
    "ToolCallRecord",
]

FORMAT = "holon-cassette"
VERSION = 1
INFO_FILE = "cassette.json"
CALLS_FILE = "calls.ndjson"
DIFF_FILE = "diff.patch"
BODIES_DIR = "bodies"
#: A JSON part (top-level value or item of a top-level array) this long goes to ``bodies/``.
PART_THRESHOLD = 256
#: A text body or stream event this long goes to ``bodies/`` whole.
INLINE_LIMIT = 4096
#: The key of a reference to a stored part inside a JSON skeleton.
REF_KEY = "$holon_body"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class BodyStore:
    """``bodies/``: each distinct blob once, named by its SHA-256. Writes happen in memory
    (:meth:`put`) until :meth:`flush` puts them in a directory, so a recording that is
    refused (a secret found) leaves nothing on disk."""

    root: Path | None = None
    pending: dict[str, bytes] = field(default_factory=dict)

    def put(self, data: bytes) -> str:
        digest = sha256_hex(data)
        self.pending.setdefault(digest, data)
        return digest

    def get(self, digest: str) -> bytes:
        if digest in self.pending:
            return self.pending[digest]
        if self.root is None or not SHA256.match(digest):
            raise CassetteError(f"body {digest!r} is not in the cassette")
        path = self.root / digest
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CassetteError(
                f"the cassette's body {path} cannot be read ({exc.strerror}); the cassette "
                "is incomplete: record it again"
            ) from exc
        if sha256_hex(data) != digest:
            raise CassetteError(f"the cassette's body {path} does not match its name: record again")
        return data

    def flush(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        for digest, data in self.pending.items():
            (root / digest).write_bytes(data)


# ---- bodies: packing for the file, unpacking for replay ----------------------------------


def pack_body(
    data: bytes,
    content_type: str | None,
    store: BodyStore,
    *,
    split_json: bool,
    clean: Callable[[Any], Any] | None = None,
) -> Body:
    """A body for the cassette: a JSON skeleton when ``split_json`` and it parses (its value
    passed through ``clean`` first), else its exact bytes inline (short UTF-8) or in the store."""
    if split_json and data:
        try:
            value = json.loads(data)
        except ValueError:
            pass
        else:
            value = clean(value) if clean is not None else value
            return Body(size=len(data), content_type=content_type, skeleton=pack_json(value, store))
    return exact_body(data, content_type, store)


def exact_body(data: bytes, content_type: str | None, store: BodyStore) -> Body:
    if len(data) < INLINE_LIMIT:
        try:
            return Body(size=len(data), content_type=content_type, text=data.decode())
        except UnicodeDecodeError:
            pass
    return Body(size=len(data), content_type=content_type, sha256=store.put(data))


def pack_json(value: Any, store: BodyStore) -> Any:
    """The skeleton of a JSON document: large top-level values and top-level array items
    stored once (see the module doc)."""
    if isinstance(value, dict):
        return {k: _pack_field(v, store) for k, v in value.items()}
    return _pack_field(value, store)


def _pack_field(value: Any, store: BodyStore) -> Any:
    if isinstance(value, list):
        return [_pack_part(item, store) for item in value]
    return _pack_part(value, store)


def _pack_part(value: Any, store: BodyStore) -> Any:
    if isinstance(value, (dict, list, str)):
        data = canonical_json(value)
        if len(data) >= PART_THRESHOLD:
            return {REF_KEY: store.put(data)}
    return value


def unpack_json(skeleton: Any, store: BodyStore) -> Any:
    """The JSON document a skeleton stands for."""
    if isinstance(skeleton, dict):
        if set(skeleton) == {REF_KEY}:
            return json.loads(store.get(skeleton[REF_KEY]))
        return {k: unpack_json(v, store) for k, v in skeleton.items()}
    if isinstance(skeleton, list):
        return [unpack_json(item, store) for item in skeleton]
    return skeleton


def canonical_json(value: Any) -> bytes:
    """Compact JSON with sorted keys: equal parts give equal bytes, so they are stored once."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def body_bytes(body: Body, store: BodyStore) -> bytes:
    """A body's bytes (a skeleton's as compact JSON: its original layout is not kept)."""
    if body.text is not None:
        return body.text.encode()
    if body.sha256:
        return store.get(body.sha256)
    return json.dumps(unpack_json(body.skeleton, store), ensure_ascii=False).encode()


def body_json(body: Body, store: BodyStore) -> Any:
    """A body as JSON (None when it is not JSON)."""
    if "skeleton" in body.model_fields_set and body.text is None and not body.sha256:
        return unpack_json(body.skeleton, store)
    try:
        return json.loads(body_bytes(body, store))
    except ValueError:
        return None


def event_bytes(event: StreamEvent, store: BodyStore) -> bytes:
    return event.data.encode() if event.data is not None else store.get(event.sha256 or "")


def pack_event(t_ms: float, data: bytes, store: BodyStore) -> StreamEvent:
    if len(data) < INLINE_LIMIT:
        try:
            return StreamEvent(t=t_ms, data=data.decode())
        except UnicodeDecodeError:
            pass
    return StreamEvent(t=t_ms, sha256=store.put(data))


# ---- reading a cassette ---------------------------------------------------------------


@dataclass
class Cassette:
    """A cassette read from its directory: the info, the calls, and its body store."""

    root: Path
    info: CassetteInfo
    calls: list[RecordedCall]
    store: BodyStore

    def request_json(self, call: RecordedCall) -> Any:
        return body_json(call.request, self.store)

    def response_bytes(self, call: RecordedCall) -> bytes:
        """The whole answer as the engine received it (a stream's events joined)."""
        if call.events is not None:
            return b"".join(event_bytes(e, self.store) for e in call.events)
        return b"" if call.response is None else body_bytes(call.response, self.store)

    def diff(self) -> str:
        path = self.root / DIFF_FILE
        return path.read_text() if path.is_file() else ""

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file())


def read_info(root: Path) -> CassetteInfo:
    path = root / INFO_FILE
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError as exc:
        raise CassetteError(
            f"{root} is no cassette: it has no {INFO_FILE} (record one with --record DIR)"
        ) from exc
    except (OSError, ValueError) as exc:
        raise CassetteError(f"{path} cannot be read as JSON ({exc}); record it again") from exc
    if isinstance(raw, dict) and raw.get("format") == FORMAT and raw.get("version") != VERSION:
        raise CassetteError(
            f"{path} is cassette format version {raw.get('version')!r}; this holon reads "
            f"version {VERSION}: use the holon that recorded it, or record it again"
        )
    try:
        return CassetteInfo.model_validate(raw)
    except ValidationError as exc:
        raise CassetteError(f"{path} is not a valid cassette: {_first(exc)}") from exc


def iter_calls(root: Path) -> Iterator[RecordedCall]:
    path = root / CALLS_FILE
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise CassetteError(f"{path} cannot be read ({exc.strerror}); record it again") from exc
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield RecordedCall.model_validate_json(line)
        except ValidationError as exc:
            raise CassetteError(f"{path} line {number} is not a call: {_first(exc)}") from exc


def read_cassette(root: Path) -> Cassette:
    """Read and validate a cassette directory (bodies are read when asked for)."""
    info = read_info(root)
    calls = list(iter_calls(root))
    return Cassette(root, info, calls, BodyStore(root / BODIES_DIR))


def call_line(call: RecordedCall) -> str:
    return call.model_dump_json(by_alias=True, exclude_none=True)


def info_text(info: CassetteInfo) -> str:
    return json.dumps(info.model_dump(by_alias=True, mode="json"), indent=2) + "\n"


def schema() -> dict[str, Any]:
    """The JSON Schema of ``cassette.json`` with ``calls.ndjson``'s line under ``$defs``."""
    info = CassetteInfo.model_json_schema(by_alias=True)
    call = RecordedCall.model_json_schema(by_alias=True)
    defs = {**info.pop("$defs", {}), **call.pop("$defs", {})}
    defs["RecordedCall"] = call
    return {**info, "$defs": defs}


def _first(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error["loc"]) or "(top)"
    return f"{where}: {error['msg']}"
