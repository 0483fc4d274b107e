"""JSON and ndjson files of a record an engine could write, read as untrusted.

The report, the ATIF trajectory, the telemetry spans and the GitHub Action all read back
``manifest.json``, ``evidence/events.ndjson`` and ``evidence/model-calls.ndjson`` from an
output dir the engine could write. They share this reader so each gets the same guarantees:
no link followed and no FIFO opened (:func:`read_regular`), a size cap, and JSON that is
damaged, not an object, or nested deeper than the decoder recurses (``RecursionError``, not
``ValueError``) treated as absent rather than raised.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from holon_core.untrusted.files import read_regular


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one: a record's fields are read, not
    trusted, so a field of the wrong type reads as absent instead of raising."""
    return value if isinstance(value, dict) else {}


def objects(value: Any) -> list[dict[str, Any]]:
    """The JSON objects in ``value`` when it is a list, else none."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def integer(value: Any) -> int | None:
    """``value`` when it is a JSON integer; None otherwise (``true`` is not a count)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def number(value: Any) -> float | None:
    """``value`` as a float when it is a JSON number; None otherwise (``true`` included)."""
    return None if isinstance(value, bool) or not isinstance(value, int | float) else float(value)


def json_object(text: str | bytes) -> dict[str, Any] | None:
    """The JSON object ``text`` holds; None when it is not JSON, too deep, or not an object."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def read_json_object(
    path: Path | str, cap: int, *, dir_fd: int | None = None
) -> dict[str, Any] | None:
    """The JSON object in the file at ``path``; None when absent, a link, over ``cap`` bytes,
    not JSON or not an object."""
    raw = read_regular(path, cap, dir_fd=dir_fd)
    if raw is None or len(raw) > cap:
        return None
    return json_object(raw)


def read_ndjson(
    path: Path | str, cap: int, *, dir_fd: int | None = None, max_lines: int | None = None
) -> tuple[list[dict[str, Any]], bool]:
    """The JSON objects of an ndjson file, in order, and whether the file was cut (over
    ``cap`` bytes or ``max_lines`` lines). Lines that are not JSON objects are skipped: a
    damaged line, or the last one cut at the cap (a cut object never parses)."""
    raw = read_regular(path, cap, dir_fd=dir_fd)
    if raw is None:
        return [], False
    lines = raw[:cap].decode("utf-8", "replace").splitlines()
    cut = len(raw) > cap
    if max_lines is not None and len(lines) > max_lines:
        lines, cut = lines[:max_lines], True
    objects = [json_object(line) for line in lines]
    return [item for item in objects if item is not None], cut
