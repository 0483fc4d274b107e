"""Images and files a request carries (``input_image``, ``input_file`` parts), as files.

A coding engine reads files, not inline bytes: each part of the turn's user message becomes a
file in ``<turn input dir>/attachments/`` and the task text names it (path, media type,
size). Parsing (:func:`image_part`, :func:`file_part`) checks what a request can be refused
for at once (400, ``param`` naming the part): the form of the data URL, base64, the caps,
an image's content type against its bytes, a URL when fetching is off. Fetching an
``http(s)`` URL (``serve --allow-fetch``) happens when the turn is prepared; a failure
there fails the turn.

Caps (a request's whole body is also capped, at 8 MiB, by the app): at most
:data:`MAX_ATTACHMENTS` parts in this turn's message, :data:`MAX_ATTACHMENT_BYTES` each,
:data:`MAX_TOTAL_BYTES` together (fetched ones included), :data:`MAX_REQUEST_ATTACHMENTS` in
the whole input (a stateless client resends the earlier turns' files: they are written too,
so the history can name them); a fetch gives up after :data:`FETCH_TIMEOUT` seconds.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from holon_core.serve.errors import RequestError

MAX_ATTACHMENTS = 16
MAX_REQUEST_ATTACHMENTS = 64
MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024
MAX_TOTAL_BYTES = 20 * 1024 * 1024
FETCH_TIMEOUT = 10.0
MAX_REDIRECTS = 3
DIR_NAME = "attachments"

#: Image types an engine can read, with the bytes each file starts with.
IMAGE_TYPES: dict[str, tuple[str, tuple[bytes, ...]]] = {
    "image/png": ("png", (b"\x89PNG\r\n\x1a\n",)),
    "image/jpeg": ("jpg", (b"\xff\xd8\xff",)),
    "image/gif": ("gif", (b"GIF87a", b"GIF89a")),
    "image/webp": ("webp", (b"RIFF",)),
}
_DATA_URL = re.compile(r"^data:(?P<type>[^;,]*)(?P<params>(;[^;,]*)*),", re.DOTALL)
_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]+")


@dataclass
class Attachment:
    """One image or file of this turn: its bytes, or the URL to fetch them from."""

    kind: str  # "image" or "file"
    name: str
    param: str
    data: bytes | None = None
    url: str | None = None
    media_type: str | None = None
    #: Where :func:`write_all` wrote it.
    path: Path | None = None

    def describe(self, path: Path) -> str:
        size = len(self.data) if self.data is not None else 0
        media = self.media_type or "unknown type"
        return f"- {path} ({self.kind}, {media}, {size} bytes)"


def image_part(part: dict[str, Any], where: str, number: int) -> Attachment:
    """An ``input_image`` part: a base64 data URL of a known image type, or an http(s) URL."""
    if part.get("file_id") is not None:
        raise _unsupported(f"{where}.file_id", "file ids name files holon does not store")
    url = part.get("image_url")
    if not isinstance(url, str) or not url:
        raise RequestError(
            400,
            f"{where}.image_url must be a data: URL (base64) or an http(s) URL",
            param=f"{where}.image_url",
        )
    if _is_http(url):
        return Attachment("image", f"image-{number}", where, url=url)
    media, data = _data_url(url, f"{where}.image_url")
    check_image(media, data, f"{where}.image_url")
    return Attachment("image", f"image-{number}.{IMAGE_TYPES[media][0]}", where, data, None, media)


def file_part(part: dict[str, Any], where: str, number: int) -> Attachment:
    """An ``input_file`` part: ``file_data`` (base64 or a data URL) or ``file_url``."""
    if part.get("file_id") is not None:
        raise _unsupported(f"{where}.file_id", "file ids name files holon does not store")
    filename = part.get("filename")
    if filename is not None and not isinstance(filename, str):
        raise RequestError(400, f"{where}.filename must be a string", param=f"{where}.filename")
    name = safe_name(filename or "", f"file-{number}")
    data, url = part.get("file_data"), part.get("file_url")
    if isinstance(data, str) and data:
        if data.startswith("data:"):
            return _inline_file(data, name, bool(filename), f"{where}.file_data", where)
        return Attachment("file", name, where, _b64(data, f"{where}.file_data"))
    if isinstance(url, str) and url:
        if url.startswith("data:"):
            return _inline_file(url, name, bool(filename), f"{where}.file_url", where)
        if _is_http(url):
            return Attachment("file", name, where, url=url)
        raise RequestError(
            400, f"{where}.file_url must be an http(s) or data: URL", param=f"{where}.file_url"
        )
    raise RequestError(
        400,
        f"{where}: an input_file needs file_data (base64) or file_url",
        param=where,
    )


def _inline_file(url: str, name: str, named: bool, param: str, where: str) -> Attachment:
    """A file from a data URL; unnamed, it gets the extension of its media type."""
    media, raw = _data_url(url, param)
    extension = mimetypes.guess_extension(media) if media and not named else None
    return Attachment("file", name + (extension or ""), where, raw, None, media or None)


def check_counts(attachments: list[Attachment], every: int) -> None:
    """The caps on this turn's parts (number, total size) and on the ``every`` parts of the
    whole input; 400 naming the part."""
    if every > MAX_REQUEST_ATTACHMENTS:
        raise RequestError(
            400,
            f"input: at most {MAX_REQUEST_ATTACHMENTS} images and files in a request's whole "
            "input (earlier turns included)",
            param="input",
            code="too_many_attachments",
        )
    if len(attachments) > MAX_ATTACHMENTS:
        extra = attachments[MAX_ATTACHMENTS]
        raise RequestError(
            400,
            f"{extra.param}: at most {MAX_ATTACHMENTS} images and files a turn",
            param=extra.param,
            code="too_many_attachments",
        )
    total = 0
    for item in attachments:
        total += len(item.data or b"")
        if total > MAX_TOTAL_BYTES:
            raise _too_big(item.param, f"the attachments together are over {MAX_TOTAL_BYTES}")


def check_image(media: str, data: bytes, param: str) -> None:
    """The declared image type is one holon passes on, and the bytes are of that type."""
    known = IMAGE_TYPES.get(media)
    if known is None:
        raise RequestError(
            400,
            f"{param}: image type {media or '(none)'!r} is not accepted; "
            f"send one of {', '.join(IMAGE_TYPES)}",
            param=param,
            code="unsupported_image_type",
        )
    if not data.startswith(known[1]) or (media == "image/webp" and data[8:12] != b"WEBP"):
        raise RequestError(
            400,
            f"{param}: the data is not a {media} image (its first bytes say otherwise)",
            param=param,
            code="invalid_image",
        )


def safe_name(given: str, default: str) -> str:
    """A file name from a client: its last path component, tame characters, no leading dot."""
    base = re.split(r"[/\\]", given)[-1]
    base = _UNSAFE.sub("_", base).strip(" .")[:100]
    return base or default


def write_all(attachments: list[Attachment], directory: Path, *, allow_fetch: bool) -> list[str]:
    """Fetch what needs fetching, write every attachment under ``directory``; prompt lines.

    Raises :class:`AttachmentError` for a fetch that fails or returns too much or the wrong
    thing. Names already present (a client's own file) get a numbered suffix.
    """
    if not attachments:
        return []
    if directory.is_symlink():  # the input dir is the client's: never write through a link
        raise AttachmentError(f"{directory} is a symbolic link; remove it or pick a new turn_id")
    directory.mkdir(parents=True, exist_ok=True)
    lines, total = [], 0
    for item in attachments:
        if item.url is not None:
            if not allow_fetch:  # plan_turn refuses these; never fetch without the flag
                raise AttachmentError(f"{item.param}: fetching URLs is off")
            _fetch(item)
        total += len(item.data or b"")
        if total > MAX_TOTAL_BYTES:
            raise AttachmentError(f"{item.param}: the attachments together are over the cap")
        path = _free_path(directory, item.name)
        with path.open("xb") as handle:  # never through a planted link: a new file only
            handle.write(item.data or b"")
        item.path = path
        lines.append(item.describe(path))
    return lines


class AttachmentError(Exception):
    """An attachment that could not be prepared when the turn started (a fetch failed)."""


def _fetch(item: Attachment) -> None:
    assert item.url is not None
    limit = MAX_ATTACHMENT_BYTES
    try:
        with (
            httpx.Client(
                timeout=FETCH_TIMEOUT, follow_redirects=True, max_redirects=MAX_REDIRECTS
            ) as client,
            client.stream("GET", item.url) as reply,
        ):
            if reply.status_code != 200:
                raise AttachmentError(
                    f"{item.param}: fetching {item.url[:200]} answered HTTP {reply.status_code}"
                )
            body = bytearray()
            for chunk in reply.iter_bytes():
                body += chunk
                if len(body) > limit:
                    raise AttachmentError(f"{item.param}: {item.url[:200]} is over {limit} bytes")
            media = reply.headers.get("content-type", "").split(";")[0].strip().lower()
    except httpx.HTTPError as exc:
        raise AttachmentError(f"{item.param}: fetching {item.url[:200]} failed: {exc}") from None
    data = bytes(body)
    if item.kind == "image":
        try:
            check_image(media, data, item.param)
        except RequestError as exc:
            raise AttachmentError(exc.message) from None
        item.name = f"{item.name}.{IMAGE_TYPES[media][0]}"
    item.data, item.media_type = data, media or None


def _free_path(directory: Path, name: str) -> Path:
    path = directory / name
    stem, dot, suffix = name.partition(".")
    number = 2
    while path.exists() or path.is_symlink():
        path = directory / f"{stem}-{number}{dot}{suffix}"
        number += 1
    return path


def _data_url(url: str, param: str) -> tuple[str, bytes]:
    match = _DATA_URL.match(url[:300])
    if match is None or ";base64" not in match.group("params").lower():
        raise RequestError(
            400,
            f"{param} must be a base64 data URL (data:<type>;base64,<data>)",
            param=param,
        )
    payload = url[match.end() :]
    return match.group("type").strip().lower(), _b64(payload, param)


def _b64(text: str, param: str) -> bytes:
    if len(text) > MAX_ATTACHMENT_BYTES * 4 // 3 + 4:
        raise _too_big(param, f"it is over {MAX_ATTACHMENT_BYTES} bytes")
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise RequestError(400, f"{param} is not valid base64", param=param) from None
    if len(data) > MAX_ATTACHMENT_BYTES:
        raise _too_big(param, f"it is over {MAX_ATTACHMENT_BYTES} bytes")
    return data


def _is_http(url: str) -> bool:
    return url.startswith(("http://", "https://"))


def _too_big(param: str, why: str) -> RequestError:
    return RequestError(
        400, f"{param}: {why}; send smaller files", param=param, code="attachment_too_large"
    )


def _unsupported(param: str, why: str) -> RequestError:
    return RequestError(
        400, f"{param}: {why}; send the data inline", param=param, code="unsupported"
    )
