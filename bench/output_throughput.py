"""Engine output through holon-agent against ``cat`` writing the same bytes to a file.

The replay engine prints N MB of its own JSON lines (``say`` events, ~200 bytes each, the
parser's worst case: every line becomes an event) by running ``cat`` onto its stdout; the
same file is then copied by bare ``cat`` to a file. Budget (DESIGN.md section 9): within 2x
of ``cat``. Two figures: (a) how long the engine's own write took (how long holon held the
engine up: holon drains its pipes to a spool at disk speed), and (b) holon-agent's whole
run, which also parses, redacts and stores all of it. holon-agent's fixed cost (start-up,
baseline, manifest) is measured with an empty file and reported separately, so the ratio of
the output itself is visible too.

Usage: uv run --frozen --no-sync python -m bench.output_throughput [MB] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from holon_core.testing import make_task
from holon_core.testing.agent_run import agent_argv, agent_env
from holon_core.untrusted.redact import Redactor

_LINE_TEXT = "lorem ipsum dolor sit amet " * 6


def make_output(path: Path, megabytes: float) -> int:
    """Write ``megabytes`` of replay ``say`` lines to ``path``; returns the byte count."""
    line = (json.dumps({"type": "say", "text": _LINE_TEXT}) + "\n").encode()
    count = int(megabytes * 1_000_000) // len(line)
    with path.open("wb") as handle:
        block = line * 1000
        for _ in range(count // 1000):
            handle.write(block)
        handle.write(line * (count % 1000))
    return count * len(line)


def through_agent(root: Path, source: Path) -> tuple[float, float]:
    """Seconds for holon-agent to run a replay engine printing ``source`` on its stdout, and
    seconds the engine's ``cat`` of it took (it blocks while holon does not drain its pipe)."""
    root.mkdir(parents=True)
    held = root / "engine-write-ns"
    write = f"s=$(date +%s%N); cat {source} > /proc/$PPID/fd/1; e=$(date +%s%N)"
    steps = [{"run": f'{write}; echo $((e - s)) > "{held}"'}, {"say": "done"}]
    task = make_task(root, replay=steps, git_repo=False)
    started = time.perf_counter()
    done = subprocess.run(
        # the engine reads and writes files beside the task, outside a room; the room's own
        # cost is bench/sandbox_overhead.py's
        agent_argv(task),
        env=agent_env({"HOLON_SANDBOX": "off"}),
        capture_output=True,
        check=False,
        timeout=3600,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"holon-agent failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    log = task.output / "evidence" / "engine.stdout.log"
    events = task.output / "evidence" / "events.ndjson"
    print(
        f"  engine.stdout.log {log.stat().st_size / 1e6:8.1f} MB, "
        f"events.ndjson {events.stat().st_size / 1e6:6.1f} MB"
    )
    return seconds, int(held.read_text()) / 1e9


def with_cat(source: Path, target: Path) -> float:
    started = time.perf_counter()
    with target.open("wb") as out:
        subprocess.run(["cat", str(source)], stdout=out, check=True)
    return time.perf_counter() - started


def redaction_seconds(source: Path) -> float:
    """Seconds the redactor alone takes over the same text (holon redacts it at least once)."""
    text = source.read_text(encoding="utf-8")
    redact = Redactor(["a-secret-value-of-a-run"])
    started = time.perf_counter()
    for start in range(0, len(text), 1 << 20):  # in read-sized blocks, as the agent does
        redact(text[start : start + (1 << 20)])
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("megabytes", nargs="?", type=float, default=100.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source, empty = root / "engine-output.ndjson", root / "empty.ndjson"
        size = make_output(source, args.megabytes)
        empty.touch()
        agent, fixed, cat, engine = [], [], [], []
        for run in range(args.runs):
            fixed.append(through_agent(root / f"fixed-{run}", empty)[0])
            whole, held = through_agent(root / f"agent-{run}", source)
            agent.append(whole)
            engine.append(held)
            cat.append(with_cat(source, root / f"cat-{run}.out"))
        redaction = redaction_seconds(source)
    mb = size / 1e6
    agent_s, fixed_s, cat_s, engine_s = (statistics.median(x) for x in (agent, fixed, cat, engine))
    output_s = max(agent_s - fixed_s, 0.0)
    print(f"output: {mb:.1f} MB of JSON lines, median of {args.runs} runs")
    print(f"cat to a file         {cat_s * 1000:9.0f} ms  ({mb / cat_s:8.1f} MB/s)")
    print(f"engine's write        {engine_s * 1000:9.0f} ms  ({mb / engine_s:8.1f} MB/s)")
    print(f"(a) engine held up    {engine_s / cat_s:9.1f}x cat (budget 2x)")
    print(f"holon-agent, 0 MB     {fixed_s * 1000:9.0f} ms  (fixed cost of a run)")
    print(f"holon-agent, {mb:5.1f} MB {agent_s * 1000:9.0f} ms  ({mb / agent_s:8.1f} MB/s)")
    print(f"(b) whole run         {agent_s / cat_s:9.1f}x cat")
    print(f"(b) output only       {output_s / cat_s:9.1f}x cat (the run minus its fixed cost)")
    print(f"redaction alone       {redaction * 1000:9.0f} ms  (one pass of the redactor)")


if __name__ == "__main__":
    main()
