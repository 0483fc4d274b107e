"""How big a cassette of a typical run is, per engine (issue 25).

    uv run --frozen --no-sync python bench/cassette_size.py [--engines claude,codex] [--steps N]

One scripted write-and-run task (the model writes hello.txt, runs a command, answers) per
engine through holon-agent with ``--record``, the scripted model server as the upstream.
Printed per engine: model calls, the cassette's size on disk, and what the same traffic
weighs uncompressed (every request body and every answer as sent): the ratio shows what
storing repeated parts once (tool definitions, system prompt, the growing history) saves.
The engines' own system prompts and tool lists are real; the scripted conversation is short,
so a real task's cassette grows mostly by its new messages and tool results.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from holon_conformance.provider import ScriptedProvider

from holon_core.cassette.format import BODIES_DIR, read_cassette
from holon_core.testing import make_task, run_agent

KEY = "sk-bench-0123456789abcdef0123456789abcdef"
MODELS = {
    "claude": "claude-sonnet-4-5",
    "codex": "gpt-5.5",
    "gemini": "gemini-2.5-flash",
    "opencode": "claude-sonnet-4-5",
}


def scenario(root: Path, steps: int) -> str:
    """write-and-run, or a longer task: ``steps`` shell commands whose output grows the
    history (each prints 40 lines), then the answer."""
    if steps <= 0:
        return "write-and-run"
    path = root / f"steps-{steps}.yaml"
    turns = ['  - write_file: {path: hello.txt, content: "hello from holon\\n"}']
    turns += [f"  - run_shell: {{command: 'seq {i} {i + 39}'}}" for i in range(steps)]
    turns.append('  - final: {text: "Done."}')
    path.write_text("turns:\n" + "\n".join(turns) + "\n")
    return str(path)


def measure(engine: str, root: Path, steps: int = 0) -> dict[str, Any]:
    target = root / f"{engine}-cassette"
    with ScriptedProvider(scenario(root, steps), api_key=KEY) as server:
        env = {
            k: (v if v.startswith(server.url) else KEY)
            for k, v in server.engine_env(engine).items()
        }
        env |= {"HOLON_MODEL": MODELS[engine], "HOLON_GATEWAY": "on", "HOLON_RECORD": str(target)}
        task = make_task(root / engine, goal="Create hello.txt", files={"README.md": "hi\n"})
        result = run_agent(task, engine, env=os.environ | env, timeout=300)
    if result.manifest is None or result.manifest["outcome"] != "success":
        raise SystemExit(f"{engine}: the recorded run failed: {result.stderr[-2000:]}")
    cassette = read_cassette(target)
    wire = sum(c.request.size + len(cassette.response_bytes(c)) for c in cassette.calls)
    size = cassette.size_bytes()
    bodies = sum(p.stat().st_size for p in (target / BODIES_DIR).glob("*"))
    return {
        "engine": engine,
        "calls": len(cassette.calls),
        "cassette_bytes": size,
        "bodies_bytes": bodies,
        "wire_bytes": wire,
        "ratio": round(size / wire, 3) if wire else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default=",".join(MODELS))
    parser.add_argument(
        "--steps", type=int, default=0, help="a longer task: this many shell commands"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cassette-") as tmp:
        rows = [measure(engine, Path(tmp), args.steps) for engine in args.engines.split(",")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        f"{'engine':10} {'calls':>5} {'cassette':>10} {'bodies/':>10} {'as sent':>10} {'ratio':>6}"
    )
    for row in rows:
        print(
            f"{row['engine']:10} {row['calls']:>5} {row['cassette_bytes'] / 1024:>8.1f}Ki "
            f"{row['bodies_bytes'] / 1024:>8.1f}Ki {row['wire_bytes'] / 1024:>8.1f}Ki "
            f"{row['ratio']:>6}"
        )


if __name__ == "__main__":
    main()
