"""The spec a ``holon run`` hands the agent: the user's file, or one written from ``--goal``.

``holon run SPEC`` copies the file byte for byte. ``holon run --goal TEXT`` (no spec file)
writes a v1 spec whose ``goal.description`` is TEXT and whose ``engine`` and ``constraints``
say what ``--engine``, ``--model`` and ``--timeout`` asked, so the kept ``input/spec.yaml``
runs the same task again. ``--goal`` beside a SPEC replaces only the spec's goal text (a flag
overrides the file, as ``--engine`` does); everything else, comments aside, is the spec's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from holon_core.errors import InputError, SpecError
from holon_core.models.spec import Spec
from holon_core.spec.load import load_spec, read_spec_text
from holon_core.spec.rules import check_fields, dotted
from holon_core.untrusted import yaml_safe

#: ``metadata.name`` of a spec written from ``--goal`` alone.
GOAL_TASK_NAME = "goal"


@dataclass(frozen=True)
class TaskSpec:
    """The validated spec, its warnings, and where ``input/spec.yaml`` comes from."""

    spec: Spec
    warnings: list[str]
    #: The user's spec file; its directory is the base of ``context/`` and relative skills.
    path: Path | None
    #: The generated text written as ``input/spec.yaml``; None: ``path`` is copied as is.
    text: str | None = None


def load_task_spec(
    path: Path | None,
    goal: str | None,
    *,
    engine: str | None = None,
    model: str | None = None,
    timeout: float | None = None,
) -> TaskSpec:
    """The spec of a run from ``SPEC``, ``--goal`` or both (the goal replacing the spec's)."""
    if goal is not None and not goal.strip():
        raise InputError("--goal is empty", hint="say what the engine should do")
    if path is None:
        if goal is None:
            raise InputError(
                "holon run needs a task: a spec file or a goal",
                hint="holon run SPEC (a spec.yaml), or holon run --goal TEXT (e.g. "
                "holon run --goal 'Fix the failing test' --workspace DIR)",
            )
        data = goal_spec(goal, engine=engine, model=model, timeout=timeout)
        header = "# written by holon run --goal\n"
        return TaskSpec(_validated(data, "--goal"), [], None, header + _dump(data))
    path = path.expanduser().absolute()
    if not path.exists() and not path.is_symlink():
        raise SpecError(
            f"spec file {path} does not exist",
            hint="pass the path of a spec.yaml, or give the task in words: --goal TEXT",
        )
    spec, warnings = load_spec(path)
    if goal is None:
        return TaskSpec(spec, warnings, path)
    data = yaml_safe.load(read_spec_text(path))
    assert isinstance(data, dict)  # load_spec refused anything else
    old = data.get("goal")
    data["goal"] = {**old, "description": goal} if isinstance(old, dict) else {"description": goal}
    header = f"# written by holon run --goal: {path} with its goal replaced\n"
    return TaskSpec(_validated(data, str(path)), warnings, path, header + _dump(data))


def goal_spec(
    goal: str, *, engine: str | None, model: str | None, timeout: float | None
) -> dict[str, Any]:
    """A v1 spec for ``--goal`` alone, with the fields the other flags map to."""
    data: dict[str, Any] = {"version": "v1", "kind": "Holon"}
    data["metadata"] = {"name": GOAL_TASK_NAME}
    data["goal"] = {"description": goal.strip()}
    choice = {key: value for key, value in (("name", engine), ("model", model)) if value}
    if choice:
        data["engine"] = choice
    if timeout is not None:
        data["constraints"] = {"timeout": f"{timeout:g}s"}
    return data


def read_goal_file(path: Path) -> str:
    """``--goal-file FILE``: its text (bounded and regular, as a spec file is read)."""
    try:
        return read_spec_text(path.expanduser())
    except SpecError as exc:
        raise InputError(
            f"--goal-file: {exc.message}", hint="pass a readable text file with the goal"
        ) from None


def _validated(data: dict[str, Any], where: str) -> Spec:
    """The spec of ``data`` if the spec rules (the agent's own check) accept it."""
    problems = check_fields(data).problems
    if problems:
        loc, message = problems[0]
        raise SpecError(
            f"{where}: the generated spec is invalid: {dotted(loc)}: {message}",
            hint="say the goal in plain text",
        )
    return Spec.from_mapping(data)


def _dump(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
