"""Skills reach Codex through the run-local home, and the user's own ~/.codex never does."""

from __future__ import annotations

from pathlib import Path

from codex_kit import MODEL, ManifestCheck, Provider, run_codex

from holon_core.testing import Task, make_task, snapshot_tree

SKILL_BODY_MARKER = "PROBE-SKILL-BODY-7f3a"


def _skill_task(root: Path) -> Task:
    skill = (
        "---\nname: probe-skill\ndescription: Probe skill for the codex adapter tests.\n---\n"
        f"When asked, say {SKILL_BODY_MARKER}.\n"
    )
    return make_task(
        root,
        goal="Use probe-skill",
        files={"README.md": "hi\n"},
        spec_extra={"metadata": {"name": "test", "skills": ["probe-skill"]}},
        context={"probe-skill/SKILL.md": skill},
    )


def test_skill_is_staged_listed_and_recorded(
    tmp_path: Path,
    provider: Provider,
    valid_manifest: ManifestCheck,
    no_leftover_processes: set[int],
) -> None:
    task = _skill_task(tmp_path / "task")
    server = provider("use-skill")
    result = run_codex(task, server)

    manifest = valid_manifest(result)
    assert result.exit_code == 0, result.stderr
    [record] = manifest["metadata"]["skills"]
    assert record["name"] == "probe-skill"
    assert record["staging"] == "native"
    assert record["seen_by_engine"] is True
    turns = server.turn_requests()
    # Listed in Codex's developer message, from the run-local CODEX_HOME/skills ...
    first = turns[0].text()
    assert "- probe-skill: Probe skill for the codex adapter tests." in first
    assert f"{task.state}" in first.split("<skills_instructions>")[1].split("probe-skill")[0]
    # ... and read by the model's shell call: the body came back as a tool result.
    assert SKILL_BODY_MARKER in turns[-1].text()
    # Nothing was staged into the workspace.
    assert not (task.workspace / ".agents").exists()
    assert not (task.workspace / ".codex").exists()


def _planted_home(root: Path, marker: str) -> Path:
    """A user HOME whose Codex config, instructions and skills must not reach the run."""
    codex = root / ".codex"
    (codex / "skills" / "planted-skill").mkdir(parents=True)
    (codex / "config.toml").write_text(
        f'model = "{marker}-model"\nmodel_provider = "planted"\n'
        f'developer_instructions = "{marker}-developer"\n'
        "[model_providers.planted]\n"
        'name = "planted"\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "responses"\n',
        encoding="utf-8",
    )
    (codex / "AGENTS.md").write_text(f"Always say {marker}-agents.\n", encoding="utf-8")
    (root / "AGENTS.md").write_text(f"Always say {marker}-home-agents.\n", encoding="utf-8")
    (codex / "skills" / "planted-skill" / "SKILL.md").write_text(
        f"---\nname: planted-skill\ndescription: {marker}-skill\n---\nbody\n", encoding="utf-8"
    )
    agents_skill = root / ".agents" / "skills" / "planted-agents-skill"
    agents_skill.mkdir(parents=True)
    (agents_skill / "SKILL.md").write_text(
        f"---\nname: planted-agents-skill\ndescription: {marker}-skill2\n---\nbody\n", "utf-8"
    )
    return root


def test_planted_user_codex_config_does_not_affect_the_run(
    task: Task, tmp_path: Path, provider: Provider, valid_manifest: ManifestCheck
) -> None:
    marker = "PLANTED-5c1e"
    home = _planted_home(tmp_path / "user-home", marker)
    before = snapshot_tree(home)
    server = provider("write-and-run")
    result = run_codex(task, server, HOME=str(home))

    manifest = valid_manifest(result)
    assert result.exit_code == 0, result.stderr
    assert manifest["metadata"]["engine"]["model"] == MODEL
    requests = server.turn_requests()
    assert requests, "the run did not reach the scripted provider (planted provider used?)"
    for request in requests:
        assert marker not in request.text()
        assert request.body["model"] == MODEL
    assert snapshot_tree(home) == before, "the run wrote into the user's HOME"
