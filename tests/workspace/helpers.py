"""Real-git fixtures for the workspace tests: build repos, hash trees, run git hermetically."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from pathlib import Path

BINARY = bytes(range(256)) * 4


def hermetic_env(home: Path | None = None) -> dict[str, str]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home or "/nonexistent"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_OPTIONAL_LOCKS": "0",
    }
    if home is None:
        env["GIT_CONFIG_GLOBAL"] = os.devnull
    return env


def git(cwd: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=hermetic_env(), capture_output=True, check=False
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {args} failed: {proc.stderr.decode()}")
    return proc.stdout.decode(errors="surrogateescape")


def write(root: Path, rel: str, content: bytes | str, mode: int | None = None) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    if mode is not None:
        path.chmod(mode)


def populate(root: Path) -> None:
    """The starting content shared by the git and the plain-directory cases."""
    write(root, "README.md", "hello\nworld\n")
    write(root, "src/app.py", "print('app')\n")
    write(root, "src/util.py", "def f():\n    return 1\n")
    write(root, "tool.sh", "#!/bin/sh\necho hi\n")
    write(root, "data/blob.bin", BINARY)
    write(root, "gone.txt", "to be deleted\n")
    write(root, ".gitignore", "*.log\nbuild/\n")
    write(root, "keep.log", "ignored from the start\n")
    (root / "link-in").symlink_to("src/app.py")
    write(root, "becomes-dir", "a file that turns into a directory\n")


def make_dirty_repo(root: Path) -> None:
    """A committed repo with staged, unstaged and untracked changes, and an info/exclude rule."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    populate(root)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    (root / ".git/info").mkdir(exist_ok=True)
    (root / ".git/info/exclude").write_text("secret.env\n")
    write(root, "secret.env", "TOKEN=x\n")
    write(root, "README.md", "hello\nworld\nstaged line\n")
    git(root, "add", "README.md")
    write(root, "src/app.py", "print('app, dirty')\n")
    write(root, "notes.txt", "untracked before the run\n")


def engine_changes(root: Path, outside: Path) -> None:
    """What an engine run might do: every kind of change the patch must carry."""
    write(root, "src/util.py", "def f():\n    return 2\n")
    write(root, "README.md", "hello\nworld\nstaged line\nand more\n")
    write(root, "deep/new/dir/file.txt", "nested\n")
    write(root, "data/blob.bin", BINARY[::-1])
    write(root, "data/new.bin", b"\x00\x01\xff" * 100)
    (root / "gone.txt").unlink()
    (root / "tool.sh").chmod(0o755)
    outside.write_text("outside content that must not be recorded\n")
    (root / "escape").symlink_to(outside)
    write(root, "debug.log", "ignored\n")
    write(root, "build/out.o", b"\x00ignored")
    write(root, "secret.env", "TOKEN=changed\n")
    write(root, ".holon/staged/SKILL.md", "placed by holon\n")
    write(root, "AGENTS.md", "placed by holon\n")
    (root / "link-in").unlink()
    write(root, "link-in", "was a symlink, now a file\n")
    (root / "becomes-dir").unlink()
    write(root, "becomes-dir/inside.txt", "now a directory\n")
    write(root, "odd name\twith tab \u00e9\nand newline.txt", "odd\n")


CHANGED = [
    "README.md",
    "becomes-dir",
    "becomes-dir/inside.txt",
    "link-in",
    "odd name\twith tab \u00e9\nand newline.txt",
    "data/blob.bin",
    "data/new.bin",
    "deep/new/dir/file.txt",
    "escape",
    "gone.txt",
    "src/util.py",
    "tool.sh",
]
HOLON_PLACED = [".holon", "AGENTS.md"]


def tree_state(root: Path, skip: tuple[str, ...] = (".git",)) -> dict[str, tuple[str, str]]:
    """Every entry under ``root`` as (kind+exec bit, content hash or link target)."""
    state: dict[str, tuple[str, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root)
        dirnames[:] = [d for d in dirnames if (rel_dir / d).as_posix() not in skip]
        for name in [*filenames, *(d for d in dirnames if (Path(dirpath) / d).is_symlink())]:
            rel = (rel_dir / name).as_posix()
            if rel in skip:
                continue
            path = Path(dirpath) / name
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                state[rel] = ("link", os.readlink(path))
            else:
                kind = "exec" if st.st_mode & 0o100 else "file"
                state[rel] = (kind, hashlib.sha256(path.read_bytes()).hexdigest())
    return state


def hash_everything(root: Path) -> dict[str, tuple[int, str]]:
    """Byte-for-byte fingerprint of a directory (used on the user's .git): mode and content."""
    out: dict[str, tuple[int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + dirnames:
            path = Path(dirpath) / name
            st = path.lstat()
            rel = path.relative_to(root).as_posix()
            if stat.S_ISREG(st.st_mode):
                out[rel] = (st.st_mode, hashlib.sha256(path.read_bytes()).hexdigest())
            elif stat.S_ISLNK(st.st_mode):
                out[rel] = (st.st_mode, os.readlink(path))
            else:
                out[rel] = (st.st_mode, "")
    return out


def copy_tree(src: Path, dest: Path) -> None:
    subprocess.run(["cp", "-a", f"{src}/.", str(dest)], check=True)


def apply_patch(target: Path, patch: Path, *, reverse: bool = False) -> None:
    flags = ["-R"] if reverse else []
    proc = subprocess.run(
        ["git", "apply", *flags, str(patch)],
        cwd=target,
        env=hermetic_env(),
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
