"""The toy engine: a minimal coding agent that reports in JSON lines on stdout.

A real engine is a CLI you do not control; this stands in for one so the example adapter
has something to drive. It reads its prompt on stdin and refuses to start without
ECHO_API_KEY, like a real engine. With ECHO_BASE_URL set it runs a tool loop against that
Anthropic Messages server (two tools, Write and Bash), so the conformance suite's scripted
model server can drive it; without one, its "model" echoes the prompt's first line into
ECHO.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

MAX_TURNS = 20
TOOLS = [
    {
        "name": "Write",
        "description": "Write a file (path relative to the working directory or absolute).",
        "input_schema": {
            "type": "object",
            "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["file_path", "content"],
        },
    },
    {
        "name": "Bash",
        "description": "Run a shell command in the working directory.",
        "input_schema": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
]


def say(**event: object) -> None:
    print(json.dumps(event), flush=True)


def echo(prompt: str) -> int:
    lines = [line for line in prompt.splitlines() if line.strip() and not line.startswith("#")]
    first_line = lines[0] if lines else ""
    Path("ECHO.md").write_text(f"{first_line}\n", encoding="utf-8")
    say(type="tool", name="Write", path="ECHO.md", ok=True)
    say(type="text", text=f"Echoed: {first_line}")
    say(type="done", text=f"Echoed: {first_line}", tokens_in=len(prompt), tokens_out=1)
    return 0


def ask_model(base_url: str, key: str, model: str, messages: list[Any]) -> dict[str, Any]:
    body = {"model": model, "max_tokens": 4096, "messages": messages, "tools": TOOLS}
    request = urllib.request.Request(
        f"{base_url.rstrip('/')}/v1/messages",
        data=json.dumps(body).encode(),
        headers={
            "content-type": "application/json",
            "x-api-key": key,
            "anthropic-version": "2023-06-01",
        },
    )
    with urllib.request.urlopen(request, timeout=120) as answer:
        reply: dict[str, Any] = json.load(answer)
    return reply


def ask_with_retries(base_url: str, key: str, model: str, messages: list[Any]) -> dict[str, Any]:
    """Like a real engine's SDK: a 5xx the server marks retryable, or a connection that broke
    before any answer, is tried again twice (after 0.5 s, then 1 s); anything else is final."""
    for wait in (0.5, 1.0, None):
        try:
            return ask_model(base_url, key, model, messages)
        except urllib.error.HTTPError as exc:
            retryable = exc.code >= 500 and exc.headers.get("x-should-retry") != "false"
            if wait is None or not retryable:
                raise
        except (urllib.error.URLError, ConnectionError):
            if wait is None:
                raise
        time.sleep(wait)
    raise AssertionError("unreachable")


def use_tool(name: str, args: dict[str, Any]) -> tuple[bool, str, int | None]:
    """Run one tool call: (ok, output for the model, the shell's exit code)."""
    if name == "Write":
        path = Path(str(args["file_path"]))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(str(args["content"]), encoding="utf-8")
        return True, f"wrote {path}", None
    if name == "Bash":
        done = subprocess.run(
            ["sh", "-c", str(args["command"])],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=300,
            check=False,
        )
        output = (done.stdout + done.stderr).decode("utf-8", "replace")
        return done.returncode == 0, output, done.returncode
    return False, f"no tool named {name}", None


def agent(base_url: str, key: str, model: str, prompt: str) -> int:
    messages: list[Any] = [{"role": "user", "content": prompt}]
    tokens_in = tokens_out = 0
    for _ in range(MAX_TURNS):
        try:
            reply = ask_with_retries(base_url, key, model, messages)
        except urllib.error.HTTPError as exc:
            say(type="error", status=exc.code, message=exc.read().decode("utf-8", "replace"))
            return 1
        except OSError as exc:  # connection refused, timeout
            say(type="error", status=None, message=str(exc))
            return 1
        tokens_in += reply["usage"]["input_tokens"]
        tokens_out += reply["usage"]["output_tokens"]
        content = reply["content"]
        messages.append({"role": "assistant", "content": content})
        text = "".join(block.get("text", "") for block in content if block["type"] == "text")
        if text:  # what the model said, as it says it (before the tools it calls)
            say(type="text", text=text)
        calls = [block for block in content if block["type"] == "tool_use"]
        if not calls:
            say(type="done", text=text, tokens_in=tokens_in, tokens_out=tokens_out)
            return 0
        results = []
        for call in calls:
            ok, output, code = use_tool(call["name"], call["input"])
            say(
                type="tool", id=call["id"], name=call["name"], input=call["input"], ok=ok, code=code
            )
            results.append(
                {"type": "tool_result", "tool_use_id": call["id"], "content": output}
                | ({} if ok else {"is_error": True})
            )
        messages.append({"role": "user", "content": results})
    say(type="error", status=None, message=f"no answer after {MAX_TURNS} turns")
    return 1


def main() -> int:
    key = os.environ.get("ECHO_API_KEY")
    if not key:
        print("echo: no ECHO_API_KEY", file=sys.stderr)
        return 3
    prompt = sys.stdin.read()
    model = os.environ.get("ECHO_MODEL", "echo-small")
    say(type="start", session="echo-1", model=model)
    base_url = os.environ.get("ECHO_BASE_URL")
    return agent(base_url, key, model, prompt) if base_url else echo(prompt)


if __name__ == "__main__":
    sys.exit(main())
