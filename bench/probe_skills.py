"""Probe CPU time with skills: `holon-agent --probe` on a spec naming 3 skills (a spec-local
one, a workspace one and a builtin), against `python -c pass` (budget: 5x its CPU time).

CPU time (user + sys of the child), not wall: the machines are shared (compare the best
lines when the medians are noisy).
Run: uv run --frozen --no-sync python bench/probe_skills.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def cpu_of(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, capture_output=True, check=False, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def skill(root: Path, name: str) -> None:
    (root / name).mkdir(parents=True)
    text = f"---\nname: {name}\ndescription: Bench skill {name}\nversion: 1.0.0\n---\nSteps.\n"
    (root / name / "SKILL.md").write_text(text)
    (root / name / "notes.md").write_text("notes\n" * 200)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        inp, ws, out = root / "in", root / "ws", root / "out"
        skill(inp / "skills", "spec-skill")
        skill(ws / ".holon" / "skills", "ws-skill")
        refs = "[spec-skill, holon-report]"
        (inp / "spec.yaml").write_text(
            f'version: "v1"\nkind: Holon\nmetadata: {{name: b, skills: {refs}}}\ngoal: bench\n'
        )
        env = {"PATH": os.environ["PATH"], "HOME": str(root / "home")}
        agent = [sys.executable, "-m", "holon_core.agent", "--probe", "--engine", "replay"]
        agent += ["--input", str(inp), "--workspace", str(ws), "--output", str(out)]
        check = subprocess.run(agent, capture_output=True, text=True, check=False, env=env)
        assert check.returncode == 0, check.stderr
        assert "ws-skill (workspace)" in check.stderr and "holon-report (builtin)" in check.stderr
        bare = [cpu_of([sys.executable, "-c", "pass"], env) for _ in range(args.runs)]
        probe = [cpu_of(agent, env) for _ in range(args.runs)]
    for label, pick in (("median", statistics.median), ("best", min)):
        base, ours = pick(bare), pick(probe)
        print(f"python -c pass          {label:6} CPU {base * 1000:6.1f} ms")
        print(f"probe with 3 skills     {label:6} CPU {ours * 1000:6.1f} ms  ({ours / base:.1f}x)")


if __name__ == "__main__":
    main()
