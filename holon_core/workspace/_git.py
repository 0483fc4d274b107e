"""Hermetic git plumbing shared by the baseline, the diff and the snapshot.

Every git call runs with an environment built from scratch (no system or global config, no
pager, no external diff, no inherited ``GIT_*`` variable) so a user's settings can never change
what holon records. Calls into the user's own repository are read-only probes.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from holon_core.errors import WorkspaceError

if TYPE_CHECKING:
    from collections.abc import Sequence

EMPTY_TREE = {
    "sha1": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
}
MARKER = "holon-private-git"
_NO_HOME = "/nonexistent/holon-git-home"
_HIDDEN_FLAGS = re.compile(rb"(?:^|\0)([a-zS]) ")
_NO_COMMIT = re.compile(r"error: '(.+?)/?' does not have a commit checked out")
_MAX_UNBORN = 20
#: File in a private git dir listing nested repositories left out for having no commit.
UNBORN_REPOS = "holon-unborn-repos"


def git_env() -> dict[str, str]:
    """A minimal environment in which only our own config can influence git."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": _NO_HOME,
        "XDG_CONFIG_HOME": _NO_HOME,
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_AUTHOR_NAME": "holon",
        "GIT_AUTHOR_EMAIL": "holon@localhost",
        "GIT_COMMITTER_NAME": "holon",
        "GIT_COMMITTER_EMAIL": "holon@localhost",
    }


def git_binary() -> str:
    found = _which_git(os.environ.get("PATH", os.defpath))
    if found is None:
        raise WorkspaceError("git is not installed", hint="install git 2.30 or newer and retry")
    return found


@functools.lru_cache(maxsize=4)
def _which_git(path: str) -> str | None:
    """Looked up once per PATH: a run calls git ~7 times, each lookup stats every PATH dir."""
    return shutil.which("git", path=path)


