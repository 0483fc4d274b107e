"""Hypothesis strategies and a contract check for fuzzing an engine's event parser.

Import it from tests only (it needs ``hypothesis``, a dev dependency). The strategies start
from a real captured stream (an adapter's ``tests/data/*.jsonl``) and break it the way a
new engine version or a hostile engine would: values of the wrong type anywhere, fields
missing, lines cut short or not JSON at all. :func:`check_parser` states the contract: only
normalized events and a report come out, or a typed :class:`~holon_core.errors.HolonError`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from holon_core.engine.adapter import EngineReport, EventParser
from holon_core.engine.events import EVENT_TYPES, Event
from holon_core.errors import HolonError

#: The CI budget: fixed example counts, no deadline, no example database, same inputs every
#: run. ``HOLON_FUZZ_EXAMPLES`` raises the count for a longer local hunt.
FUZZ = settings(
    max_examples=int(os.environ.get("HOLON_FUZZ_EXAMPLES", "100")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Text that is also a hostile path or pattern (engines' ids end up in file names and globs).
HOSTILE_TEXT = st.text(alphabet=st.sampled_from(list("*?[]/.\\-_a0\x00 \n")), max_size=12)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
    | HOSTILE_TEXT
)


def json_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Any JSON value (as ``json.loads`` returns it), kept small."""
    return st.recursive(
        _SCALARS,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
        ),
        max_leaves=max_leaves,
    )


def captured_objects(data_dir: Path) -> list[dict[str, Any]]:
    """Every JSON object line of every ``*.jsonl`` capture in ``data_dir``."""
    found: list[dict[str, Any]] = []
    for path in sorted(data_dir.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                found.append(value)
    if not found:
        raise ValueError(f"no captured JSON objects under {data_dir}")
    return found


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, (*prefix, index))
    return out


def _replace(value: Any, path: tuple[Any, ...], new: Any, drop: bool) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
        if drop and not rest:
            copy.pop(head, None)
        else:
            copy[head] = _replace(copy[head], rest, new, drop)
        return copy
    copy_list = list(value)
    if drop and not rest:
        del copy_list[head]
    else:
        copy_list[head] = _replace(copy_list[head], rest, new, drop)
    return copy_list


@st.composite
def mutated(draw: st.DrawFn, samples: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A captured object with a few values swapped for arbitrary JSON or removed."""
    value: Any = draw(st.sampled_from(samples))
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        paths = _paths(value)[1:] or [()]
        path = draw(st.sampled_from(paths))
        value = _replace(value, path, draw(json_values()), drop=draw(st.booleans()))
    return value if isinstance(value, dict) else {"type": value}


def engine_lines(samples: Sequence[dict[str, Any]]) -> st.SearchStrategy[list[str]]:
    """A stdout stream: mutated captured objects, arbitrary JSON, cut lines and plain text."""
    as_json = mutated(samples).map(json.dumps)
    line = st.one_of(
        as_json,
        as_json.flatmap(lambda text: st.integers(0, len(text)).map(lambda cut: text[:cut])),
        json_values().map(json.dumps),
        st.text(max_size=80),
        st.integers(min_value=1, max_value=3000).map(lambda n: '{"a":' + "[" * n + "]" * n + "}"),
    )
    return st.lists(line, max_size=12)


def check_parser(
    make_parser: Callable[[], EventParser],
    lines: Sequence[str],
    stderr: Sequence[str] = (),
    exit_code: int | None = 0,
) -> EngineReport | None:
    """Feed ``lines``; only events, a report or a :class:`HolonError` may come out."""
    parser = make_parser()
    try:
        for line in lines:
            _check_events(parser.feed(line))
        for line in stderr:
            _check_events(parser.feed_stderr(line))
        report = parser.finish(exit_code)
    except HolonError:
        return None
    assert isinstance(report, EngineReport)
    _check_events(report.late_events)
    # these land in typed manifest fields: a list here would fail the record (internal_error)
    texts = (report.error, report.reason, report.final_text, report.session_id, report.model)
    for text in (*texts, report.engine_version):
        assert text is None or isinstance(text, str), text
    assert report.turns is None or isinstance(report.turns, int), report.turns
    assert isinstance(report.tool_calls, int) and isinstance(report.tool_failures, int)
    return report


def _check_events(events: Sequence[Event]) -> None:
    assert isinstance(events, list), events
    for event in events:
        assert isinstance(event, Event), event
        assert event.type in EVENT_TYPES, event.type
        assert event.status in (None, "ok", "error"), event.status
        json.loads(event.to_json())  # what evidence/events.ndjson will hold
