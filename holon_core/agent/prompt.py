"""Step 6: the prompt — ``prompts/system.md`` and ``prompts/user.md`` when the runner gave
them, otherwise compiled from the goal, the context files and the contract.

A runner's own ``system.md`` replaces holon's contract text but not the facts of the run:
a short footer (:data:`FOOTER`) still says where the input, workspace and output are and
that the engine has them as ``HOLON_*_DIR`` variables, so a skill's instructions that say
"write X to ``$HOLON_OUTPUT_DIR``" work whoever wrote the system prompt."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.engine.adapter import Prompt
from holon_core.errors import InputError

if TYPE_CHECKING:  # the probe checks context files through this module, without pydantic
    from holon_core.models.spec import Spec

MAX_CONTEXT_FILE = 64 * 1024
MAX_CONTEXT_TOTAL = 256 * 1024
_SKIP = {"replay.yaml"}

CONTRACT = """You are running headless inside holon: nobody can answer questions, so do not ask.
Work only inside the workspace {workspace}; it is your current directory.
When you are done, write a short report to {output}/summary.md: what you changed, how you
checked it, and what is left. Do not write files anywhere else outside the workspace.
Do not commit, push, change branches or edit git configuration: holon records your changes
as a patch itself.
Your environment names the run's directories: HOLON_WORKSPACE_DIR, HOLON_OUTPUT_DIR (where
skills write their files) and HOLON_INPUT_DIR (the task's input; read-only)."""

#: Appended to a runner-supplied ``prompts/system.md``: the run's facts, not holon's rules.
FOOTER = """

---
Run directories (also in your environment): input {input} (HOLON_INPUT_DIR, read-only),
workspace {workspace} (HOLON_WORKSPACE_DIR, your current directory), output {output}
(HOLON_OUTPUT_DIR: write the files you produce here)."""


def compile_prompt(spec: Spec, input_dir: Path, workspace: Path, output: Path) -> Prompt:
    prompts = input_dir / "prompts"
    system_file, user_file = prompts / "system.md", prompts / "user.md"
    contract = CONTRACT.format(workspace=workspace, output=output)
    system = contract
    if system_file.is_file():
        footer = FOOTER.format(input=input_dir, workspace=workspace, output=output)
        system = system_file.read_text(encoding="utf-8").rstrip("\n") + footer
    if user_file.is_file():
        return Prompt(system=system, user=user_file.read_text(encoding="utf-8"), source="input")
    return Prompt(system=system, user=_user_prompt(spec, input_dir / "context", workspace))


def _user_prompt(spec: Spec, context_dir: Path, workspace: Path) -> str:
    parts = [f"# Task\n\n{spec.goal_text.strip()}"]
    issue = getattr(spec.goal, "issue_id", None)
    if issue:
        parts.append(f"Issue: {issue}")
    files = _context_files(spec, context_dir, workspace)
    if files:
        parts.append("# Context\n")
        used = 0
        for path, label in files:
            with path.open("rb") as handle:  # never read a huge log whole
                data = handle.read(MAX_CONTEXT_FILE)
            if used + len(data) > MAX_CONTEXT_TOTAL or b"\x00" in data:
                parts.append(f"- {label} (not inlined; read it from {path})")
                continue
            used += len(data)
            text = data.decode("utf-8", errors="replace")
            parts.append(f"## {label}\n\n```\n{text.rstrip()}\n```")
    return "\n\n".join(parts) + "\n"


def named_context_files(
    names: Iterable[str], context_dir: Path, workspace: Path
) -> list[tuple[Path, str]]:
    """``(path, name)`` of each file ``context.files`` names; :class:`InputError` for one
    that is in neither the input's ``context/`` nor the workspace (run and probe alike)."""
    found = []
    for name in names:
        for base in (context_dir, workspace):
            if (base / name).is_file():
                found.append((base / name, name))
                break
        else:
            raise InputError(
                f"context file {name!r} (spec context.files) is in neither {context_dir} "
                f"nor {workspace}",
                hint="add it to the input's context/ directory or fix the name",
            )
    return found


def _context_files(spec: Spec, context_dir: Path, workspace: Path) -> list[tuple[Path, str]]:
    if spec.context.files:
        return named_context_files(spec.context.files, context_dir, workspace)
    if not context_dir.is_dir():
        return []
    return [
        (path, str(path.relative_to(context_dir)))
        for path in sorted(context_dir.rglob("*"))
        if path.is_file() and path.name not in _SKIP
    ]
