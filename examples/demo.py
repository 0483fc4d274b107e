"""`make demo`: the hello example through `holon run`, twice.

1. With the built-in replay engine (no network, no key): the whole pipeline on an embedded
   default.
2. With the real Claude Code CLI, pointed at holon's scripted model server on 127.0.0.1: an
   OFFLINE SCRIPTED run — a real engine working end to end, with the model's answers
   replayed from a scenario instead of coming from Anthropic. No key is needed or used.

The example's workspace is never modified (holon run works on a snapshot); the results go
under ./out/demo/.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "hello"
OUT = ROOT / "out" / "demo"


def banner(text: str) -> None:
    line = "=" * len(text)
    print(f"\n{line}\n{text}\n{line}", flush=True)


def holon_run(engine: str, output: Path, env: dict[str, str] | None = None) -> int:
    if output.exists():
        shutil.rmtree(output)
    argv = [
        sys.executable,
        "-m",
        "holon_core.cli.main",
        "run",
        str(EXAMPLE / "spec.yaml"),
        "--workspace",
        str(EXAMPLE / "workspace"),
        "--engine",
        engine,
        "--output",
        str(output),
        "--runs-dir",
        str(OUT / "runs"),
    ]
    return subprocess.run(argv, env={**os.environ, **(env or {})}, check=False).returncode


def show(output: Path) -> None:
    """The paths are printed by holon run itself; show what the engine changed."""
    patch = (output / "diff.patch").read_text(encoding="utf-8")
    print("\n  diff.patch:\n" + "\n".join(f"    {line}" for line in patch.splitlines()))


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    banner("1/2  holon run examples/hello  --engine replay   (scripted engine, no network)")
    code = holon_run("replay", OUT / "replay")
    show(OUT / "replay")
    if code != 0:
        return code

    banner("2/2  holon run examples/hello  --engine claude   (OFFLINE SCRIPTED RUN)")
    print(
        "The real Claude Code CLI runs; the model's answers are replayed by holon's scripted\n"
        "model server on 127.0.0.1 (scenario: write-and-run). No API key is used."
    )
    from holon_conformance.provider import ScriptedProvider, load_scenario

    with ScriptedProvider(load_scenario("write-and-run")) as provider:
        code = holon_run("claude", OUT / "claude", provider.engine_env("claude"))
        print(f"\n  the scripted server answered {len(provider.requests)} requests from claude")
    show(OUT / "claude")
    return code


if __name__ == "__main__":
    sys.exit(main())
