"""What ``holon run`` forwards, end to end through the real ``holon`` -> ``holon-agent`` ->
replay engine: the spec's ``context.pass_env`` and a skill's ``requires.env`` reach the
engine, a variable nobody named does not, no value lands in any file of the run dir, and a
missing one stops the run before the engine, naming the skill and the variable."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.runner.kit import Ran, holon_run, make_workspace, write, write_task

VALUES = {
    "ACME_TOKEN": "acme-7f3c2e91-spec",  # context.pass_env
    "OTHER_TOKEN": "other-52d8a0b4-skill",  # requires.env of the skill
    "OTHER_PHRASE": "gannet-flint-20931",  # requires.env too; a name redaction alone misses
}
UNASKED = {"UNREQ_TOKEN": "unreq-0c1d9e77-nobody"}
ORDER = ("ACME_TOKEN", "OTHER_TOKEN", "OTHER_PHRASE", "UNREQ_TOKEN")
#: The engine's shell prints every value (holon must redact it from the events) and writes
#: their sha256 to the output dir (a value there would make the run needs_human).
HASHES = " ".join(f'"${name}"' for name in ORDER)
STEPS = [
    {"run": "echo " + " ".join(f"{name}=[${name}]" for name in ORDER)},
    {"run": f"for v in {HASHES}; do printf %s \"$v\" | sha256sum | cut -c1-64; done"
     " > {output}/seen.txt"},
    {"say": "done"},
]  # fmt: skip
SKILL_MD = (
    "---\nname: publisher\ndescription: publishes\n"
    "requires:\n  env: [OTHER_TOKEN, OTHER_PHRASE]\n---\nPublish.\n"
)


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _run(tmp: Path, env: dict[str, str]) -> tuple[Ran, Path]:
    ws = make_workspace(tmp / "ws", "plain")
    # Another engine's own skill folder, broken: replay declares no such folder, so no rule.
    write(ws, ".claude/skills/bad/SKILL.md", "---\nname: [x]\n---\n")
    spec = write_task(tmp / "task", STEPS, extra={"context": {"pass_env": ["ACME_TOKEN"]}})
    write(tmp, "publisher/SKILL.md", SKILL_MD)
    args = [str(spec), "--workspace", str(ws), "--engine", "replay", "--json"]
    ran = holon_run(tmp, [*args, "--skill", str(tmp / "publisher")], env)
    return ran, Path(ran.json["paths"]["run_dir"])


def _assert_no_value_written(ran: Ran, run_dir: Path) -> None:
    for value in (*VALUES.values(), *UNASKED.values()):
        assert value not in ran.stdout and value not in ran.stderr
        for path in run_dir.rglob("*"):
            if path.is_file() and not path.is_symlink():
                assert value.encode() not in path.read_bytes(), f"{value} in {path}"


def test_holon_run_forwards_exactly_pass_env_and_requires_env(tmp_path: Path) -> None:
    ran, run_dir = _run(tmp_path, {**VALUES, **UNASKED})
    result = ran.json
    assert (ran.exit_code, result["reason"]) == (0, "ok"), ran.stdout + ran.stderr
    seen = (run_dir / "output" / "seen.txt").read_text().split()
    expected = [_digest(VALUES[name]) for name in ORDER[:3]] + [_digest("")]
    assert seen == expected, "the engine saw other values than those passed"
    events = (run_dir / "output" / "evidence" / "events.ndjson").read_text()
    assert "UNREQ_TOKEN=[]" in events and "OTHER_PHRASE=[***REDACTED***]" in events
    manifest = json.loads((run_dir / "output" / "manifest.json").read_text())
    assert manifest["metadata"]["skills_policy"] == {"workspace_dirs": "validated", "dirs": []}
    assert (run_dir / "runner.json").is_file() and (run_dir / "agent.stderr.log").is_file()
    _assert_no_value_written(ran, run_dir)


def test_holon_run_missing_required_variable_fails_before_the_engine(tmp_path: Path) -> None:
    env = {name: value for name, value in VALUES.items() if name != "OTHER_PHRASE"}
    ran, run_dir = _run(tmp_path, {**env, **UNASKED})
    result = ran.json
    assert (ran.exit_code, result["reason"]) == (1, "preflight_failed"), ran.stdout
    assert "skill publisher requires OTHER_PHRASE, which is not set" in result["error"]
    manifest = json.loads((run_dir / "output" / "manifest.json").read_text())
    assert "process" not in manifest["metadata"], "the engine was started"
    assert not (run_dir / "output" / "seen.txt").exists()
    _assert_no_value_written(ran, run_dir)
