"""Pinned skill archives: ``URL-or-path#sha256=HEX`` fetched, verified, then unpacked safely.

The digest is of the archive file and is checked before a single member is read. Unpacking
writes every file itself (never ``extractall``): absolute names, ``..``, links, hard links
and devices are refused, the caps of a skill package are applied from the headers and again
while reading, and the archive holds one top-level directory or a flat skill.
"""

from __future__ import annotations

import hashlib
import io
import re
import shutil
import stat
import tarfile
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from holon_core.errors import SkillError
from holon_core.skill.package import MAX_FILE, MAX_FILES, MAX_PACKAGE, MAX_SKILL_MD
from holon_core.untrusted.quoting import clip

#: An archive larger than this is refused before it is hashed (compressed, so below this).
MAX_ARCHIVE = 2 * MAX_PACKAGE
FETCH_TIMEOUT = 30.0
_HEX = re.compile(r"^[0-9a-f]{64}$")


def split_pin(ref: str) -> tuple[str, str]:
    """``(location, hex)`` of a pinned reference; the digest must be 64 lowercase hex digits."""
    location, _, digest = ref.partition("#sha256=")
    digest = digest.lower()
    if not location or not _HEX.match(digest):
        raise SkillError(
            f"skill archive reference {clip(ref)} has no valid pin",
            hint="write it as URL-or-path#sha256=<64 hex digits> (sha256sum prints it)",
        )
    return location, digest


def is_url(location: str) -> bool:
    return urllib.parse.urlsplit(location).scheme in ("http", "https", "file")


def fetch(location: str, base: Path | None = None) -> bytes:
    """The archive's bytes from a URL (http, https, file) or a path (relative to ``base``)."""
    if is_url(location):
        return _download(location)
    path = Path(location).expanduser()
    if not path.is_absolute() and base is not None:
        path = base / path
    if not path.is_file():
        raise SkillError(f"skill archive {path} does not exist", hint="check the path")
    if path.stat().st_size > MAX_ARCHIVE:
        raise SkillError(
            f"skill archive {path} is over {MAX_ARCHIVE} bytes (archive size cap)",
            hint="a skill package holds at most 1 MiB",
        )
    return path.read_bytes()


def _download(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT) as response:
            length = response.headers.get("Content-Length")
            if length and length.isdigit() and int(length) > MAX_ARCHIVE:
                raise SkillError(
                    f"skill archive {clip(url)} is {length} bytes (archive size cap)",
                    hint=f"the limit is {MAX_ARCHIVE} bytes",
                )
            data: bytes = response.read(MAX_ARCHIVE + 1)
    except OSError as exc:  # URLError, timeouts, refused connections
        raise SkillError(
            f"skill archive {clip(url)} could not be fetched: {exc}",
            hint="check the URL and the network, or download it and pin the path",
        ) from None
    if len(data) > MAX_ARCHIVE:
        raise SkillError(
            f"skill archive {clip(url)} is over {MAX_ARCHIVE} bytes (archive size cap)",
            hint="a skill package holds at most 1 MiB",
        )
    return data


def verify(data: bytes, digest: str, location: str) -> None:
    actual = hashlib.sha256(data).hexdigest()
    if actual != digest:
        raise SkillError(
            f"skill archive {clip(location)}: sha256 mismatch: the pin says {digest}, "
            f"the archive is {actual}",
            hint="the archive changed since it was pinned; check its origin, then re-pin",
        )


def materialize(ref: str, *, base: Path, dest: Path, cache: Path | None = None) -> Path:
    """Fetch (or take the runner's copy from ``cache``), verify and unpack ``ref``; the skill's
    directory under ``dest``."""
    location, digest = split_pin(ref)
    cached = cache / digest if cache is not None else None
    runner_copy = cached is not None and cached.is_file()
    data = cached.read_bytes() if cached is not None and runner_copy else fetch(location, base)
    verify(data, digest, location)
    return unpack(data, dest / digest, location)


def unpack(data: bytes, dest: Path, label: str) -> Path:
    """Unpack a verified archive into ``dest``; returns the skill's directory."""
    members = dict(_members(data, label))
    root = _package_root(members, label)
    name = _front_matter_name(members.get(f"{root}SKILL.md" if root else "SKILL.md"))
    target = dest / (name or "skill")
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for rel, (content, mode) in sorted(members.items()):
        if content is None or not rel.startswith(root):
            continue
        path = target / rel[len(root) :]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        path.chmod(0o755 if mode & 0o111 else 0o644)
    return target


Member = tuple[str, tuple[bytes | None, int]]


