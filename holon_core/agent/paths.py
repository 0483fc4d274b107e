"""Step 1: where the input, workspace, output and state are (flags, ``HOLON_*``, defaults)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULTS = {
    "input": ("HOLON_INPUT_DIR", "/holon/input"),
    "workspace": ("HOLON_WORKSPACE_DIR", "/holon/workspace"),
    "output": ("HOLON_OUTPUT_DIR", "/holon/output"),
    "state": ("HOLON_STATE_DIR", "/holon/state"),
}


@dataclass(frozen=True, slots=True)
class AgentPaths:
    input: Path
    workspace: Path
    output: Path
    state: Path | None  # None: no state dir given; a private temp dir is used

    @property
    def spec(self) -> Path:
        return self.input / "spec.yaml"


def resolve_paths(flags: Mapping[str, str | None], env: Mapping[str, str]) -> AgentPaths:
    resolved: dict[str, Path | None] = {}
    for key, (env_name, default) in DEFAULTS.items():
        value = flags.get(key) or env.get(env_name)
        if value is None and key == "state":
            resolved[key] = Path(default) if Path(default).is_dir() else None
            continue
        resolved[key] = Path(value or default).expanduser().absolute()
    return AgentPaths(
        input=resolved["input"] or Path(DEFAULTS["input"][1]),
        workspace=resolved["workspace"] or Path(DEFAULTS["workspace"][1]),
        output=resolved["output"] or Path(DEFAULTS["output"][1]),
        state=resolved["state"],
    )


def output_writable(output: Path) -> str | None:
    """None when holon can write into ``output`` (creating it), else why not."""
    try:
        output.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create {output}: {exc.strerror or exc}"
    probe = output / f".holon-write-test-{id(output)}"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return f"cannot write into {output}: {exc.strerror or exc}"
    return None


def overlap_problem(paths: AgentPaths) -> str | None:
    """Why these directories cannot be used together, or None.

    The output dir may sit inside the workspace (it is kept out of diff.patch), but holon
    must never clear or write files in the workspace or the read-only input.
    """
    output = paths.output.resolve()
    for name, other in (("workspace", paths.workspace), ("input", paths.input)):
        other = other.resolve()
        if output == other:
            return f"the output dir is the {name} ({output}); holon would write into it"
        if other.is_relative_to(output):
            return f"the {name} ({other}) is inside the output dir ({output})"
    if output.is_relative_to(paths.input.resolve()):
        return f"the output dir ({output}) is inside the read-only input dir"
    return None
