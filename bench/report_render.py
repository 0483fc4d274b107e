"""``report.html`` of a large run: CPU to read the record and render the page, against only
parsing the same files with json, and the page's size.

A generated output dir: N tool calls (each a command with ~1 KiB of output) around assistant
text, and a diff.patch of F Python files x L lines (syntax-highlighted). Figures, no budget.

Run: uv run --frozen --no-sync python -m bench.report_render [--calls N] [--files F] [--lines L]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from holon_core.report.write import write_run_report


def make_record(out: Path, calls: int, files: int, lines: int) -> None:
    (out / "evidence").mkdir(parents=True)
    manifest = {
        "status": "completed",
        "outcome": "success",
        "duration": "61.0s",
        "artifacts": [],
        "metadata": {"reason": "ok", "engine": {"name": "claude"}},
    }
    (out / "manifest.json").write_text(json.dumps(manifest))
    events, seq = [], 0
    for i in range(calls):
        for event in (
            {"type": "message", "text": f"Step {i}: I will look at module {i}."},
            {
                "type": "tool_call",
                "tool": "Bash",
                "tool_id": f"t{i}",
                "data": {"input": {"command": f"pytest tests/test_{i}.py -q"}},
            },
            {
                "type": "tool_result",
                "tool_id": f"t{i}",
                "status": "ok",
                "data": {"exit_code": 0, "output": f"line {i} <ok>\n" * 80},
            },
        ):
            seq += 1
            events.append(json.dumps({"seq": seq, "ts": seq / 10, **event}))
    (out / "evidence" / "events.ndjson").write_text("\n".join(events) + "\n")
    body = "".join(f"+def f{n}(x):\n+    return x * {n}  # <b>\n" for n in range(lines // 2))
    patch = "".join(
        f"diff --git a/m{k}.py b/m{k}.py\nnew file mode 100644\n--- /dev/null\n+++ b/m{k}.py\n"
        f"@@ -0,0 +1,{lines} @@\n{body}"
        for k in range(files)
    )
    (out / "diff.patch").write_text(patch)


def cpu(action: object) -> float:
    start = time.process_time()
    action()  # type: ignore[operator]
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--lines", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "output"
        make_record(out, args.calls, args.files, args.lines)

        def parse_only() -> None:
            for line in (out / "evidence" / "events.ndjson").read_text().splitlines():
                json.loads(line)
            (out / "diff.patch").read_text().splitlines()

        render, parse = [], []
        for _ in range(args.runs):  # alternating, so both see the same machine
            render.append(cpu(lambda: write_run_report(out)))
            parse.append(cpu(parse_only))
        page = out / "report.html"
        records = sum(p.stat().st_size for p in out.rglob("*") if p.is_file() and p != page)
        r, p = statistics.median(render), statistics.median(parse)
        print(
            f"record: {args.calls} tool calls, {args.files} files x {args.lines} lines, "
            f"{records / 2**20:.1f} MiB"
        )
        print(f"render report.html  median CPU {r * 1000:8.1f} ms  (best {min(render) * 1000:.1f})")
        print(f"json parse only     median CPU {p * 1000:8.1f} ms  (best {min(parse) * 1000:.1f})")
        print(f"ratio {r / p:.1f}x; page {page.stat().st_size / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
