"""Benchmark: `make_snapshot` against bare `git worktree add` on a generated large repository.

`git worktree add` is the cheapest thing git offers for a second checkout, but it writes a
worktree entry into the user's .git (which holon must not do) and checks out HEAD only, without
the dirty and untracked state. make_snapshot uses parallel checkout (checkout.workers=8), so
the bench also times `git worktree add` with that setting for a like-for-like ratio.
It also times what ``holon run`` adds around the snapshot to prove the original unchanged:
the fingerprint before the run and the check after (``workspace/verify.py``), as a ratio to
the snapshot itself.

Run: `uv run --frozen --no-sync python -m bench.snapshot_bench [--files N] [--reps N]`
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench.diff_bench import change, git, make_repo
from holon_core.workspace import make_snapshot, remove_snapshot
from holon_core.workspace.verify import changed_paths, take_fingerprint


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="holon-snapshot-bench-") as tmp_name:
        tmp = Path(tmp_name)
        paths = make_repo(tmp / "repo", args.files)
        change(tmp / "repo", paths, 0)  # a dirty workspace, as a user's usually is
        holon: list[float] = []
        bare: list[float] = []
        tuned: list[float] = []
        verify: list[float] = []
        for rep in range(args.reps):
            start = time.perf_counter()
            before = take_fingerprint(tmp / "repo")
            verify.append(time.perf_counter() - start)
            start = time.perf_counter()
            snap = make_snapshot(tmp / "repo", tmp / f"snap{rep}")
            holon.append(time.perf_counter() - start)
            start = time.perf_counter()
            assert changed_paths(before) == [], "the snapshot changed the original"
            verify[-1] += time.perf_counter() - start
            start = time.perf_counter()
            git(tmp / "repo", "worktree", "add", "-q", "--detach", str(tmp / f"wt{rep}"))
            bare.append(time.perf_counter() - start)
            start = time.perf_counter()
            git(
                tmp / "repo",
                "-c",
                "checkout.workers=8",
                "worktree",
                "add",
                "-q",
                "--detach",
                str(tmp / f"wt{rep}b"),
            )
            tuned.append(time.perf_counter() - start)
            print(
                f"rep {rep}: make_snapshot {holon[-1] * 1e3:6.1f} ms  git worktree add "
                f"{bare[-1] * 1e3:6.1f} ms (with checkout.workers=8: {tuned[-1] * 1e3:6.1f} ms)"
                f"  verification {verify[-1] * 1e3:6.1f} ms"
            )
            remove_snapshot(snap)
            for name in (f"wt{rep}", f"wt{rep}b"):
                git(tmp / "repo", "worktree", "remove", "--force", str(tmp / name))
        for label, pick in (("median", statistics.median), ("best", min)):
            h, b, t, v = pick(holon), pick(bare), pick(tuned), pick(verify)
            print(
                f"{label}: make_snapshot {h * 1e3:.1f} ms, git worktree add {b * 1e3:.1f} ms "
                f"-> ratio {h / b:.2f}; worktree add with the same parallel checkout "
                f"{t * 1e3:.1f} ms -> ratio {h / t:.2f}; verification (before + after) "
                f"{v * 1e3:.1f} ms -> {v / h:.2f} of the snapshot"
            )


if __name__ == "__main__":
    main()
