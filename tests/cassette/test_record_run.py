"""holon-agent --record with real engines through the gateway, the scripted model server
as the HTTPS upstream that takes only the real key: the cassette holds every model call
the gateway metered, the run's record, its diff.patch, and no secret."""

from __future__ import annotations

import json

import pytest

from holon_core.cassette.format import read_cassette
from tests.gateway.kit import REAL_KEY
from tests.gateway.test_gateway_engines import ENGINES


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_recorded_run_holds_every_model_call_and_no_key(engine, recording):
    recorded = recording(engine)
    target, result = recorded.cassette, recorded.result
    manifest = result.manifest
    assert manifest is not None and manifest["outcome"] == "success", result.stderr
    meta = manifest["metadata"]
    cassette = read_cassette(target)
    assert meta["cassette"] == {
        "path": str(target),
        "calls": len(cassette.calls),
        "bytes": cassette.size_bytes(),
    }
    metered = (result.output_dir / "evidence" / "model-calls.ndjson").read_text().splitlines()
    assert len(cassette.calls) == len(metered) == len(recorded.requests)
    info = cassette.info
    assert (info.engine.name, info.outcome, info.reason) == (engine, "success", "ok")
    assert info.engine.version == meta["engine"]["version"]
    assert info.spec["goal"] == "Create hello.txt" or "Create hello.txt" in json.dumps(info.spec)
    assert info.tool_calls and all(t.ok for t in info.tool_calls)
    assert info.baseline is not None and info.baseline.tree == meta["baseline"]["tree"]
    assert cassette.diff() == (result.output_dir / "diff.patch").read_text()
    assert "hello.txt" in cassette.diff()
    # Each recorded request is the one the upstream got, path and JSON body, in order.
    for call, got in zip(cassette.calls, recorded.requests, strict=True):
        assert (call.method, call.path) == (got.method, got.path)
        if got.body:
            assert cassette.request_json(call) == got.body
    everything = b"".join(p.read_bytes() for p in target.rglob("*") if p.is_file())
    assert REAL_KEY.encode() not in everything
