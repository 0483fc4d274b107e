"""One real-engine check of what a skill sees at run time, shared by every adapter's tests.

:func:`runtime_task` builds a task whose workspace holds a skill in the engine's own skill
folder requiring ``DEPLOY_PHRASE`` and whose spec passes ``SPEC_PHRASE`` and ``DEPLOY_PHRASE``
(a skill that came with the workspace gets only what the spec passes);
:data:`RUNTIME_SCENARIO` makes the model run one shell command printing the run's
directories and both values (and ``OTHER_PHRASE``, which nobody asked for);
:func:`check_runtime` asserts the engine's command saw exactly that, and that no file holon
wrote holds either value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from holon_core.testing.task import Task, make_task

SKILL_PHRASE = "zebra-quartz-91731-skill"
SPEC_PHRASE = "otter-basalt-55210-spec"
OTHER_PHRASE = "heron-slate-30417-other"
SKILL_NAME = "ws-runtime"
#: What the engine's shell prints; its output comes back to the model in the next request.
COMMAND = (
    'echo "DIRS=$HOLON_INPUT_DIR|$HOLON_WORKSPACE_DIR|$HOLON_OUTPUT_DIR '
    'SKILL=$DEPLOY_PHRASE SPEC=$SPEC_PHRASE OTHER=[$OTHER_PHRASE]"'
)
RUNTIME_SCENARIO = {
    "description": "print the run's directories and passed variables, then answer",
    "turns": [{"run_shell": {"command": COMMAND}}, {"final": {"text": "Printed them."}}],
}


def runtime_env() -> dict[str, str]:
    """The variables set where holon-agent runs (only two of them may pass)."""
    return {"DEPLOY_PHRASE": SKILL_PHRASE, "SPEC_PHRASE": SPEC_PHRASE, "OTHER_PHRASE": OTHER_PHRASE}


def runtime_task(root: Path, skill_folder: str) -> Task:
    """A committed workspace with ``<skill_folder>/ws-runtime/SKILL.md`` (requires.env)."""
    skill_md = (
        f"---\nname: {SKILL_NAME}\ndescription: Prints what the run passes.\n"
        "requires:\n  env: [DEPLOY_PHRASE]\n---\nRun the command you are asked to run.\n"
    )
    return make_task(
        root,
        goal="Print the run's directories.",
        files={"README.md": "hi\n", f"{skill_folder}/{SKILL_NAME}/SKILL.md": skill_md},
        spec_extra={"context": {"pass_env": ["SPEC_PHRASE", "DEPLOY_PHRASE"]}},
    )


def check_runtime(task: Task, manifest: dict[str, Any], model_saw: str, folder: str) -> None:
    """The engine's command saw the dirs and both values, nothing else; holon wrote neither."""
    dirs = "|".join(str(p.absolute()) for p in (task.input, task.workspace, task.output))
    assert f"DIRS={dirs}" in model_saw, model_saw[-2000:]
    assert f"SKILL={SKILL_PHRASE} SPEC={SPEC_PHRASE} OTHER=[]" in model_saw
    for path in task.output.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for value in (SKILL_PHRASE, SPEC_PHRASE):
                assert value.encode() not in data, f"{value} written to {path}"
    meta = manifest["metadata"]
    assert meta["skills_policy"]["workspace_dirs"] == "validated"
    assert folder in meta["skills_policy"]["dirs"]
    native = [s for s in meta["skills"] if s["name"] == SKILL_NAME]
    assert native and native[0]["source"] == "workspace", meta["skills"]
    assert native[0]["native_dir"] == folder and native[0]["staging"] == "native"
