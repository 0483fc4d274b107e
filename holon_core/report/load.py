"""Reading a finished record for the report: a run (run dir or output dir) or a batch.

Everything here may have been written by the engine (it can write its output dir), so files
are read with :func:`holon_core.untrusted.files.read_regular` (no links followed, no FIFOs, a
size cap) and JSON that does not parse is reported, not trusted. What is cut is said, never hidden.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from holon_core.errors import InputError
from holon_core.untrusted.files import read_regular
from holon_core.untrusted.json_files import obj, read_json_object, read_ndjson

MANIFEST = "manifest.json"
RUN_RECORD = "run.json"
RESULTS = "results.jsonl"
JOB_RECORD = "job.json"
EVENTS = "evidence/events.ndjson"
MODEL_CALLS = "evidence/model-calls.ndjson"
NETWORK = "evidence/network.ndjson"

_JSON_CAP = 4 << 20
_EVENTS_CAP = 32 << 20
_DIFF_CAP = 8 << 20
_SUMMARY_CAP = 256 << 10
MAX_EVENTS = 20_000
MAX_MODEL_CALLS = 2_000

Kind = Literal["run", "output", "batch"]


@dataclass
class Text:
    """A file's text (``None``: absent or unreadable) and whether it was cut at the cap."""

    value: str | None = None
    cut: bool = False


@dataclass
class RunRecord:
    output_dir: Path
    run_dir: Path | None = None
    verdict: dict[str, Any] | None = None  # run.json: holon run's verdict
    manifest: dict[str, Any] | None = None
    manifest_problem: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    events_cut: bool = False
    diff: Text = field(default_factory=Text)
    summary: Text = field(default_factory=Text)
    model_calls: list[dict[str, Any]] = field(default_factory=list)
    #: The room's egress proxy: every attempt, allowed or denied (docs/sandbox.md).
    network: list[dict[str, Any]] = field(default_factory=list)
    task: dict[str, Any] = field(default_factory=dict)  # the spec holon run kept, if any

    @property
    def meta(self) -> dict[str, Any]:
        return obj((self.manifest or {}).get("metadata"))


@dataclass
class BatchRecord:
    results_dir: Path
    name: str
    rows: list[dict[str, Any]]


def kind_of(path: Path) -> Kind:
    """Which record ``path`` is; an error naming what was looked for when it is none."""
    if not path.is_dir():
        raise InputError(
            f"{path} is not a directory",
            hint="give holon report a run dir, an output dir (manifest.json) or a batch "
            "results dir (results.jsonl)",
        )
    if (path / RESULTS).is_file():
        return "batch"
    if (path / RUN_RECORD).is_file():
        return "run"
    if (path / MANIFEST).is_file():
        return "output"
    raise InputError(
        f"{path} holds no record: no {RUN_RECORD} (a holon run dir), no {MANIFEST} (an "
        f"output dir) and no {RESULTS} (a holon batch results dir)",
        hint="point holon report at the directory holon run, holon-agent or holon batch wrote",
    )


def load_run(path: Path) -> RunRecord:
    """The record of one run, from its run dir or its output dir."""
    if (path / RUN_RECORD).is_file():
        run_dir: Path | None = path
        verdict = read_json(path / RUN_RECORD)
        output_dir = _output_dir(path, verdict)
    else:
        output_dir = path
        run_dir = path.parent if (path.parent / RUN_RECORD).is_file() else None
        verdict = read_json(run_dir / RUN_RECORD) if run_dir else None
        if verdict is not None and _output_dir(path.parent, verdict) != path:
            run_dir, verdict = None, None  # a parent's run.json about another output dir
    record = RunRecord(output_dir=output_dir, run_dir=run_dir, verdict=verdict)
    record.manifest, record.manifest_problem = _manifest(output_dir)
    record.events, record.events_cut = read_ndjson(
        output_dir / EVENTS, _EVENTS_CAP, max_lines=MAX_EVENTS
    )
    record.model_calls, _ = read_ndjson(
        output_dir / MODEL_CALLS, _JSON_CAP, max_lines=MAX_MODEL_CALLS
    )
    record.network, _ = read_ndjson(output_dir / NETWORK, _JSON_CAP, max_lines=MAX_MODEL_CALLS)
    record.diff = read_text(output_dir / "diff.patch", _DIFF_CAP)
    record.summary = read_text(output_dir / "summary.md", _SUMMARY_CAP)
    if run_dir is not None:
        record.task = load_task(run_dir)
    return record


