"""A replay whose requests are not the recorded ones: a changed task prompt or skill text.

Strict (the default) fails the run ``replay_mismatch`` after the first such request, with
``evidence/replay-mismatch.md`` showing the change as a diff, and the engine never loops on
the error it gets; lenient mode goes on with the nearest recorded answers and warns."""

from __future__ import annotations

import json

import pytest

from tests.gateway.test_gateway_engines import ENGINES

from .replay_kit import ConnectionCounter, record, replay, write_skill


@pytest.fixture
def recorded(engine_binary, https_provider, ca_file, tmp_path_factory, recording):
    """Factory: a cassette of ``engine`` doing write-and-run (with ``args``: the shared
    recording when there are none; the replays only read it)."""

    def make(engine: str, args: tuple[str, ...] = ()):
        if not args:
            return recording(engine).cassette
        engine_binary(engine)
        server = https_provider("write-and-run")
        where = tmp_path_factory.mktemp(f"rec-{engine}")
        cassette = where / "cassette"
        result = record(engine, server, ca_file, where, cassette, args=args)
        assert result.manifest is not None and result.manifest["outcome"] == "success"
        server.stop()
        return cassette

    return make


def model_calls(result) -> list[dict[str, object]]:
    path = result.output_dir / "evidence" / "model-calls.ndjson"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_changed_prompt_fails_strict_replay_with_a_diff_of_the_change(
    engine, recorded, tmp_path, assert_valid_manifest
):
    cassette = recorded(engine)
    with ConnectionCounter() as upstream:
        result = replay(engine, cassette, tmp_path, upstream.url, goal="Create goodbye.txt")
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 1
    assert (manifest["outcome"], manifest["metadata"]["reason"]) == ("failure", "replay_mismatch")
    assert "evidence/replay-mismatch.md" in manifest["error"]
    assert upstream.connections == 0
    report = (result.output_dir / "evidence" / "replay-mismatch.md").read_text()
    removed = [line for line in report.splitlines() if line.startswith("-") and "hello" in line]
    added = [line for line in report.splitlines() if line.startswith("+") and "goodbye" in line]
    assert removed and added, report
    # The engine got a non-retryable error and stopped: no loop of refused calls.
    refused = [c for c in model_calls(result) if c["status"] == 400]
    assert 1 <= len(refused) <= 2, model_calls(result)
    assert manifest["metadata"]["cassette_replay"]["refused"]


def test_the_same_change_passes_lenient_replay_with_warnings(
    recorded, tmp_path, assert_valid_manifest
):
    cassette = recorded("claude")
    with ConnectionCounter() as upstream:
        result = replay(
            "claude",
            cassette,
            tmp_path,
            upstream.url,
            goal="Create goodbye.txt",
            args=("--cassette-mode", "lenient"),
        )
    manifest = assert_valid_manifest(result.manifest)
    assert (manifest["outcome"], manifest["metadata"]["reason"]) == ("success", "ok"), result.stderr
    assert upstream.connections == 0
    warnings = [w for w in manifest["metadata"]["warnings"] if "cassette replay" in w]
    assert warnings and all("lenient" in w for w in warnings)
    assert (result.output_dir / "diff.patch").read_text() == (cassette / "diff.patch").read_text()
    assert manifest["metadata"]["cassette_replay"]["mismatches"] == len(warnings)
    assert "goodbye" in (result.output_dir / "evidence" / "replay-mismatch.md").read_text()


def test_a_changed_skill_text_fails_strict_and_passes_lenient(
    recorded, tmp_path, assert_valid_manifest
):
    skill = write_skill(tmp_path / "rec-skill", "House style for files, lower case names.")
    cassette = recorded("claude", ("--skill", str(skill)))
    changed = write_skill(tmp_path / "new-skill", "House style for files, UPPER CASE names.")
    strict = replay(
        "claude",
        cassette,
        tmp_path / "strict",
        "http://127.0.0.1:9",
        args=(
            "--skill",
            str(changed),
        ),
    )
    manifest = assert_valid_manifest(strict.manifest)
    assert manifest["metadata"]["reason"] == "replay_mismatch"
    report = (strict.output_dir / "evidence" / "replay-mismatch.md").read_text()
    assert any(x.startswith("-") and "lower case names" in x for x in report.splitlines())
    assert any(x.startswith("+") and "UPPER CASE names" in x for x in report.splitlines())
    lenient = replay(
        "claude",
        cassette,
        tmp_path / "lenient",
        "http://127.0.0.1:9",
        args=("--skill", str(changed), "--cassette-mode", "lenient"),
    )
    assert lenient.manifest is not None and lenient.manifest["outcome"] == "success"
    # The unchanged skill replays clean.
    same = replay(
        "claude",
        cassette,
        tmp_path / "same",
        "http://127.0.0.1:9",
        args=(
            "--skill",
            str(skill),
        ),
    )
    assert same.manifest is not None and same.manifest["metadata"]["reason"] == "ok", same.stderr
