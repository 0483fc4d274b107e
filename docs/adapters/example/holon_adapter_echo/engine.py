"""The toy engine: reads its prompt on stdin, writes ECHO.md, and reports in JSON lines.

A real engine is a CLI you do not control; this stands in for one so the example adapter
has something to drive. It refuses to start without ECHO_API_KEY, like a real engine would.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def say(**event: object) -> None:
    print(json.dumps(event), flush=True)


def main() -> int:
    if not os.environ.get("ECHO_API_KEY"):
        print("echo: no ECHO_API_KEY", file=sys.stderr)
        return 3
    prompt = sys.stdin.read()
    say(type="start", session="echo-1", model=os.environ.get("ECHO_MODEL", "echo-small"))
    lines = [line for line in prompt.splitlines() if line.strip() and not line.startswith("#")]
    first_line = lines[0] if lines else ""
    Path("ECHO.md").write_text(f"{first_line}\n", encoding="utf-8")
    say(type="tool", name="write", path="ECHO.md", ok=True)
    say(type="done", text=f"Echoed: {first_line}", tokens_in=len(prompt), tokens_out=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
