"""Regenerate ``holon_adapter_opencode/models_anthropic.json`` from the pinned OpenCode binary.

OpenCode bundles a models.dev snapshot as a JavaScript object literal; holon ships its
Anthropic entry alone so a run does not build 200-odd providers it never uses (see
``startup.py``). Run after changing the pin: ``uv run --frozen --no-sync python
adapters/opencode/scripts/models_snapshot.py`` (needs ``node``, which npm needs anyway).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from holon_adapter_opencode import OpenCodeAdapter
from holon_adapter_opencode.startup import MODELS_FILE

MARKER = b'anthropic:{id:"anthropic",'
QUOTES = frozenset(b"\"'`")


def object_literal(blob: bytes, start: int) -> bytes:
    """The ``{...}`` literal opening at ``start``, skipping braces inside strings."""
    depth, quote, escaped = 0, 0, False
    for at in range(start, len(blob)):
        char = blob[at]
        if quote:
            if escaped:
                escaped = False
            elif char == ord("\\"):
                escaped = True
            elif char == quote:
                quote = 0
        elif char in QUOTES:
            quote = char
        elif char == ord("{"):
            depth += 1
        elif char == ord("}"):
            depth -= 1
            if depth == 0:
                return blob[start : at + 1]
    raise SystemExit("unbalanced object literal after the marker")


def main() -> int:
    binary = OpenCodeAdapter().locate_binary(dict(os.environ))
    node = shutil.which("node")
    if binary is None or node is None:
        print("needs node and holon engines install opencode", file=sys.stderr)
        return 1
    blob = Path(binary).resolve().read_bytes()
    at = blob.find(MARKER)
    if at < 0 or blob.find(MARKER, at + 1) >= 0:
        print(f"expected one Anthropic entry in {binary}", file=sys.stderr)
        return 1
    literal = object_literal(blob, at + len(b"anthropic:"))
    script = b"process.stdout.write(JSON.stringify(" + literal + b"))"
    done = subprocess.run([node, "-"], input=script, capture_output=True, check=True)
    entry = json.loads(done.stdout)
    MODELS_FILE.write_text(json.dumps({"anthropic": entry}, indent=1) + "\n", encoding="utf-8")
    print(f"{MODELS_FILE}: {len(entry['models'])} models")
    return 0


if __name__ == "__main__":
    sys.exit(main())
