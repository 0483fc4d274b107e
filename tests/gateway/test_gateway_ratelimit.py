"""Rate limits: the reset time the API announced on a 429/503/529 is recorded per call and in
the manifest of a run that ends ``rate_limited``."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from holon_core.gateway.ratelimit import iso, reset_at
from holon_core.testing import make_task, run_agent

from .test_gateway_engines import engine_env

NOW = datetime(2026, 11, 26, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ([("retry-after", "30")], "2026-11-26T12:00:30Z"),
        ([("Retry-After", "Thu, 26 Nov 2026 12:05:00 GMT")], "2026-11-26T12:05:00Z"),
        ([("anthropic-ratelimit-tokens-reset", "2026-11-26T13:00:00Z")], "2026-11-26T13:00:00Z"),
        ([("x-ratelimit-reset-requests", "6m0s")], "2026-11-26T12:06:00Z"),
        ([("x-ratelimit-reset-tokens", "20ms")], "2026-11-26T12:00:01Z"),  # rounded up
        # the latest of several: every limit hit must have reset
        ([("retry-after", "5"), ("x-ratelimit-reset-tokens", "1h")], "2026-11-26T13:00:00Z"),
        ([("retry-after", "soon"), ("content-type", "x")], None),
    ],
)
def test_reset_times_in_each_form_the_apis_use(headers, expected):
    found = reset_at(headers, NOW)
    assert (None if found is None else iso(found)) == expected


def test_a_rate_limited_run_says_when_the_quota_resets(
    engine_binary, https_provider, ca_file, tmp_path
):
    engine_binary("claude")
    scenario = tmp_path / "limit.yaml"
    scenario.write_text(
        "turns:\n  - error:\n      status: 429\n      message: slow down\n"
        "      headers: {retry-after: '30', anthropic-ratelimit-requests-reset: "
        "'2030-01-01T00:00:00Z'}\n    times: forever\n  - final: {text: unreachable}\n"
    )
    server = https_provider(str(scenario))
    task = make_task(tmp_path / "task", goal="Create hello.txt", files={"README.md": "hi\n"})
    # no retry of claude's own: it would honour the retry-after (30 s) before giving up
    env = engine_env(server, "claude", ca_file) | {"HOLON_CLAUDE_MAX_RETRIES": "0"}
    result = run_agent(task, "claude", env=env, timeout=120)
    assert result.manifest is not None
    meta = result.manifest["metadata"]
    assert meta["reason"] == "rate_limited"
    assert meta["usage"]["rate_limit_reset_at"] == "2030-01-01T00:00:00Z"
    calls = [json.loads(line) for line in (task.output / "evidence/model-calls.ndjson").open()]
    assert calls[0]["status"] == 429 and calls[0]["retry_after"] == "30"
    assert calls[0]["reset_at"] == "2030-01-01T00:00:00Z"
