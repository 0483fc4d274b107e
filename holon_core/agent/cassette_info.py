"""A recorded run's ``cassette.json`` content, from its manifest and run state: shared by a
one-shot run's cassette (:mod:`holon_core.agent.record_cassette`) and a serve session's parts
(:mod:`holon_core.agent.record_session`)."""

from __future__ import annotations

import hashlib
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from holon_core.agent.state import RunState
    from holon_core.cassette.format import CassetteInfo, InputEntry
    from holon_core.cassette.record import Recorder


def cassette_info(
    run: RunState, manifest: dict[str, Any], recorder: Recorder, calls: int
) -> CassetteInfo:
    from holon_core.cassette.format import (
        BaselineRecord,
        CassetteInfo,
        EngineRecord,
        ToolCallRecord,
    )

    meta = manifest["metadata"]
    engine = meta.get("engine") or {}
    adapter = meta.get("adapter") or {}
    baseline = meta.get("baseline")
    tools = [
        ToolCallRecord(tool=t.tool, ok=t.ok, command=t.command, exit_code=t.exit_code)
        for t in run.report.tool_log
    ]
    return CassetteInfo(
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        holon_version=meta["holon_version"],
        engine=EngineRecord(
            name=engine.get("name") or (run.engine.name if run.engine else "unknown"),
            version=engine.get("version"),
            adapter_version=adapter.get("version"),
        ),
        model=engine.get("model"),
        requested_model=run.context.model if run.context is not None else None,
        api=recorder.api,
        spec=run.spec.to_dict() if run.spec else {},
        input=input_listing(run.paths.input),
        baseline=BaselineRecord.model_validate(baseline) if baseline else None,
        outcome=manifest["outcome"],
        reason=meta["reason"],
        error=manifest.get("error"),
        tool_calls=tools,
        files_changed=meta.get("files_changed"),
        paths=run_paths(run),
        calls=calls,
    )


def input_listing(root: Path) -> list[InputEntry]:
    """Every regular file of the run's input dir: path, size, SHA-256 (symlinks not followed)."""
    from holon_core.cassette.format import InputEntry

    entries = []
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        entries.append(
            InputEntry(
                path=path.relative_to(root).as_posix(),
                size=path.stat().st_size,
                sha256=digest.hexdigest(),
            )
        )
    return entries


def run_paths(run: RunState) -> dict[str, str]:
    """The absolute paths a recording's requests and answers may hold, for replay to map."""
    paths = {
        "workspace": str(run.paths.workspace),
        "input": str(run.paths.input),
        "output": str(run.paths.output),
        "tmp": tempfile.gettempdir(),
    }
    context = run.context
    if context is not None:
        paths |= {
            "workspace": str(context.workspace),
            "run_dir": str(context.run_dir),
            "home": str(context.home),
            "engine_tmp": str(context.tmp),
        }
    return paths
