"""The ATIF trajectory's cost at the end of a run (holon_core/trajectory/): building it from a
generated events.ndjson at the 16 MiB cap (message, tool call and tool result per turn) and
model-calls.ndjson, against only parsing those two files with json (what any reader pays).
CPU time, median and best of ``--runs``, and the ratio."""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from holon_core.trajectory.atif import build_trajectory

EVENTS_CAP = 16 * 1024 * 1024


def generate() -> tuple[list[str], list[str]]:
    events: list[str] = []
    calls: list[str] = []
    size, seq, turn = 0, 0, 0
    output = "line of tool output\n" * 40
    while size < EVENTS_CAP:
        turn += 1
        for event in (
            {"type": "message", "text": f"turn {turn}: I will run the tests."},
            {"type": "tool_call", "tool": "Bash", "tool_id": f"t{turn}",
             "data": {"input": {"command": "pytest -q"}}},
            {"type": "tool_result", "tool": "Bash", "tool_id": f"t{turn}", "status": "ok",
             "data": {"exit_code": 0, "output": output}},
        ):  # fmt: skip
            seq += 1
            line = json.dumps({"seq": seq, "ts": seq / 100, **event})
            events.append(line)
            size += len(line) + 1
        usage = {"input_tokens": 1000, "output_tokens": 50, "cache_read_tokens": 800}
        calls.append(json.dumps({"kind": "model", "status": 200, "usage": usage, "cost_usd": 1e-3}))
    calls.append(calls[-1])  # the closing answer
    return events, calls


def cpu(work: Any) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    events, calls = generate()
    manifest = {"outcome": "success", "metadata": {"usage": {"input_tokens": 1}}}

    def parse() -> None:
        [json.loads(line) for line in events]
        [json.loads(line) for line in calls]

    def build() -> None:
        document = build_trajectory(
            events=(json.loads(line) for line in events),
            calls=[json.loads(line) for line in calls],
            manifest=manifest,
            prompt=("system", "task"),
            started_at=time.time(),
        )
        json.dumps(document, indent=2)

    parsed, built = [], []
    for _ in range(runs):
        parsed.append(cpu(parse))
        built.append(cpu(build))
    mib = sum(len(line) + 1 for line in events) / 2**20
    print(f"events.ndjson {mib:.1f} MiB, {len(events)} events, {len(calls)} model calls")
    for name, times in (("json parse only", parsed), ("build + serialize", built)):
        print(f"{name:>18}: median {statistics.median(times):.3f} s CPU, best {min(times):.3f} s")
    print(f"{'ratio':>18}: {statistics.median(built) / statistics.median(parsed):.2f}x")


if __name__ == "__main__":
    main()
