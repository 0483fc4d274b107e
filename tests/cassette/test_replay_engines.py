"""Every engine's real CLI: a run recorded through the gateway (the scripted model server as
the HTTPS upstream taking only the real key), then replayed from the cassette with that
upstream stopped, no key set, and the engine pointed at a listener that counts connections:
same outcome, same diff.patch, no connection, the recorded wire's usage."""

from __future__ import annotations

import pytest

from holon_core.cassette.format import read_cassette
from tests.gateway.test_gateway_engines import ENGINES

from .replay_kit import ConnectionCounter, replay


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_recorded_run_replays_offline_without_a_key(
    engine, recording, tmp_path, assert_valid_manifest
):
    cassette = recording(engine).cassette  # its upstream is stopped
    recorded = recording(engine).result
    with ConnectionCounter() as upstream:
        result = replay(engine, cassette, tmp_path / "replay", upstream.url)
    manifest = assert_valid_manifest(result.manifest)
    assert (manifest["outcome"], manifest["metadata"]["reason"]) == ("success", "ok"), result.stderr
    assert upstream.connections == 0
    patch = (result.output_dir / "diff.patch").read_text()
    assert patch == (cassette / "diff.patch").read_text() and "hello.txt" in patch
    meta = manifest["metadata"]
    replayed = meta["cassette_replay"]
    assert (replayed["mode"], replayed["mismatches"], replayed["refused"]) == ("strict", 0, None)
    assert replayed["served"] >= 3
    assert meta["cost"]["source"] == "gateway" and meta["cost"]["usd"] > 0
    checks = {c["name"]: c for c in meta["checks"]}
    assert checks["credentials"]["ok"] and "HOLON_CASSETTE" in checks["credentials"]["detail"]
    # Usage and cost come from the recorded wire, through the unchanged gateway; a call the
    # recording had to retry (an upstream hiccup) is answered once, with its final answer.
    usage, before = meta["usage"], recorded.manifest["metadata"]["usage"]
    answered = [c for c in read_cassette(cassette).calls if c.status == 200]
    assert usage["model_calls"] == len(answered) == replayed["served"]
    assert usage["output_tokens"] == before["output_tokens"]
    assert not (result.output_dir / "evidence" / "replay-mismatch.md").exists()
