"""Judge what the agent left (RFC-0002 section 4): the manifest against the published schema,
the spec's required artifacts, and ``diff.patch`` applying cleanly to the original workspace.

The runner trusts nothing the agent says about itself: a missing or schema-invalid manifest
is a failure with a clear message, whatever the agent's exit code was. The schema check uses
the contract model that ``schemas/manifest.schema.json`` is generated from (a test keeps the
two identical), in strict JSON mode so no value is coerced into shape.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from holon_core.models.manifest import Manifest
from holon_core.models.spec import Spec
from holon_core.workspace._git import git_binary, git_env

EXIT_FOR_OUTCOME = {"success": 0, "failure": 1, "needs_human": 2}
_MAX_ERRORS = 5
#: Config a user's repository may set that would make ``git apply`` rewrite the change.
_EXACT = (
    "-c", "apply.whitespace=nowarn", "-c", "apply.ignoreWhitespace=no",
    "-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "core.eol=lf",
)  # fmt: skip


@dataclass(frozen=True)
class Problem:
    """Why the run's result cannot be trusted; ``code`` is stable for machines."""

    code: str  # missing_manifest | invalid_manifest | missing_artifacts | patch_does_not_apply
    message: str


@dataclass
class Validation:
    manifest: dict[str, Any] | None = None
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    patch: Path | None = None  # diff.patch when it exists and holds changes

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_output(output: Path, spec: Spec, workspace: Path, exit_code: int) -> Validation:
    result = Validation()
    result.manifest = _check_manifest(output / "manifest.json", result)
    missing = [
        a.path for a in spec.output.artifacts if a.required and not (output / a.path).exists()
    ]
    if missing:
        result.problems.append(
            Problem(
                "missing_artifacts",
                f"required artifact(s) missing from the output: {', '.join(missing)}",
            )
        )
    patch = output / "diff.patch"
    if patch.is_file() and patch.stat().st_size > 0:
        result.patch = patch
        why = check_patch(patch, workspace)
        if why is not None:
            result.problems.append(
                Problem("patch_does_not_apply", f"diff.patch does not apply to {workspace}: {why}")
            )
    if result.manifest is not None:
        _cross_check(result.manifest, output, exit_code, result)
    return result


def _check_manifest(path: Path, result: Validation) -> dict[str, Any] | None:
    if not path.is_file():
        result.problems.append(
            Problem("missing_manifest", f"the agent wrote no manifest.json in {path.parent}")
        )
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        Manifest.model_validate_json(text, strict=True)
    except ValidationError as exc:
        details = "; ".join(_describe(err) for err in exc.errors()[:_MAX_ERRORS])
        more = len(exc.errors()) - _MAX_ERRORS
        details += f" (and {more} more)" if more > 0 else ""
        result.problems.append(
            Problem("invalid_manifest", f"{path} does not match the manifest schema: {details}")
        )
        try:
            data = json.loads(text)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _describe(error: Any) -> str:
    where = ".".join(str(part) for part in error.get("loc", ())) or "(top level)"
    if error.get("type") == "json_invalid":
        return f"not valid JSON ({error.get('ctx', {}).get('error', error.get('msg'))})"
    return f"{where}: {error.get('msg')}"


def _cross_check(
    manifest: dict[str, Any], output: Path, exit_code: int, result: Validation
) -> None:
    """Contract slips that do not make the record untrustworthy are reported as warnings."""
    expected = EXIT_FOR_OUTCOME.get(str(manifest.get("outcome")))
    if expected is not None and exit_code >= 0 and exit_code != expected:
        result.warnings.append(
            f"the agent exited {exit_code} but its manifest says {manifest.get('outcome')} "
            f"(expected exit {expected})"
        )
    listed = manifest.get("artifacts")
    if isinstance(listed, list):
        absent = [p for p in listed if isinstance(p, str) and not (output / p).exists()]
        if absent:
            result.warnings.append(f"manifest lists artifacts that are absent: {', '.join(absent)}")


def _apply(patch: Path, workspace: Path, *, check: bool) -> str | None:
    """``git apply`` in the original workspace: its working tree only, never its index.

    Discovery is stopped at the workspace's parent so a plain directory inside some other
    repository is patched as a plain directory (git would otherwise re-root the paths). The
    repository's own config still applies, so ``_EXACT`` overrides what could alter the
    engine's change on the way in (``apply.whitespace=fix`` strips trailing spaces).
    """
    env = git_env()
    env["GIT_CEILING_DIRECTORIES"] = str(workspace.resolve().parent)
    args = [git_binary(), *_EXACT, "apply", "--whitespace=nowarn"]
    args += [*(["--check"] if check else []), str(patch.resolve())]
    done = subprocess.run(
        args, cwd=workspace, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=False
    )
    if done.returncode == 0:
        return None
    lines = done.stderr.decode(errors="replace").strip().splitlines()
    return "; ".join(lines[:3]) or f"git apply exited {done.returncode}"


def check_patch(patch: Path, workspace: Path) -> str | None:
    """None when the patch applies cleanly, else git's reason."""
    return _apply(patch, workspace, check=True)


def apply_patch(patch: Path, workspace: Path) -> str | None:
    """Apply for real (git applies all hunks or none); None on success, else git's reason."""
    return _apply(patch, workspace, check=False)
