"""Matching a replayed request to a recorded call: what varies between two runs of a task is
normalized away, what the model is asked is not (docs/cassettes.md, "Matching")."""

from __future__ import annotations

import copy
from typing import Any

from holon_core.cassette.match import Candidate, Matcher
from holon_core.cassette.mismatch import Mismatch, report
from holon_core.cassette.normalize import PathMap
from holon_core.cassette.shape import Shape, shape_of

RECORDED = PathMap.of({"workspace": "/tmp/rec-1a2b/task/workspace", "home": "/tmp/rec-1a2b/h"})
REPLAY = PathMap.of({"workspace": "/var/tmp/rp-9z/ws", "home": "/var/tmp/rp-9z/home"})


def anthropic(
    workspace: str, session: str, *, prompt: str = "Create hello.txt", commit: str = "0e80565"
) -> dict[str, Any]:
    """A Claude-Code-like turn 1: the model wrote a file, the tool result answers it."""
    return {
        "model": "claude-sonnet-4-5",
        "metadata": {"user_id": f'{{"session_id":"{session}"}}'},
        "system": [
            {
                "type": "text",
                "text": f"Primary working directory: {workspace}\nToday's date: 2026-11-26"
                f"\nRecent commits:\n{commit} initial",
                "cache_control": {"type": "ephemeral"},
            }
        ],
        "tools": [{"name": "Write"}, {"name": "Bash"}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": prompt}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_01",
                        "name": "Write",
                        "input": {"file_path": f"{workspace}/hello.txt"},
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01",
                        "content": f"File created at {workspace}/hello.txt in 0.012s",
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            },
        ],
    }


def shape(body: Any, paths: PathMap, kind: str = "model", path: str = "/v1/messages") -> Shape:
    return shape_of(
        "anthropic-messages", kind, method="POST", path=path, query="", body=body, paths=paths
    )


def test_two_runs_of_one_task_match_exactly():
    recorded = shape(
        anthropic("/tmp/rec-1a2b/task/workspace", "2f1983ec-c321-4f9e-b744-3fdc761c0c5d"), RECORDED
    )
    body = anthropic("/var/tmp/rp-9z/ws", "4bf612bc-d78d-4d3d-8780-60329bb2e494", commit="beaddec")
    body["system"][0]["text"] = body["system"][0]["text"].replace("2026-11-26", "2027-01-03")
    body["tools"].reverse()
    del body["messages"][2]["content"][0]["cache_control"]  # the breakpoint moved
    body["messages"][0]["content"][0]["cache_control"] = {"type": "ephemeral"}
    body["messages"][2]["content"][0]["content"] = body["messages"][2]["content"][0][
        "content"
    ].replace("0.012s", "0.4s")
    replayed = shape(body, REPLAY)
    assert replayed.anchor == recorded.anchor
    assert replayed.lines == recorded.lines
    match = Matcher([Candidate(0, recorded, 200)]).match(replayed)
    assert match.verdict == "exact" and match.served is not None and match.served.seq == 0


def test_a_changed_prompt_is_no_match_and_the_diff_shows_it():
    turn0 = copy.deepcopy(anthropic("/tmp/rec-1a2b/task/workspace", "s"))
    turn0["messages"] = turn0["messages"][:1]
    recorded = [Candidate(0, shape(turn0, RECORDED), 200)]
    changed = copy.deepcopy(anthropic("/var/tmp/rp-9z/ws", "s", prompt="Create goodbye.txt"))
    changed["messages"] = changed["messages"][:1]
    request = shape(changed, REPLAY)
    match = Matcher(recorded).match(request)
    assert match.verdict == "nearest" and not match.ok
    assert match.nearest is not None and match.nearest.seq == 0
    text = report("/c", "strict", [Mismatch("anthropic-messages", request, match)])
    assert "-messages[0].content[0].text: Create hello.txt" in text
    assert "+messages[0].content[0].text: Create goodbye.txt" in text


def test_a_changed_system_prompt_with_the_same_conversation_is_drift():
    recorded = shape(anthropic("/tmp/rec-1a2b/task/workspace", "s"), RECORDED)
    body = anthropic("/var/tmp/rp-9z/ws", "s")
    body["system"][0]["text"] += "\nA skill: always answer in French."
    request = shape(body, REPLAY)
    match = Matcher([Candidate(3, recorded, 200)]).match(request)
    assert match.verdict == "drift" and not match.ok
    assert match.served is not None and match.served.seq == 3
    mismatch = Mismatch("anthropic-messages", request, match)
    assert "first change at system[0].text" in mismatch.summary()
    assert "+system[0].text+ A skill: always answer in French." in mismatch.diff()


