"""No secret in a cassette, whatever the environment holds (issue 25).

The property: any secret-looking variables, their values printed into the recorded traffic
(request bodies, headers, the query, streamed answers, a plain answer, the spec) in any form
holon knows (raw, URL-encoded, hex, base64 alone or inside HTTP Basic at any offset, wrapped
over lines, streamed in pieces): either the cassette is refused and nothing is left, or no
file of it, and no stream joined again as a replay would serve it, holds any of them.

The oracle is written here, apart from ``holon_core.untrusted.redact``: it undoes line wrapping and
decodes every base64 run it finds, rather than asking the redactor what it would find.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import quote, quote_plus

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from holon_core.cassette.format import (
    CassetteError,
    CassetteInfo,
    EngineRecord,
    read_cassette,
)
from holon_core.cassette.record import Recorder
from holon_core.cassette.scrub import Scrubber
from holon_core.cassette.writer import write_cassette
from holon_core.testing.fuzz import FUZZ
from holon_core.untrusted.redact import secret_values

SECRET = st.text(
    alphabet='abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+=:"\\',
    min_size=12,
    max_size=48,
)
NAME = st.sampled_from(
    ["ANTHROPIC_API_KEY", "GITHUB_TOKEN", "MY_SECRET", "DB_PASSWORD", "AUTH_COOKIE", "X_KEY"]
)
FORMS = ("raw", "url", "url+", "hex", "HEX", "b64", "b64url", "basic", "json")
_BREAKS = re.compile(r"(?:\r?\n|\\r\\n|\\n)[ \t]*(?:\\t[ \t]*)*")
_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{8,}={0,2}")


def printed(value: str, form: str, user: str) -> str:
    raw = value.encode()
    return {
        "raw": value,
        "url": quote(value, safe=""),
        "url+": quote_plus(value),
        "hex": raw.hex(),
        "HEX": raw.hex().upper(),
        "b64": base64.b64encode(raw).decode(),
        "b64url": base64.urlsafe_b64encode(raw).decode(),
        "basic": base64.b64encode(f"{user}:{value}".encode()).decode(),
        "json": json.dumps(value)[1:-1],
    }[form]


def wrapped(text: str, at: int, how: str) -> str:
    if not how or len(text) < 2:
        return text
    cut = 1 + at % (len(text) - 1)
    return text[:cut] + how + text[cut:]


@st.composite
def environments(draw: st.DrawFn) -> tuple[dict[str, str], list[str]]:
    """Secret variables and the texts (the secrets in some printed form) the traffic holds."""
    names = draw(st.lists(NAME, min_size=1, max_size=3, unique=True))
    env = {name: draw(SECRET) for name in names}
    env["PATH"] = "/usr/bin"
    shown = []
    for value in env.values():
        if value == "/usr/bin":
            continue
        for _ in range(draw(st.integers(1, 3))):
            form = draw(st.sampled_from(FORMS))
            user = draw(st.text(alphabet="abcdefgh", min_size=0, max_size=5))
            how = draw(st.sampled_from(["", "\n", "\\n", "\n    ", "\r\n\t"]))
            shown.append(wrapped(printed(value, form, user), draw(st.integers(0, 99)), how))
    return env, shown


def record(env: dict[str, str], shown: list[str], split: int | None) -> Recorder:
    """One streamed call and one plain call through the recording transport, the secrets'
    forms everywhere in them; with ``split``, the first secret also streamed in two pieces."""
    scrubber = Scrubber(secret_values(env))
    recorder = Recorder("anthropic-messages", "https://api.example/v1", "/v1", scrubber)
    first = next(v for k, v in env.items() if k != "PATH")
    pieces = list(shown)
    if split is not None:
        cut = 1 + split % (len(first) - 1)
        pieces = [first[:cut], first[cut:], *shown]

    async def stream() -> AsyncIterator[bytes]:
        for piece in pieces:
            delta = {"type": "content_block_delta", "delta": {"type": "text_delta", "text": piece}}
            yield f"event: content_block_delta\ndata: {json.dumps(delta)}\n\n".encode()

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/stream"):
            return httpx.Response(
                200, headers={"content-type": "text/event-stream"}, content=stream()
            )
        return httpx.Response(200, json={"echo": shown, "set-cookie": first})

    async def calls() -> None:
        transport = recorder.wrap(httpx.MockTransport(answer))
        async with httpx.AsyncClient(transport=transport) as client:
            for path in ("/v1/messages/stream", "/v1/messages"):
                headers = {"x-api-key": first, "user-agent": f"tool {shown[0]}"}
                body = {"messages": [{"role": "user", "content": text} for text in shown]}
                query = {"key": first, "q": shown[-1]}
                url = "https://api.example" + path
                async with client.stream(
                    "POST", url, json=body, headers=headers, params=query
                ) as r:
                    async for _ in r.aiter_raw():
                        pass

    asyncio.run(calls())
    return recorder


def leaks(data: bytes, secrets: list[str]) -> list[str]:
    """The secrets ``data`` still holds in some form (the oracle, see the module doc)."""
    text = _BREAKS.sub("", data.decode("latin-1"))
    found = []
    for secret in secrets:
        raw = secret.encode()
        escaped = json.dumps(secret)[1:-1]  # inside a JSON string, and that inside another
        plain = {secret, quote(secret, safe=""), quote_plus(secret), raw.hex(), raw.hex().upper()}
        plain |= {escaped, json.dumps(escaped)[1:-1]}
        core = raw[2:-2]  # base64 of a value inside a longer string may blur two bytes each side
        if any(form in text for form in plain) or any(
            core in decoded for decoded in _decoded_runs(text)
        ):
            found.append(secret)
    return found


def _decoded_runs(text: str) -> list[bytes]:
    out = []
    for run in _B64_RUN.findall(text):
        bare = run.rstrip("=")
        for skip in range(4):
            part = bare[skip:]
            part = part[: len(part) // 4 * 4 + (len(part) % 4 if len(part) % 4 > 1 else 0)]
            padded = part + "=" * (-len(part) % 4)
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                try:
                    out.append(decode(padded))
                except (binascii.Error, ValueError):
                    continue
    return out


def write(recorder: Recorder, shown: list[str], target: Path) -> None:
    calls = recorder.ordered()
    info = CassetteInfo(
        created="2026-11-26T20:00:00Z",
        holon_version="0",
        engine=EngineRecord(name="claude"),
        spec={"goal": "print " + " ".join(shown)},
        outcome="success",
        reason="ok",
        error=shown[0],
        calls=len(calls),
    )
    write_cassette(
        target,
        info=info,
        calls=calls,
        store=recorder.store,
        diff=b"",
        scrubber=recorder.scrubber,
        split_secrets=recorder.split_secrets,
    )


@FUZZ
@given(environments(), st.none() | st.integers(0, 99))
def test_no_secret_of_the_environment_survives_into_a_cassette(
    tmp_path_factory: pytest.TempPathFactory,
    case: tuple[dict[str, str], list[str]],
    split: int | None,
) -> None:
    env, shown = case
    secrets = [v for k, v in env.items() if k != "PATH"]
    parent = tmp_path_factory.mktemp("rec")
    target = parent / "cassette"
    recorder = record(env, shown, split)
    try:
        write(recorder, shown, target)
    except CassetteError as refused:
        assert "no cassette was written" in str(refused)
        assert list(parent.iterdir()) == []  # nothing left, no temp dir either
        return
    for path in target.rglob("*"):
        if path.is_file():
            assert leaks(path.read_bytes(), secrets) == [], path.name
    cassette = read_cassette(target)
    for call in cassette.calls:  # what a replay would serve, streams joined again
        assert leaks(cassette.response_bytes(call), secrets) == []


def test_a_secret_streamed_in_pieces_refuses_the_cassette(tmp_path: Path) -> None:
    env = {"GITHUB_TOKEN": "abcdefghijklmnopqrstuvwxyz012345"}
    recorder = record(env, ["nothing secret here"], split=7)
    recorder.ordered()  # the records are made in the recorder's worker thread
    assert recorder.split_secrets == [0]
    with pytest.raises(CassetteError, match=r"model call #0 streamed a secret value"):
        write(recorder, ["nothing secret here"], tmp_path / "cassette")
    assert list(tmp_path.iterdir()) == []


def test_a_secret_in_the_diff_refuses_the_cassette_and_keeps_the_old_one(tmp_path: Path) -> None:
    target = tmp_path / "cassette"
    env = {"MY_SECRET": "correct-horse-battery-staple"}
    scrubber = Scrubber(secret_values(env))
    info = CassetteInfo(
        created="t",
        holon_version="0",
        engine=EngineRecord(name="x"),
        spec={},
        outcome="success",
        reason="ok",
        calls=0,
    )
    recorder = Recorder("anthropic-messages", "https://a.example", "", scrubber)
    write_cassette(target, info=info, calls=[], store=recorder.store, diff=b"", scrubber=scrubber)
    before = sorted(p.name for p in target.iterdir())
    with pytest.raises(CassetteError, match=r"diff.patch \(a secret value of this run\)"):
        write_cassette(
            target,
            info=info,
            calls=[],
            store=recorder.store,
            diff=b"+password = correct-horse-battery-staple\n",
            scrubber=scrubber,
        )
    assert sorted(p.name for p in target.iterdir()) == before
    assert (target / "diff.patch").read_bytes() == b""
    assert [p.name for p in tmp_path.iterdir()] == ["cassette"]


def test_a_secret_escaped_inside_a_json_string_is_redacted_in_bodies_and_streams(
    tmp_path: Path,
) -> None:
    """A password with a quote, printed by a tool as JSON ({"password": "..."}) and repeated
    by the model: inside the request's JSON and the stream's JSON it is escaped twice."""
    secret = 'hunter"2\\-correct-horse'
    printed = json.dumps({"password": secret})  # what the tool printed
    env = {"DB_PASSWORD": secret}
    recorder = record(env, [printed], None)
    write(recorder, ["done"], tmp_path / "cassette")
    cassette = read_cassette(tmp_path / "cassette")
    for path in (tmp_path / "cassette").rglob("*"):
        if path.is_file():
            assert leaks(path.read_bytes(), [secret]) == [], path.name
    for call in cassette.calls:
        assert leaks(cassette.response_bytes(call), [secret]) == []
        assert secret not in json.dumps(cassette.request_json(call))
