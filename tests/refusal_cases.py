"""Every input ``holon-agent`` refuses before it launches the engine, as one table.

Each case builds a task (spec, skills, workspace, flags, environment) that a run refuses with
``reason``. ``tests/test_probe_parity.py`` feeds every case to both ``holon-agent`` and
``holon-agent --probe`` and holds them to the same reason and the same message, so a refusal
added here is checked on both paths. ``reason`` None: the output dir itself is refused, and
neither path writes a manifest.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holon_core.testing import Task, make_task

WRITE: list[dict[str, Any]] = [{"write": {"path": "ran.txt", "content": "x\n"}}, {"say": "done"}]
SPEC_HEAD = 'version: "v1"\nkind: Holon\n'
#: A YAML document of 9**9 nodes through aliases (tests/test_agent_bad_input.py).
BOMB = "\n".join(
    ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [
        f"{n}: &{n} [{', '.join(['*' + p] * 9)}]"
        for p, n in zip("abcdefgh", "bcdefghi", strict=True)
    ]
)


@dataclass
class Setup:
    """What to run: the task, the engine, extra flags and environment."""

    task: Task
    engine: str | None = "replay"
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Refusal:
    name: str
    reason: str | None
    build: Callable[[Path], Setup]


CASES: list[Refusal] = []


def refusal(reason: str | None) -> Callable[[Callable[[Path], Setup]], Callable[[Path], Setup]]:
    """Register a case under its function's name."""

    def register(build: Callable[[Path], Setup]) -> Callable[[Path], Setup]:
        CASES.append(Refusal(build.__name__, reason, build))
        return build

    return register


def task_with_spec(tmp: Path, text: str) -> Setup:
    task = make_task(tmp / "t", replay=WRITE)
    task.spec.write_text(text, encoding="utf-8")
    return Setup(task)


def task_with(tmp: Path, **spec_extra: Any) -> Setup:
    return Setup(make_task(tmp / "t", replay=WRITE, spec_extra=spec_extra))


def skill_dir(root: Path, name: str, front: str = "", *, body: str = "body\n") -> Path:
    path = root / name
    path.mkdir(parents=True, exist_ok=True)
    text = f"---\nname: {name}\ndescription: test skill {name}\n{front}---\n{body}"
    (path / "SKILL.md").write_text(text, encoding="utf-8")
    return path


# --- invalid_spec: the file, the YAML, the fields (tests/test_agent_bad_input.py,
#     tests/test_spec_loader.py, tests/skills_runtime/test_env_messages.py)


@refusal("invalid_spec")
def timeout_banana(tmp: Path) -> Setup:
    return task_with(tmp, constraints={"timeout": "banana"})


@refusal("invalid_spec")
def timeout_negative(tmp: Path) -> Setup:
    return task_with(tmp, constraints={"timeout": -5})


@refusal("invalid_spec")
def timeout_a_list(tmp: Path) -> Setup:
    return task_with(tmp, constraints={"timeout": ["10m"]})


@refusal("invalid_spec")
def max_steps_a_word(tmp: Path) -> Setup:
    return task_with_spec(tmp, SPEC_HEAD + "goal: x\nconstraints:\n  max_steps: ten\n")


@refusal("invalid_spec")
def max_steps_zero(tmp: Path) -> Setup:
    return task_with(tmp, constraints={"max_steps": 0})


@refusal("invalid_spec")
def constraints_null(tmp: Path) -> Setup:
    return task_with_spec(tmp, SPEC_HEAD + "goal: x\nconstraints:\n")