def run_git(
    args: Sequence[str],
    *,
    cwd: Path,
    git_dir: Path | None = None,
    work_tree: Path | None = None,
    stdin: bytes | None = None,
    stdout: IO[bytes] | int = subprocess.PIPE,
    check: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """Run one git command; on failure raise WorkspaceError carrying git's own message."""
    cmd = [git_binary()]
    if git_dir is not None:
        cmd.append(f"--git-dir={git_dir}")
    if work_tree is not None:
        cmd.append(f"--work-tree={work_tree}")
    cmd.extend(args)
    proc = subprocess.run(
        cmd,
        cwd=cwd,
        env=git_env(),
        input=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        check=False,
    )
    if check and proc.returncode != 0:
        detail = proc.stderr.decode(errors="replace").strip().splitlines()
        raise WorkspaceError(
            f"git {args[0]} failed in {cwd}: {detail[-1] if detail else f'exit {proc.returncode}'}",
            hint="check that the workspace is readable and git works there (`git status`)",
        )
    return proc


@dataclass(frozen=True)
class RepoInfo:
    """What a read-only probe learns about the repository a workspace sits in."""

    toplevel: Path
    git_dir: Path
    common_dir: Path
    object_format: str
    head: str | None
    head_tree: str | None
    head_ref: str | None  # refs/heads/<name>, or None when HEAD is detached
    assume_unchanged: tuple[bytes, ...] = ()
    skip_worktree: tuple[bytes, ...] = ()


def probe_repo(workspace: Path) -> RepoInfo | None:
    """Describe the repo whose top level is ``workspace``; None for anything else.

    Read-only: rev-parse, and `ls-files -v` (run alongside it to save time) to find index
    entries the user hid from `git add`; neither writes to the user's repo.
    """
    listing = subprocess.Popen(
        [git_binary(), "-c", "core.fsmonitor=false", "ls-files", "-v", "-z"],
        cwd=workspace,
        env=git_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"]
        args = [*base, "--show-object-format", "HEAD", "HEAD^{tree}", "--symbolic-full-name"]
        proc = run_git([*args, "HEAD"], cwd=workspace, check=False)
    finally:
        entries, _ = listing.communicate()
    lines = proc.stdout.decode(errors="surrogateescape").splitlines()
    if proc.returncode != 0 and len(lines) < 4:
        message = proc.stderr.decode(errors="replace")
        if "dubious ownership" in message:
            raise WorkspaceError(
                f"git refuses to read {workspace}: it is owned by another user",
                hint="run holon as the owner of the workspace",
            )
        return None
    toplevel = Path(lines[0])
    if toplevel.resolve() != workspace.resolve():
        return None  # a subdirectory of a repo is recorded as a plain directory
    common = Path(lines[2])
    common = common if common.is_absolute() else (workspace / common)
    head = head_tree = head_ref = None
    if proc.returncode == 0 and len(lines) >= 7:
        head, head_tree = lines[4], lines[5]
        head_ref = lines[6] if lines[6].startswith("refs/") else None
    else:  # unborn branch: HEAD names a ref that does not exist yet
        sym = run_git(["symbolic-ref", "-q", "HEAD"], cwd=workspace, check=False)
        head_ref = sym.stdout.decode(errors="surrogateescape").strip() or None
    hidden = _hidden_entries(entries, workspace) if listing.returncode == 0 else ((), ())
    return RepoInfo(
        toplevel, Path(lines[1]), common.resolve(), lines[3], head, head_tree, head_ref, *hidden
    )


def _hidden_entries(listing: bytes, work_tree: Path) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
    """Assume-unchanged paths, and skip-worktree paths whose file is present after all."""
    if not _HIDDEN_FLAGS.search(listing):
        return (), ()
    valid: list[bytes] = []
    skipped: list[bytes] = []
    for record in listing.split(b"\0"):
        if len(record) < 3:
            continue
        tag, path = record[:1], record[2:]
        if tag.islower():
            valid.append(path)
        if tag in (b"S", b"s") and os.path.lexists(work_tree / os.fsdecode(path)):
            skipped.append(path)
    return tuple(valid), tuple(skipped)


def _config_text(object_format: str) -> str:
    version = "1" if object_format != "sha1" else "0"
    lines = [
        "[core]",
        f"\trepositoryformatversion = {version}",
        "\tbare = false",
        "\tfilemode = true",
        "\tsymlinks = true",
        "\tignorecase = false",
        "\tautocrlf = false",
        "\tsafecrlf = false",
        f"\texcludesFile = {os.devnull}",
        f"\tattributesFile = {os.devnull}",
        f"\thooksPath = {os.devnull}",
        "\tfsmonitor = false",
        "\tsplitIndex = false",
        "\tuntrackedCache = true",
        "\tlogAllRefUpdates = false",
        "[gc]",
        "\tauto = 0",
        "[maintenance]",
        "\tauto = false",
        "[diff]",
        "\trenames = false",
    ]
    if object_format != "sha1":
        lines += ["[extensions]", f"\tobjectFormat = {object_format}"]
    return "\n".join(lines) + "\n"


def init_private(
    git_dir: Path,
    repo: RepoInfo | None,
    extra_excludes: Sequence[str] = (),
    *,
    user_ignores: bool = False,
) -> None:
    """Lay out a private git dir by hand (faster than `git init`, no templates or hooks).

    For a repo, objects are borrowed read-only through alternates and the user's exclude and
    attribute files are copied so ignore rules match what the user's git sees.
    ``user_ignores`` adds the user's global ignore rules: the snapshot needs them (an ignored
    secret must not be copied where the engine can read it), the baseline and diff stay
    hermetic so a user's config can never change the patch.
    """
    for sub in ("objects/info", "objects/pack", "refs/heads", "refs/tags", "info"):
        (git_dir / sub).mkdir(parents=True, exist_ok=True)
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
    (git_dir / MARKER).write_text("created by holon; safe to delete\n")
    object_format = repo.object_format if repo else "sha1"
    (git_dir / "config").write_text(_config_text(object_format))
    exclude = ""
    if repo is not None:
        (git_dir / "objects/info/alternates").write_text(f"{repo.common_dir / 'objects'}\n")
        for name in ("exclude", "attributes"):
            src = repo.common_dir / "info" / name
            if src.is_file():
                if name == "exclude":
                    exclude = src.read_text(errors="surrogateescape")
                else:
                    shutil.copyfile(src, git_dir / "info" / name)
        if user_ignores:
            exclude += "\n" + user_excludes(repo.toplevel)
    if exclude and not exclude.endswith("\n"):
        exclude += "\n"
    exclude += "".join(f"{pattern}\n" for pattern in extra_excludes)
    (git_dir / "info/exclude").write_text(exclude, errors="surrogateescape")


def user_excludes(toplevel: Path) -> str:
    """The user's global ignore rules (``core.excludesFile`` or git's XDG default).

    Everything else of the user's config stays out, but these decide which files the user's
    own git treats as ignored (often secrets such as ``*.env``), so the baseline and the
    snapshot must honour them too. Read-only: git only reports the setting.
    """
    configured = (
        subprocess.run(
            [git_binary(), "config", "--path", "--get", "core.excludesFile"],
            cwd=toplevel,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
            capture_output=True,
            check=False,
        )
        .stdout.decode(errors="surrogateescape")
        .strip()
    )
    if configured:
        path = Path(configured)
    else:
        config_home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        path = Path(config_home) / "git" / "ignore"
    try:
        return path.read_text(errors="surrogateescape")
    except OSError:
        return ""


def adopt_index(repo: RepoInfo, git_dir: Path, work_tree: Path) -> bool:
    """Copy the user's index as our private index so its stat cache spares re-hashing.

    Returns False when there is no index. Entries the user hid from `git add` (assume-unchanged,
    or skip-worktree on a file that is present) are un-hidden in our copy so their changes count.
    """
    src = repo.git_dir / "index"
    if not src.is_file():
        return False
    shutil.copy2(src, git_dir / "index")  # keep mtime: racy-git detection depends on it
    for shared in repo.git_dir.glob("sharedindex.*"):
        shutil.copy2(shared, git_dir / shared.name)
    for flag, paths in (
        ("--no-assume-unchanged", repo.assume_unchanged),
        ("--no-skip-worktree", repo.skip_worktree),
    ):
        if paths:
            run_git(
                ["update-index", flag, "-z", "--stdin"],
                cwd=work_tree,
                git_dir=git_dir,
                work_tree=work_tree,
                stdin=b"\0".join(paths) + b"\0",
            )
    return True


def add_all(git_dir: Path, work_tree: Path) -> None:
    """`git add -A` into the private index; an index git cannot reuse is dropped, not fatal.

    A nested repository without a commit makes `git add` refuse the whole tree; such
    directories are excluded (and listed in :data:`UNBORN_REPOS`) instead of failing the run.
    """
    args = ["add", "-A"]
    for _ in range(_MAX_UNBORN):
        proc = run_git(args, cwd=work_tree, git_dir=git_dir, work_tree=work_tree, check=False)
        if proc.returncode == 0:
            return
        unborn = _NO_COMMIT.findall(proc.stderr.decode(errors="surrogateescape"))
        if not unborn:
            break
        _exclude_unborn(git_dir, unborn)
    (git_dir / "index").unlink(missing_ok=True)
    run_git(args, cwd=work_tree, git_dir=git_dir, work_tree=work_tree)


def unborn_repositories(git_dir: Path) -> list[str]:
    """Nested repositories without a commit that :func:`add_all` had to leave out."""
    path = git_dir / UNBORN_REPOS
    return path.read_text(errors="surrogateescape").splitlines() if path.is_file() else []


def _exclude_unborn(git_dir: Path, paths: Sequence[str]) -> None:
    with (git_dir / "info" / "exclude").open("a", errors="surrogateescape") as exclude:
        exclude.write("".join(f"/{_glob_literal(p)}/\n" for p in paths))
    with (git_dir / UNBORN_REPOS).open("a", errors="surrogateescape") as listed:
        listed.write("".join(f"{p}\n" for p in paths))


def _glob_literal(path: str) -> str:
    """An exclude pattern matching ``path`` literally."""
    return re.sub(r"([*?\[\\!#])", r"\\\1", path)


def exclude_pathspecs(exclude: Sequence[str]) -> list[str]:
    """Turn plain paths or globs (or pathspecs with magic) into exclude pathspecs."""
    specs: list[str] = []
    for item in exclude:
        if item.startswith((":!", ":^", ":(exclude")):
            specs.append(item)
        elif item.startswith(":("):
            specs.append(":(exclude," + item[2:])
        else:
            specs.append(":(exclude)" + item)
    return specs


def relative_inside(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` in posix form, or None when it lies outside."""
    try:
        rel = path.resolve().relative_to(root.resolve())
    except ValueError:
        return None
    return rel.as_posix() if rel.parts else None