def test_a_retried_failure_is_skipped_and_repeats_get_the_last_answer():
    body = anthropic("/tmp/rec-1a2b/task/workspace", "s")
    recorded = shape(body, RECORDED)
    matcher = Matcher([Candidate(0, recorded, 529), Candidate(1, recorded, 200)])
    request = shape(anthropic("/var/tmp/rp-9z/ws", "s"), REPLAY)
    served = [matcher.match(request).served for _ in range(3)]
    assert [s.seq for s in served if s is not None] == [1, 1, 1]


def test_a_recorded_failure_that_was_not_retried_is_served():
    recorded = shape(anthropic("/tmp/rec-1a2b/task/workspace", "s"), RECORDED)
    match = Matcher([Candidate(0, recorded, 429)]).match(
        shape(anthropic("/var/tmp/rp-9z/ws", "s"), REPLAY)
    )
    assert match.verdict == "exact" and match.served is not None and match.served.status == 429


def test_concurrent_calls_each_find_their_own_answer_in_any_order():
    """A side call and the main turn start together: order does not matter."""
    main = anthropic("/tmp/rec-1a2b/task/workspace", "s")
    title = {"model": "claude-haiku-4-5", "messages": main["messages"][:1], "system": "Title it"}
    recorded = [Candidate(0, shape(title, RECORDED), 200), Candidate(1, shape(main, RECORDED), 200)]
    matcher = Matcher(recorded)
    replay_main = anthropic("/var/tmp/rp-9z/ws", "s")
    replay_title = {
        "model": "claude-haiku-4-5",
        "messages": replay_main["messages"][:1],
        "system": "Title it",
    }
    first = matcher.match(shape(replay_main, REPLAY))
    second = matcher.match(shape(replay_title, REPLAY))
    assert (first.verdict, second.verdict) == ("exact", "exact")
    assert first.served is not None and second.served is not None
    assert (first.served.seq, second.served.seq) == (1, 0)


def test_a_side_call_never_fails_strict_mode():
    count = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "x"}]}
    recorded = [
        Candidate(0, shape(count, RECORDED, "count_tokens", "/v1/messages/count_tokens"), 200)
    ]
    other = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "other"}]}
    match = Matcher(recorded).match(
        shape(other, REPLAY, "count_tokens", "/v1/messages/count_tokens")
    )
    assert match.verdict == "side" and match.ok and match.served is not None


def test_client_minted_ids_become_positions_keeping_their_links():
    """Gemini CLI mints function-call ids from the clock: two runs differ, links stay."""

    def gemini(call_id: str) -> dict[str, Any]:
        return {
            "contents": [
                {"role": "user", "parts": [{"text": "go"}]},
                {"role": "model", "parts": [{"functionCall": {"id": call_id, "name": "ls"}}]},
                {"role": "user", "parts": [{"functionResponse": {"id": call_id, "name": "ls"}}]},
            ]
        }

    a = shape_of(
        "google-generate-content",
        "model",
        method="POST",
        path="/p",
        query="alt=sse",
        body=gemini("ls-1764185000000-abc"),
        paths=RECORDED,
    )
    b = shape_of(
        "google-generate-content",
        "model",
        method="POST",
        path="/p",
        query="alt=sse",
        body=gemini("ls-1764185999999-xyz"),
        paths=REPLAY,
    )
    assert a.lines == b.lines and a.anchor == b.anchor and a.turn == 1


def test_ids_are_numbered_alike_whatever_the_order_of_keys():
    """A cassette stores a large part with its keys sorted, a small one as sent: the
    numbering of ids must not depend on which (it did: Codex's turn 2 failed to match)."""

    def responses(item: dict[str, Any]) -> dict[str, Any]:
        output = {"type": "function_call_output", "call_id": "call_1", "output": "ok"}
        return {"model": "gpt-5.5", "input": [{"role": "user", "content": "go"}, item, output]}

    sent = {"type": "function_call", "id": "fc_1", "name": "exec", "call_id": "call_1"}
    stored = dict(sorted(sent.items()))
    a = shape_of(
        "openai-responses",
        "model",
        method="POST",
        path="/v1/responses",
        query="",
        body=responses(stored),
        paths=RECORDED,
    )
    b = shape_of(
        "openai-responses",
        "model",
        method="POST",
        path="/v1/responses",
        query="",
        body=responses(sent),
        paths=REPLAY,
    )
    assert a.lines == b.lines and a.anchor == b.anchor