def load_batch(path: Path) -> BatchRecord:
    rows, _ = read_ndjson(path / RESULTS, _EVENTS_CAP, max_lines=MAX_EVENTS)
    job = read_json(path / JOB_RECORD) or {}
    name = job.get("name")
    return BatchRecord(path, name if isinstance(name, str) else path.name, rows)


def cell_output_dir(results_dir: Path, row: dict[str, Any]) -> Path | None:
    """Where a batch cell's record is: its run dir's output dir. ``results.jsonl`` names the
    run dir the cell had; in a copied or moved results dir that is someone else's, so the
    cell's own ``cells/<cell>/<run dir>`` comes first."""
    run_dir, cell = row.get("run_dir"), row.get("cell")
    if not isinstance(run_dir, str) or not run_dir:
        return None
    path = Path(run_dir)
    if not path.is_absolute():
        path = results_dir / path
    elif _plain_name(cell) and _plain_name(path.name):
        own = results_dir / "cells" / str(cell) / path.name
        path = own if own.is_dir() else path
    if not path.is_dir():
        return None
    return _output_dir(path, read_json(path / RUN_RECORD))


def _plain_name(name: object) -> bool:
    """One path component (no separator, not ``.`` or ``..``)."""
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name


def _output_dir(run_dir: Path, verdict: dict[str, Any] | None) -> Path:
    """The run dir's own ``output/`` when it has one: ``run.json`` names the path the run
    had, and a copied or moved run dir must not be read from (or written into) there. Else
    the ``--output`` dir ``run.json`` names."""
    own = run_dir / "output"
    if own.is_dir():
        return own
    paths = (verdict or {}).get("paths")
    named = paths.get("output_dir") if isinstance(paths, dict) else None
    if isinstance(named, str) and Path(named).is_dir():
        return Path(named)
    return own


def _manifest(output_dir: Path) -> tuple[dict[str, Any] | None, str | None]:
    raw = read_regular(output_dir / MANIFEST, _JSON_CAP)
    if raw is None:
        return None, f"{MANIFEST} is missing or not a regular file"
    if len(raw) > _JSON_CAP:
        return None, f"{MANIFEST} is larger than {_JSON_CAP >> 20} MiB"
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # too deep: RecursionError
        return None, f"{MANIFEST} is not JSON: {exc}"
    if not isinstance(data, dict):
        return None, f"{MANIFEST} is not a JSON object"
    return data, None


def load_task(run_dir: Path) -> dict[str, Any]:
    """The task's spec holon run kept (for its name and goal); empty when unreadable."""
    import yaml

    from holon_core.untrusted import yaml_safe

    text = read_text(run_dir / "input" / "spec.yaml", _SUMMARY_CAP)
    if text.value is None or text.cut:
        return {}
    try:
        data = yaml_safe.load(text.value)
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in a record's file (run.json, job.json); None when unreadable."""
    return read_json_object(path, _JSON_CAP)


def read_text(path: Path, cap: int) -> Text:
    raw = read_regular(path, cap)
    if raw is None:
        return Text()
    return Text(raw[:cap].decode("utf-8", errors="replace"), len(raw) > cap)


def evidence_files(output_dir: Path) -> list[str]:
    """The regular files a reader may open, relative to the output dir (links left out)."""
    found = [n for n in (MANIFEST, "diff.patch", "summary.md") if _regular(output_dir / n)]
    evidence = output_dir / "evidence"
    if _regular_dir(evidence):
        with os.scandir(evidence) as entries:
            names = sorted(e.name for e in entries if e.is_file(follow_symlinks=False))
        found += [f"evidence/{name}" for name in names]
    return found


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _regular_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False
