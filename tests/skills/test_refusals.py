"""Bad skills are refused before the engine starts, naming the skill and the rule; pinned
archives over HTTP (a local server) and the store's immutability, through the real commands."""

from __future__ import annotations

import io
import threading
import zipfile
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from holon_core.testing import make_task, run_agent

from .kit import holon, make_skill, publish, tar_gz

SKILL_MD = b"---\nname: packed\ndescription: Packed skill\nversion: 1.0.0\n---\nSteps.\n"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A directory served over HTTP on 127.0.0.1, and its base URL."""
    root = tmp_path / "www"
    root.mkdir()
    handler = partial(SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def flat_zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buf.getvalue()


def _bad_flag(tmp: Path, kind: str) -> Path:
    skill = make_skill(tmp / "bad", "bad-skill")
    if kind == "oversize":
        (skill / "big.bin").write_bytes(b"x" * (256 * 1024 + 1))
    elif kind == "front_matter":
        (skill / "SKILL.md").write_text("---\nname: [bad-skill\n---\nbody\n")
    elif kind == "link_out":
        (tmp / "secret.txt").write_text("secret\n")
        (skill / "notes.md").unlink()
        (skill / "notes.md").symlink_to(tmp / "secret.txt")
    return skill


@pytest.mark.parametrize(
    ("kind", "rule"),
    [
        ("oversize", "big.bin is 262145 bytes (file size cap)"),
        ("front_matter", "SKILL.md: front matter is not valid YAML"),
        ("link_out", "notes.md links out of its skill"),
        ("traversal", "member '../evil.txt' leaves the package"),
        ("sha256", "sha256 mismatch"),
    ],
)
def test_bad_skill_refused_before_the_engine(
    tmp_path: Path, served: tuple[Path, str], kind: str, rule: str
) -> None:
    args: list[str] = []
    refs: list[str] = []
    if kind in ("traversal", "sha256"):
        root, url = served
        members = {"packed/SKILL.md": SKILL_MD}
        if kind == "traversal":
            members["../evil.txt"] = b"evil"
        digest = publish(root, "packed.tar.gz", tar_gz(members))
        refs = [f"{url}/packed.tar.gz#sha256={'0' * 64 if kind == 'sha256' else digest}"]
    else:
        args = ["--skill", str(_bad_flag(tmp_path, kind))]
    spec = {"metadata": {"name": "t", "skills": refs}}
    replay = [{"write": {"path": "ran.txt", "content": "x"}}]
    task = make_task(tmp_path / "t", spec_extra=spec, replay=replay)
    result = run_agent(task, env={"HOME": str(tmp_path)}, args=args)
    assert (result.exit_code, result.reason) == (1, "invalid_skill"), result.stderr
    error = result.manifest["error"]  # type: ignore[index]
    assert rule in error
    assert ("bad-skill" if args else "packed.tar.gz") in error  # names the skill
    assert not (task.workspace / "ran.txt").exists()  # the engine never ran


def test_pinned_zip_over_http_is_staged_and_stored_immutably(
    tmp_path: Path, served: tuple[Path, str]
) -> None:
    root, url = served
    digest = publish(root, "packed.zip", flat_zip({"SKILL.md": SKILL_MD, "ref.md": b"r\n"}))
    ref = f"{url}/packed.zip#sha256={digest}"
    task = make_task(
        tmp_path / "t", spec_extra={"metadata": {"name": "t", "skills": [ref]}}, replay=[]
    )
    result = run_agent(task, env={"HOME": str(tmp_path)})
    assert result.exit_code == 0, result.stderr
    (record,) = result.manifest["metadata"]["skills"]  # type: ignore[index]
    assert (record["name"], record["source"], record["origin"]) == ("packed", "spec", ref)

    added = holon(tmp_path, ["skills", "add", ref, "--json"])
    assert added.exit_code == 0, added.stderr
    assert added.json["added"] is True and added.json["skill"]["sha256"] == record["sha256"]
    stored = Path(added.json["path"])
    assert stored == tmp_path / "data" / "holon" / "skills" / "packed" / "1.0.0"
    assert not (stored / "SKILL.md").stat().st_mode & 0o222  # read-only
    again = holon(tmp_path, ["skills", "add", ref, "--json"])
    assert (again.exit_code, again.json["added"]) == (0, False)  # same content: no-op

    other = make_skill(tmp_path / "other", "packed", version="1.0.0", body="Other steps.\n")
    clash = holon(tmp_path, ["skills", "add", str(other)])
    assert clash.exit_code == 1
    assert "packed@1.0.0 is already in the store with other content" in clash.stderr
    assert record["sha256"] in clash.stderr  # both hashes named

    listed = holon(tmp_path, ["skills", "list", "--workspace", str(task.workspace), "--json"])
    assert listed.json["store"] == ["packed@1.0.0"]
    gone = holon(tmp_path, ["skills", "remove", "packed@1.0.0", "--json"])
    assert gone.json["removed"] == ["packed@1.0.0"] and not stored.exists()