@refusal("invalid_spec")
def spec_missing(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.task.spec.unlink()
    return setup


@refusal("invalid_spec")
def input_dir_absent(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.args = ["--input", str(tmp / "nowhere")]
    return setup


@refusal("invalid_spec")
def yaml_unclosed(tmp: Path) -> Setup:
    return task_with_spec(tmp, SPEC_HEAD + "goal: [unclosed\n")


@refusal("invalid_spec")
def spec_a_list(tmp: Path) -> Setup:
    return task_with_spec(tmp, "- a list\n")


@refusal("invalid_spec")
def version_unknown(tmp: Path) -> Setup:
    return task_with_spec(tmp, "version: v9\nkind: Holon\ngoal: x\n")


@refusal("invalid_spec")
def kind_unknown(tmp: Path) -> Setup:
    return task_with_spec(tmp, "version: v1\nkind: Robot\ngoal: x\n")


@refusal("invalid_spec")
def goal_missing(tmp: Path) -> Setup:
    return task_with_spec(tmp, SPEC_HEAD)


@refusal("invalid_spec")
def goal_blank(tmp: Path) -> Setup:
    return task_with_spec(tmp, SPEC_HEAD + 'goal: "   "\n')


@refusal("invalid_spec")
def goal_description_empty(tmp: Path) -> Setup:
    return task_with_spec(tmp, SPEC_HEAD + "goal: {description: ''}\n")


@refusal("invalid_spec")
def goal_a_number(tmp: Path) -> Setup:
    return task_with_spec(tmp, SPEC_HEAD + "goal: 42\n")


@refusal("invalid_spec")
def goal_issue_id_a_number(tmp: Path) -> Setup:
    return task_with(tmp, goal={"description": "d", "issue_id": 7})


@refusal("invalid_spec")
def artifact_absolute(tmp: Path) -> Setup:
    return task_with(tmp, output={"artifacts": [{"path": "/etc/x"}]})


@refusal("invalid_spec")
def artifact_escapes(tmp: Path) -> Setup:
    return task_with(tmp, output={"artifacts": [{"path": "a/../../x", "required": True}]})


@refusal("invalid_spec")
def artifact_without_path(tmp: Path) -> Setup:
    return task_with(tmp, output={"artifacts": [{"required": True}]})


@refusal("invalid_spec")
def skills_not_a_list(tmp: Path) -> Setup:
    return task_with(tmp, metadata={"name": "t", "skills": "one"})


@refusal("invalid_spec")
def engine_name_a_list(tmp: Path) -> Setup:
    return task_with(tmp, engine={"name": ["replay"]})


@refusal("invalid_spec")
def several_field_errors(tmp: Path) -> Setup:
    return task_with(tmp, constraints={"timeout": "soon", "max_steps": -1}, metadata=[])


@refusal("invalid_spec")
def yaml_alias_bomb(tmp: Path) -> Setup:
    return task_with_spec(tmp, f"{SPEC_HEAD}goal: x\n{BOMB}\nextra: *i\n")


@refusal("invalid_spec")
def yaml_nested_deep(tmp: Path) -> Setup:
    return task_with_spec(tmp, f"{SPEC_HEAD}goal: x\nextra:\n  {'[' * 5000}x{']' * 5000}\n")


@refusal("invalid_spec")
def spec_oversized(tmp: Path) -> Setup:
    from holon_core.spec.file import MAX_SPEC_BYTES

    return task_with_spec(tmp, f"{SPEC_HEAD}goal: x\n" + "# padding\n" * (MAX_SPEC_BYTES // 10 + 1))


@refusal("invalid_spec")
def spec_a_fifo(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.task.spec.unlink()
    os.mkfifo(setup.task.spec)
    return setup


@refusal("invalid_spec")
def spec_a_directory(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.task.spec.unlink()
    setup.task.spec.mkdir()
    return setup


@refusal("invalid_spec")
def spec_a_link_to_a_device(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.task.spec.unlink()
    setup.task.spec.symlink_to("/dev/zero")
    return setup


@refusal("invalid_spec")
def spec_a_link_loop(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.task.spec.unlink()
    setup.task.spec.symlink_to(setup.task.spec)
    return setup


@refusal("invalid_spec")
def context_env_secret_named(tmp: Path) -> Setup:
    return task_with(tmp, context={"env": {"DEPLOY_TOKEN": "plainvalue-8812"}})


@refusal("invalid_spec")
def context_env_token_value(tmp: Path) -> Setup:
    return task_with(tmp, context={"env": {"SETTING": "ghp_" + "a1B2" * 9}})


@refusal("invalid_spec")
def context_env_holon_name(tmp: Path) -> Setup:
    return task_with(tmp, context={"env": {"HOLON_OUTPUT_DIR": "/elsewhere"}})


@refusal("invalid_spec")
def context_env_bad_names(tmp: Path) -> Setup:
    return task_with_spec(tmp, SPEC_HEAD + "goal: x\ncontext:\n  env: {1: x}\n  pass_env: [2]\n")


@refusal("invalid_spec")
def context_env_not_a_mapping(tmp: Path) -> Setup:
    text = SPEC_HEAD + "goal: x\ncontext:\n  env: [A]\n  pass_env: GITHUB_TOKEN\n"
    return task_with_spec(tmp, text)


@refusal("invalid_spec")
def context_env_value_not_text(tmp: Path) -> Setup:
    return task_with(tmp, context={"env": {"RETRIES": 3}})


@refusal("invalid_spec")
def pass_env_bad_names(tmp: Path) -> Setup:
    return task_with(tmp, context={"pass_env": ["9bad", "HOLON_X", "PATH"]})


# --- unknown_engine, plugin_error


@refusal("unknown_engine")
def engine_flag_unknown(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.engine = "nosuch"
    return setup


@refusal("unknown_engine")
def engine_in_spec_unknown(tmp: Path) -> Setup:
    setup = task_with(tmp, engine={"name": "nosuch"})
    setup.engine = None
    return setup


@refusal("plugin_error")
def plugin_module_missing(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.env = {"HOLON_PLUGINS": "no_such_holon_plugin_module"}
    return setup


# --- preflight: the workspace, the engine binary, credentials


@refusal("invalid_input")
def workspace_missing(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.args = ["--workspace", str(tmp / "no-workspace")]
    return setup


@refusal("engine_missing")
def engine_binary_missing(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.engine = "claude"
    setup.env = {"HOLON_CLAUDE_BIN": str(tmp / "no-claude"), "ANTHROPIC_API_KEY": "sk-test-x"}
    return setup


@refusal("missing_credentials")
def credentials_missing(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.engine = "claude"
    return setup


# --- invalid_skill (tests/skills/test_refusals.py, tests/test_agent_bad_input.py)


@refusal("invalid_skill")
def skill_flag_missing(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.args = ["--skill", str(tmp / "no-such-skill")]
    return setup


@refusal("invalid_skill")
def skill_named_in_spec_missing(tmp: Path) -> Setup:
    return task_with(tmp, metadata={"name": "t", "skills": ["no-such-skill"]})


@refusal("invalid_skill")
def skill_front_matter_broken(tmp: Path) -> Setup:
    skill = skill_dir(tmp / "skills", "bad-skill")
    (skill / "SKILL.md").write_text("---\nname: [bad-skill\n---\nbody\n", encoding="utf-8")
    setup = task_with(tmp)
    setup.args = ["--skill", str(skill)]
    return setup


@refusal("invalid_skill")
def skill_oversize_file(tmp: Path) -> Setup:
    skill = skill_dir(tmp / "skills", "big-skill")
    (skill / "big.bin").write_bytes(b"x" * (256 * 1024 + 1))
    setup = task_with(tmp)
    setup.args = ["--skill", str(skill)]
    return setup


@refusal("invalid_skill")
def skill_links_out(tmp: Path) -> Setup:
    skill = skill_dir(tmp / "skills", "linky")
    (tmp / "secret.txt").write_text("secret\n", encoding="utf-8")
    (skill / "notes.md").symlink_to(tmp / "secret.txt")
    setup = task_with(tmp)
    setup.args = ["--skill", str(skill)]
    return setup


@refusal("invalid_skill")
def skill_name_alias_bomb(tmp: Path) -> Setup:
    skill = tmp / "skills" / "bomb"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\n{BOMB}\nname: *i\ndescription: d\n---\nbody\n")
    setup = task_with(tmp)
    setup.args = ["--skill", str(skill)]
    return setup


@refusal("invalid_skill")
def skill_not_utf8(tmp: Path) -> Setup:
    skill = tmp / "skills" / "latin"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(b"---\nname: latin\ndescription: caf\xe9\n---\nbody\n")
    setup = task_with(tmp)
    setup.args = ["--skill", str(skill)]
    return setup


@refusal("invalid_skill")
def workspace_layer_skill_bad_name(tmp: Path) -> Setup:
    files: dict[str, str | bytes] = {
        ".holon/skills/bad/SKILL.md": "---\nname: Bad_Name\ndescription: d\n---\nb\n"
    }
    return Setup(make_task(tmp / "t", files=files, replay=WRITE))


@refusal("invalid_skill")
def native_skill_folder_bad_skill(tmp: Path) -> Setup:
    files: dict[str, str | bytes] = {
        ".claude/skills/bad/SKILL.md": "---\nname: Bad_Name\ndescription: d\n---\nb\n"
    }
    setup = Setup(make_task(tmp / "t", files=files, replay=WRITE), engine="claude")
    setup.env = {"ANTHROPIC_API_KEY": "sk-test-parity-0001"}
    return setup


@refusal("invalid_skill")
def skill_flags_share_a_name(tmp: Path) -> Setup:
    one = skill_dir(tmp / "a", "twin")
    two = skill_dir(tmp / "b", "twin")
    setup = task_with(tmp)
    setup.args = ["--skill", str(one), "--skill", str(two)]
    return setup


@refusal("invalid_skill")
def native_skill_shares_a_staged_name(tmp: Path) -> Setup:
    files: dict[str, str | bytes] = {
        ".claude/skills/twin/SKILL.md": "---\nname: twin\ndescription: d\n---\nb\n"
    }
    setup = Setup(make_task(tmp / "t", files=files, replay=WRITE), engine="claude")
    setup.args = ["--skill", str(skill_dir(tmp / "skills", "twin"))]
    setup.env = {"ANTHROPIC_API_KEY": "sk-test-parity-0003"}
    return setup


def _archive(tmp: Path, members: dict[str, bytes]) -> tuple[Path, str]:
    from tests.skills.kit import publish, tar_gz

    return tmp / "packed.tar.gz", publish(tmp, "packed.tar.gz", tar_gz(members))


PACKED = b"---\nname: packed\ndescription: Packed skill\nversion: 1.0.0\n---\nSteps.\n"


@refusal("invalid_skill")
def archive_pin_mismatch(tmp: Path) -> Setup:
    path, _ = _archive(tmp, {"packed/SKILL.md": PACKED})
    return task_with(tmp, metadata={"name": "t", "skills": [f"{path}#sha256={'0' * 64}"]})


@refusal("invalid_skill")
def archive_member_leaves_the_package(tmp: Path) -> Setup:
    path, digest = _archive(tmp, {"packed/SKILL.md": PACKED, "../evil.txt": b"evil"})
    return task_with(tmp, metadata={"name": "t", "skills": [f"{path}#sha256={digest}"]})


@refusal("invalid_skill")
def archive_without_a_pin(tmp: Path) -> Setup:
    path, _ = _archive(tmp, {"packed/SKILL.md": PACKED})
    return task_with(tmp, metadata={"name": "t", "skills": [f"{path}#sha256=abc"]})


# --- invalid_input: what the prompt needs


@refusal("invalid_input")
def context_file_missing(tmp: Path) -> Setup:
    return task_with(tmp, context={"files": ["no-such-notes.md"]})


# --- preflight_failed: variables (tests/skills_runtime/)


@refusal("preflight_failed")
def pass_env_not_set(tmp: Path) -> Setup:
    return task_with(tmp, context={"pass_env": ["SPEC_ONLY_PHRASE"]})


@refusal("preflight_failed")
def skill_requires_unset_variable(tmp: Path) -> Setup:
    skill = skill_dir(tmp / "skills", "needs-token", "requires:\n  env: [DEPLOY_PHRASE]\n")
    setup = task_with(tmp)
    setup.args = ["--skill", str(skill)]
    return setup


@refusal("preflight_failed")
def skill_requires_home(tmp: Path) -> Setup:
    skill = skill_dir(tmp / "skills", "homey", "requires:\n  env: [HOME, HOLON_OUTPUT_DIR]\n")
    setup = task_with(tmp)
    setup.args = ["--skill", str(skill)]
    setup.env = {"HOME": str(tmp / "real-home"), "HOLON_OUTPUT_DIR": "/elsewhere"}
    return setup


@refusal("preflight_failed")
def workspace_skill_variable_not_passed(tmp: Path) -> Setup:
    files: dict[str, str | bytes] = {
        ".holon/skills/greedy/SKILL.md": "---\nname: greedy\ndescription: d\n"
        "requires:\n  env: [CLOUD_KEY]\n---\nb\n"
    }
    setup = Setup(make_task(tmp / "t", files=files, replay=WRITE))
    setup.env = {"CLOUD_KEY": "cloud-key-4417-heron"}
    return setup


@refusal("preflight_failed")
def context_env_owned_by_the_adapter(tmp: Path) -> Setup:
    setup = task_with(tmp, context={"env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}})
    setup.engine = "claude"
    setup.env = {"ANTHROPIC_API_KEY": "sk-test-parity-0002"}
    return setup


# --- the model gateway, cassettes (--record, --cassette), budgets (docs/gateway.md,
#     docs/cassettes.md); claude: an engine with a model API

KEY = {"ANTHROPIC_API_KEY": "sk-ant-test-parity-0004"}


def claude_with(tmp: Path, args: list[str], env: dict[str, str] | None = None) -> Setup:
    setup = task_with(tmp)
    setup.engine, setup.args, setup.env = "claude", args, env or {}
    return setup


def cassette(tmp: Path, engine: str = "claude", calls: str = "") -> Path:
    """A cassette of no calls recorded with ``engine`` (``calls``: calls.ndjson's text)."""
    from holon_core.cassette.format import CassetteInfo, EngineRecord, info_text

    root = tmp / f"cassette-{engine}"
    root.mkdir()
    info = CassetteInfo(
        created="2026-11-26T19:00:00Z",
        holon_version="0.0.0",
        engine=EngineRecord(name=engine),
        spec={"version": "v1", "kind": "Holon", "goal": "g"},
        outcome="success",
        reason="ok",
        calls=0,
    )
    (root / "cassette.json").write_text(info_text(info), encoding="utf-8")
    (root / "calls.ndjson").write_text(calls, encoding="utf-8")
    return root


@refusal("invalid_input")
def max_cost_not_a_number(tmp: Path) -> Setup:
    return claude_with(tmp, ["--max-cost", "abc"], KEY)


@refusal("invalid_input")
def max_cost_negative(tmp: Path) -> Setup:
    return claude_with(tmp, ["--max-cost", "-1"], KEY)


@refusal("invalid_input")
def max_cost_without_a_gateway(tmp: Path) -> Setup:
    """An engine holon cannot meter (the generic acp engine without HOLON_ACP_MODEL_API)."""
    setup = task_with(tmp)
    setup.engine, setup.args = "acp", ["--max-cost", "1"]
    setup.env = {"HOLON_ACP_COMMAND": "true"}
    return setup


@refusal("invalid_input")
def max_cost_for_a_model_nobody_prices(tmp: Path) -> Setup:
    return claude_with(tmp, ["--max-cost", "1", "--model", "house-model-x"], KEY)


@refusal("invalid_input")
def spec_cost_budget_for_a_model_nobody_prices(tmp: Path) -> Setup:
    setup = task_with(
        tmp,
        engine={"model": "house-model-x"},
        constraints={"budget": {"max_cost_usd": 1}},
    )
    setup.engine, setup.env = "claude", KEY
    return setup


@refusal("invalid_input")
def max_cost_for_a_model_from_holon_model(tmp: Path) -> Setup:
    return claude_with(tmp, ["--max-cost", "1"], {**KEY, "HOLON_MODEL": "house-model-x"})


@refusal("invalid_input")
def record_with_the_gateway_off(tmp: Path) -> Setup:
    return claude_with(tmp, ["--record", str(tmp / "rec")], {**KEY, "HOLON_GATEWAY": "off"})


@refusal("invalid_input")
def record_into_a_file(tmp: Path) -> Setup:
    (tmp / "a-file").write_text("x\n", encoding="utf-8")
    return claude_with(tmp, ["--record", str(tmp / "a-file")], KEY)


@refusal("invalid_input")
def cassette_dir_missing(tmp: Path) -> Setup:
    return claude_with(tmp, ["--cassette", str(tmp / "no-cassette")])


@refusal("invalid_input")
def cassette_a_file(tmp: Path) -> Setup:
    (tmp / "a-file").write_text("x\n", encoding="utf-8")
    return claude_with(tmp, ["--cassette", str(tmp / "a-file")])


@refusal("invalid_input")
def cassette_info_not_json(tmp: Path) -> Setup:
    root = cassette(tmp)
    (root / "cassette.json").write_text("{damaged", encoding="utf-8")
    return claude_with(tmp, ["--cassette", str(root)])


@refusal("invalid_input")
def cassette_calls_damaged(tmp: Path) -> Setup:
    root = cassette(tmp, calls='{"seq": "first"}\n')
    return claude_with(tmp, ["--cassette", str(root)])


@refusal("invalid_input")
def cassette_body_missing(tmp: Path) -> Setup:
    call = {"seq": 0, "api": "anthropic-messages", "kind": "model", "method": "POST"}
    call |= {"path": "/v1/messages", "request": {"size": 9, "sha256": "ab" * 32}}
    root = cassette(tmp, calls=json.dumps(call | {"started_ms": 0}) + "\n")
    return claude_with(tmp, ["--cassette", str(root)])


@refusal("invalid_input")
def cassette_of_another_engine(tmp: Path) -> Setup:
    return claude_with(tmp, ["--cassette", str(cassette(tmp, "codex"))])


@refusal("invalid_input")
def cassette_mode_unknown(tmp: Path) -> Setup:
    root = cassette(tmp)
    return claude_with(tmp, ["--cassette", str(root)], {"HOLON_CASSETTE_MODE": "banana"})


@refusal("invalid_input")
def cassette_and_record_both(tmp: Path) -> Setup:
    args = ["--cassette", str(cassette(tmp)), "--record", str(tmp / "rec")]
    return claude_with(tmp, args)


@refusal("invalid_input")
def cassette_for_an_engine_without_a_model_api(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.args = ["--cassette", str(cassette(tmp, "replay"))]
    return setup


@refusal("invalid_input")
def cassette_with_the_gateway_off(tmp: Path) -> Setup:
    root = cassette(tmp)
    return claude_with(tmp, ["--cassette", str(root)], {"HOLON_GATEWAY": "off"})


# --- the generic ACP engine's settings (docs/acp.md)


def acp_with(tmp: Path, **env: str) -> Setup:
    setup = task_with(tmp)
    setup.engine, setup.env = "acp", {"HOLON_ACP_COMMAND": "true --acp", **env}
    return setup


@refusal("invalid_input")
def acp_without_a_command(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.engine = "acp"
    return setup


@refusal("invalid_input")
def acp_spec_command_not_words(tmp: Path) -> Setup:
    setup = task_with(tmp, engine={"name": "acp", "command": 5})
    setup.engine = "acp"
    return setup


@refusal("engine_missing")
def acp_spec_command_not_found(tmp: Path) -> Setup:
    setup = task_with(tmp, engine={"name": "acp", "command": [str(tmp / "no-agent"), "--acp"]})
    setup.engine = "acp"
    return setup


@refusal("invalid_input")
def acp_command_not_shell_words(tmp: Path) -> Setup:
    return acp_with(tmp, HOLON_ACP_COMMAND='agent "unclosed')


@refusal("engine_missing")
def acp_command_not_found(tmp: Path) -> Setup:
    return acp_with(tmp, HOLON_ACP_COMMAND=str(tmp / "no-such-agent"))


@refusal("invalid_input")
def acp_model_api_unknown(tmp: Path) -> Setup:
    return acp_with(tmp, HOLON_ACP_MODEL_API="smoke-signals", HOLON_ACP_BASE_URL_ENV="X_URL")


@refusal("invalid_input")
def acp_pass_env_bad_name(tmp: Path) -> Setup:
    return acp_with(tmp, HOLON_ACP_PASS_ENV="9BAD")


@refusal("invalid_input")
def acp_permission_unknown(tmp: Path) -> Setup:
    return acp_with(tmp, HOLON_ACP_PERMISSION="maybe")


@refusal("invalid_input")
def acp_profile_permission_unknown(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.engine = "acp-claude"
    setup.env = {**KEY, "HOLON_ACP_PERMISSION": "maybe"}
    return setup


# --- the output dir (no manifest on either path)


@refusal(None)
def output_inside_the_workspace(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.args = ["--output", str(setup.task.workspace)]
    return setup


@refusal(None)
def output_not_writable(tmp: Path) -> Setup:
    setup = task_with(tmp)
    (tmp / "a-file").write_text("not a dir", encoding="utf-8")
    setup.args = ["--output", str(tmp / "a-file" / "out")]
    return setup


@refusal(None)
def output_holds_a_users_files(tmp: Path) -> Setup:
    setup = task_with(tmp)
    (setup.task.output / "notes.txt").write_text("the user's\n", encoding="utf-8")
    return setup


# --- the engine's room (docs/sandbox.md) ---------------------------------------------------


def bwrap_without_namespaces(tmp: Path) -> str:
    """A bwrap as a machine without user namespaces has it: it runs, and cannot build a room."""
    fake = tmp / "bwrap-no-userns"
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --version ]; then echo "bubblewrap 0.11.0"; exit 0; fi\n'
        'echo "bwrap: No permissions to create new namespace" >&2; exit 1\n',
        encoding="utf-8",
    )
    fake.chmod(0o755)
    return str(fake)


@refusal("sandbox_unavailable")
def sandbox_on_a_machine_without_user_namespaces(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.env = {"HOLON_BWRAP": bwrap_without_namespaces(tmp)}
    return setup


@refusal("invalid_input")
def sandbox_setting_neither_on_nor_off(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.env = {"HOLON_SANDBOX": "maybe"}
    return setup


@refusal("invalid_input")
def allowed_host_that_is_no_host(tmp: Path) -> Setup:
    setup = task_with(tmp)
    setup.args = ["--allow-host", "https://example.com/path"]
    return setup