def _members(data: bytes, label: str) -> Iterator[Member]:
    if data[:2] == b"\x1f\x8b":
        yield from _tar_members(data, label)
    elif data[:4] == b"PK\x03\x04":
        yield from _zip_members(data, label)
    else:
        raise SkillError(
            f"skill archive {clip(label)} is neither .tar.gz nor .zip",
            hint="pack the skill with tar -czf or zip",
        )


class _Caps:
    def __init__(self, label: str) -> None:
        self.label, self.total, self.count = label, 0, 0

    def name(self, raw: str) -> str:
        rel = raw.removeprefix("./").rstrip("/")
        parts = PurePosixPath(rel).parts
        if raw.startswith("/") or "\\" in raw or ".." in parts or not rel:
            raise SkillError(
                f"skill archive {clip(self.label)}: member {clip(raw)} leaves the package "
                "(absolute path or ..)",
                hint="pack the skill with relative paths only",
            )
        return rel

    def file(self, rel: str, size: int) -> int:
        limit = MAX_SKILL_MD if rel.endswith("SKILL.md") else MAX_FILE
        self.total += size
        self.count += 1
        if size > limit or self.total > MAX_PACKAGE or self.count > MAX_FILES:
            raise SkillError(
                f"skill archive {clip(self.label)}: {clip(rel)} is over the package caps",
                hint=f"a file {MAX_FILE} bytes (SKILL.md {MAX_SKILL_MD}), a package "
                f"{MAX_PACKAGE} bytes and {MAX_FILES} files",
            )
        return limit

    def refuse(self, raw: str, kind: str) -> SkillError:
        return SkillError(
            f"skill archive {clip(self.label)}: member {clip(raw)} is a {kind}",
            hint="a skill archive holds regular files and directories only",
        )

    def read(self, stream: io.BufferedIOBase | None, rel: str, limit: int) -> bytes:
        content = stream.read(limit + 1) if stream is not None else b""
        if len(content) > limit:
            raise SkillError(
                f"skill archive {clip(self.label)}: {clip(rel)} is larger than its header says",
                hint="the archive is corrupt; re-pack it",
            )
        return content


def _tar_members(data: bytes, label: str) -> Iterator[Member]:
    caps = _Caps(label)
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for info in tar:
                rel = caps.name(info.name)
                if info.isdir():
                    yield rel, (None, 0)
                    continue
                if not info.isreg():
                    kind = "link" if info.issym() or info.islnk() else "special file"
                    raise caps.refuse(info.name, kind)
                limit = caps.file(rel, info.size)
                content = caps.read(tar.extractfile(info), rel, limit)  # type: ignore[arg-type]
                yield rel, (content, info.mode)
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise SkillError(
            f"skill archive {clip(label)} is not a readable .tar.gz: {exc}",
            hint="re-pack it with tar -czf",
        ) from None


def _zip_members(data: bytes, label: str) -> Iterator[Member]:
    caps = _Caps(label)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                rel = caps.name(info.filename)
                mode = info.external_attr >> 16
                if info.is_dir():
                    yield rel, (None, 0)
                    continue
                if stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # 0: no type recorded
                    raise caps.refuse(info.filename, "link or special file")
                limit = caps.file(rel, info.file_size)
                with archive.open(info) as stream:
                    content = caps.read(stream, rel, limit)  # type: ignore[arg-type]
                yield rel, (content, mode)
    except (zipfile.BadZipFile, OSError, RuntimeError) as exc:
        raise SkillError(
            f"skill archive {clip(label)} is not a readable .zip: {exc}",
            hint="re-pack it with zip -r",
        ) from None


def _package_root(members: dict[str, tuple[bytes | None, int]], label: str) -> str:
    """``""`` for a flat skill, ``"top/"`` for one top-level directory."""
    if "SKILL.md" in members:
        return ""
    tops = {rel.split("/", 1)[0] for rel in members}
    if len(tops) == 1:
        top = tops.pop()
        if f"{top}/SKILL.md" in members:
            return f"{top}/"
    raise SkillError(
        f"skill archive {clip(label)} holds no SKILL.md at its top or in one top-level directory",
        hint="pack one skill: its SKILL.md at the top, or in a single directory",
    )


def _front_matter_name(entry: tuple[bytes | None, int] | None) -> str | None:
    """The ``name:`` line of SKILL.md, for the directory name; load_skill validates it."""
    if entry is None or entry[0] is None:
        return None
    for line in entry[0].decode("utf-8", "replace").splitlines()[1:40]:
        key, _, value = line.partition(":")
        if key.strip() == "name":
            name = value.strip().strip("'\"")
            return name if re.fullmatch(r"[a-z0-9-]{1,64}", name) else None
    return None
