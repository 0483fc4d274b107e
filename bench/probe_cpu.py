"""Probe CPU time: `holon-agent --probe` beside `python -c pass` (budget: 5x its CPU time).

Three commands, alternating run by run so a busy neighbour weighs on all alike: the bare
interpreter, the probe on the example task (examples/hello, replay engine) and the probe on a
spec naming 3 skills (spec-local, workspace, builtin). CPU time is
user + sys of the child (resource.getrusage RUSAGE_CHILDREN), not wall: the machines are
shared. Median and best, and each probe's ratio to the interpreter.

The probe makes the run's own checks (spec rules included) without pydantic. A change's
"before" figure: `--before DIR` times each probe a second time with PYTHONPATH=DIR, an older
checkout's packages (they shadow the installed holon_core and adapters), in the same
alternating loop, e.g. `git archive HEAD~1 holon_core | tar -x -C /tmp/old` (and each
`adapters/<engine>/holon_adapter_<engine>` moved up to /tmp/old when adapters changed).
Every command runs in a scratch dir: `python -m` puts its working directory first on
sys.path, so from the checkout's root the probe would import that tree's holon_core whatever
PYTHONPATH says.

Run: uv run --frozen --no-sync python -m bench.probe_cpu [--runs N] [--before DIR]
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

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "hello"


def cpu_of(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """CPU seconds (user + sys) the command and its children used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, capture_output=True, check=False, env=env, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def skill(root: Path, name: str) -> None:
    (root / name).mkdir(parents=True)
    text = f"---\nname: {name}\ndescription: Bench skill {name}\nversion: 1.0.0\n---\nSteps.\n"
    (root / name / "SKILL.md").write_text(text)
    (root / name / "notes.md").write_text("notes\n" * 200)


def skills_task(root: Path) -> tuple[Path, Path]:
    """An input naming a spec-local skill and a builtin one, a workspace with its own."""
    inp, ws = root / "in", root / "ws"
    skill(inp / "skills", "spec-skill")
    skill(ws / ".holon" / "skills", "ws-skill")
    (inp / "spec.yaml").write_text(
        'version: "v1"\nkind: Holon\nmetadata: {name: b, skills: [spec-skill, holon-report]}\n'
        "goal: bench\nconstraints: {timeout: 10m, max_steps: 5}\n"
    )
    return inp, ws


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--before", type=Path, help="an older checkout's packages, timed too")
    args = parser.parse_args()
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root")}
    if "PYTHONPATH" in os.environ:  # an older checkout's holon_core, for a "before" figure
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    envs = {"": env}
    if args.before is not None:
        envs[" (before)"] = env | {"PYTHONPATH": str(args.before.resolve())}
    agent = [sys.executable, "-m", "holon_core.agent", "--probe", "--engine", "replay"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        inp, ws = skills_task(root)
        probes = {
            "probe, example task": [
                *agent,
                *("--input", str(EXAMPLE), "--workspace", str(EXAMPLE / "workspace")),
                *("--output", str(root / "out-example")),
            ],
            "probe, 3 skills": [
                *agent,
                *("--input", str(inp), "--workspace", str(ws), "--output", str(root / "out")),
            ],
        }
        commands = {"python -c pass": ([sys.executable, "-c", "pass"], env)}
        for label, argv in probes.items():
            for suffix, probe_env in envs.items():
                commands[label + suffix] = (argv, probe_env)
        for label, (argv, run_env) in commands.items():  # each must work before it is timed
            done = subprocess.run(
                argv, capture_output=True, text=True, check=False, env=run_env, cwd=root
            )
            assert done.returncode == 0, f"{label}: {done.stderr}"
        times: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(args.runs):
            for label, (argv, run_env) in commands.items():
                times[label].append(cpu_of(argv, run_env, root))
    for kind, pick in (("median", statistics.median), ("best", min)):
        base = pick(times["python -c pass"])
        for label, samples in times.items():
            ours = pick(samples)
            ratio = "" if samples is times["python -c pass"] else f"  ({ours / base:.1f}x)"
            print(f"{label:31} {kind:6} CPU {ours * 1000:6.1f} ms{ratio}")


if __name__ == "__main__":
    main()
