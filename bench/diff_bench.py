"""Benchmark: holon's baseline + diff against bare git on a generated 20,000-file repository.

Holon's side is `record_baseline` plus `write_diff` (everything it does around a run). Bare
git's side is the least git itself needs for the same patch, in a copy of the same repo:
`git add -A && git diff --cached --binary --full-index`. Budget: holon within 1.3x of bare git.

Run: `uv run --frozen --no-sync python -m bench.diff_bench [--files N] [--reps N]`
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from holon_core.workspace import record_baseline, write_diff

ENV = {
    "PATH": os.environ["PATH"],
    "HOME": "/nonexistent",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@localhost",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@localhost",
}


def git(cwd: Path, *args: str, out: Path | None = None) -> None:
    if out is None:
        subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, stdout=subprocess.DEVNULL)
        return
    with out.open("wb") as fh:
        subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, stdout=fh)


def make_repo(root: Path, files: int, dirs: int = 40) -> list[str]:
    """A committed repo of small text files spread over a few directories; returns paths."""
    root.mkdir(parents=True)
    paths = []
    for i in range(files):
        rel = f"d{i % dirs:02d}/sub{i % 7}/file{i:05d}.txt"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"file {i}\n" + "line of content\n" * (i % 20))
        paths.append(rel)
    (root / ".gitignore").write_text("*.log\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "gc.auto=0", "commit", "-q", "-m", "generated")
    git(root, "gc", "-q")  # packed, like a real repo (and no background gc racing the copy)
    return paths


def change(root: Path, paths: list[str], rep: int) -> None:
    """About 50 changes: 40 edits, 5 new files (one binary), 5 deletions."""
    for rel in paths[rep * 97 : rep * 97 + 4000 : 100]:
        with (root / rel).open("a") as fh:
            fh.write(f"edit {rep}\n")
    for k in range(4):
        (root / f"new{rep}/n{k}.txt").parent.mkdir(exist_ok=True)
        (root / f"new{rep}/n{k}.txt").write_text("new\n")
    (root / f"new{rep}/blob.bin").write_bytes(bytes(range(256)) * 8)
    for rel in paths[rep * 31 + 50 : rep * 31 + 55]:
        (root / rel).unlink()


def revert(root: Path) -> None:
    git(root, "reset", "-q", "--hard")
    git(root, "clean", "-q", "-fd")
    git(root, "update-index", "-q", "--refresh")


def bare_git(root: Path, paths: list[str], rep: int, out: Path) -> tuple[float, float]:
    """Bare git: (one scan after the change, as the brief defines it; the same with a
    before-scan, i.e. what git itself needs to diff against a possibly dirty starting state)."""
    start = time.perf_counter()
    git(root, "add", "-A")
    tree = (
        subprocess.run(["git", "write-tree"], cwd=root, env=ENV, check=True, capture_output=True)
        .stdout.decode()
        .strip()
    )
    before = time.perf_counter() - start
    change(root, paths, rep)
    start = time.perf_counter()
    git(root, "add", "-A")
    git(root, "diff", "--cached", "--binary", "--full-index", tree, out=out)
    after = time.perf_counter() - start
    return after, before + after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="holon-diff-bench-") as tmp_name:
        tmp = Path(tmp_name)
        t0 = time.perf_counter()
        paths = make_repo(tmp / "ws", args.files)
        subprocess.run(["cp", "-a", str(tmp / "ws"), str(tmp / "bare")], check=True)
        git(tmp / "bare", "update-index", "-q", "--refresh")
        print(f"generated {args.files} files in {time.perf_counter() - t0:.1f}s")
        rows: dict[str, list[float]] = {"holon": [], "write_diff": [], "bare": [], "bare2": []}
        for rep in range(args.reps):
            scratch = tmp / f"state{rep}"
            start = time.perf_counter()
            baseline = record_baseline(tmp / "ws", scratch)
            base_step = time.perf_counter() - start
            change(tmp / "ws", paths, rep)
            start = time.perf_counter()
            result = write_diff(baseline, scratch / "diff.patch")
            diff_step = time.perf_counter() - start
            bare, bare2 = bare_git(tmp / "bare", paths, rep, tmp / "bare.patch")
            same = result.patch_path.read_bytes() == (tmp / "bare.patch").read_bytes()
            holon = base_step + diff_step
            for key, value in zip(rows, (holon, diff_step, bare, bare2), strict=True):
                rows[key].append(value)
            print(
                f"rep {rep}: holon {holon * 1e3:6.1f} ms (baseline {base_step * 1e3:5.1f} + diff "
                f"{diff_step * 1e3:5.1f})  bare git {bare * 1e3:5.1f} ms  bare git with a "
                f"before-scan {bare2 * 1e3:5.1f} ms  files {len(result.files)}  same patch {same}"
            )
            shutil.rmtree(scratch)
            revert(tmp / "ws")
            revert(tmp / "bare")
        for label, pick in (("median", statistics.median), ("best", min)):
            h, d, b, b2 = (pick(rows[key]) for key in rows)
            print(
                f"{label}: holon {h * 1e3:.1f} ms vs bare git {b * 1e3:.1f} ms -> ratio "
                f"{h / b:.2f} (budget 1.30); vs bare git with a before-scan {b2 * 1e3:.1f} ms -> "
                f"{h / b2:.2f}; write_diff alone vs bare git -> {d / b:.2f}"
            )


if __name__ == "__main__":
    main()
