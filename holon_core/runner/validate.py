"""Judge what the agent left (RFC-0002 section 4): the manifest against the published schema,
the spec's required artifacts, and ``diff.patch`` applying cleanly to the original workspace.

The runner trusts nothing the agent says about itself: a missing or invalid manifest is a
failure with a clear message, whatever the agent's exit code was. Any RFC-0002 agent may run
behind ``holon run`` (v0.1 or v0.2), so a manifest is held to the contract's fields only
(``status``, ``outcome``, ``duration``, ``artifacts``, ``error``, ``metadata`` an object):
holon's private metadata is not required of other agents. A manifest that says it comes from
``holon-agent`` is also checked against holon's own model, which ``schemas/manifest.schema.json``
is generated from (a test keeps the two identical), in strict JSON mode so no value is coerced.

A required artifact missing after the agent itself reported a failure for another reason is a
warning: the run already failed, and the agent's reason (say ``invalid_skill``, before the
engine ever ran) is what the caller needs to see.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from holon_core.models.manifest import Manifest
from holon_core.models.spec import Spec
from holon_core.untrusted.files import read_regular
from holon_core.untrusted.quoting import clip, shorten
from holon_core.untrusted.relative import leaves_root
from holon_core.workspace._git import git_binary, git_env

#: A larger manifest is refused (holon's own is a few KiB).
MAX_MANIFEST_BYTES = 8 << 20
EXIT_FOR_OUTCOME = {"success": 0, "failure": 1, "needs_human": 2}
STATUSES = ("completed", "failed", "running")
#: Why ``holon run`` distrusts a result (``Problem.code``), documented in docs/manifest.md.
PROBLEM_CODES = (
    "missing_manifest",
    "invalid_manifest",
    "missing_artifacts",
    "patch_does_not_apply",
)
_MAX_ERRORS = 5
_DURATION = re.compile(r"^\d+(\.\d+)?s$")
#: Config a user's repository may set that would make ``git apply`` rewrite the change.
_EXACT = (
    "-c", "apply.whitespace=nowarn", "-c", "apply.ignoreWhitespace=no",
    "-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "core.eol=lf",
)  # fmt: skip


@dataclass(frozen=True)
class Problem:
    """Why the run's result cannot be trusted; ``code`` is stable for machines."""

    code: str  # one of PROBLEM_CODES
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
        message = f"required artifact(s) missing from the output: {', '.join(missing)}"
        if _failed_for_another_reason(result):
            result.warnings.append(message)
        else:
            result.problems.append(Problem("missing_artifacts", message))
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


def _read_capped(path: Path) -> str | None:
    """The manifest's text, read without following a link; None past the cap or not a file.

    The engine could have planted ``manifest.json`` (a link to ``/dev/zero``, gigabytes of
    padding) where the agent died before writing its own.
    """
    raw = read_regular(path, MAX_MANIFEST_BYTES)
    if raw is None or len(raw) > MAX_MANIFEST_BYTES:
        return None
    return raw.decode("utf-8", errors="replace")


def _check_manifest(path: Path, result: Validation) -> dict[str, Any] | None:
    if not os.path.lexists(path):
        result.problems.append(
            Problem("missing_manifest", f"the agent wrote no manifest.json in {path.parent}")
        )
        return None
    text = _read_capped(path)
    if text is None:
        result.problems.append(
            Problem(
                "invalid_manifest",
                f"{path} is not a regular file of at most {MAX_MANIFEST_BYTES >> 20} MiB",
            )
        )
        return None
    try:
        data = json.loads(text)
    except ValueError as exc:
        result.problems.append(Problem("invalid_manifest", f"{path} is not valid JSON ({exc})"))
        return None
    except RecursionError:  # found by tests/fuzz: nesting deeper than json can recurse
        result.problems.append(Problem("invalid_manifest", f"{path} is nested too deeply"))
        return None
    if not isinstance(data, dict):
        result.problems.append(Problem("invalid_manifest", f"{path} is not a JSON object"))
        return None
    errors = contract_errors(data, result.warnings)
    if not errors and _from_holon_agent(data):
        try:
            Manifest.model_validate_json(text, strict=True)
        except ValidationError as exc:
            errors = [_describe(err) for err in exc.errors()]
    if errors:
        details = "; ".join(errors[:_MAX_ERRORS])
        more = len(errors) - _MAX_ERRORS
        details += f" (and {more} more)" if more > 0 else ""
        result.problems.append(
            Problem("invalid_manifest", f"{path} does not match the manifest schema: {details}")
        )
    return data


def contract_errors(data: dict[str, Any], warnings: list[str]) -> list[str]:
    """What an RFC-0002 manifest (v0.1 or v0.2) gets wrong in the contract's own fields.

    ``status`` and ``outcome`` decide what the runner does, so they are required; a missing
    ``duration`` or ``artifacts`` (common in other agents' failure manifests) is a warning.
    """
    errors = []
    outcomes = tuple(EXIT_FOR_OUTCOME)
    for key, allowed in (("status", STATUSES), ("outcome", outcomes)):
        if key not in data:
            errors.append(f"{key}: Field required")
        elif data[key] not in allowed:
            errors.append(f"{key}: must be one of {', '.join(allowed)}, not {clip(data[key])}")
    duration = data.get("duration")
    if "duration" not in data:
        warnings.append("the manifest has no duration (RFC-0002 lists it)")
    elif not _is_duration(duration):
        errors.append(f'duration: must look like "12.5s" or be seconds >= 0, not {clip(duration)}')
    if "artifacts" not in data:
        warnings.append("the manifest has no artifacts list (RFC-0002 lists it)")
    elif not isinstance(data["artifacts"], list):
        errors.append("artifacts: must be a list")
    else:
        errors += [f"artifacts: {why}" for why in map(_artifact_error, data["artifacts"]) if why]
    if "error" in data and data["error"] is not None and not isinstance(data["error"], str):
        errors.append("error: must be a string")
    if "metadata" in data and not isinstance(data["metadata"], dict):
        errors.append("metadata: must be an object")
    if data.get("error") and data.get("outcome") != "failure":
        warnings.append(f"the manifest sets error although its outcome is {data.get('outcome')}")
    return errors


def _is_duration(value: Any) -> bool:
    if isinstance(value, str):
        return _DURATION.match(value) is not None
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def _artifact_error(entry: Any) -> str | None:
    """An artifact is a relative path, or (v0.1 agents) an object with a ``path``."""
    path = entry.get("path") if isinstance(entry, dict) else entry
    if not isinstance(path, str) or not path:
        return f"{clip(entry)} is neither a path nor an object with a path"
    if leaves_root(path):
        return f"{clip(path)} must be relative to the output directory"
    return None


def artifact_paths(data: dict[str, Any]) -> list[str]:
    """The manifest's artifact paths, whichever of the two contract shapes it uses."""
    listed = data.get("artifacts")
    entries = listed if isinstance(listed, list) else []
    paths = [e.get("path") if isinstance(e, dict) else e for e in entries]
    return [p for p in paths if isinstance(p, str)]


def _from_holon_agent(data: dict[str, Any]) -> bool:
    meta = data.get("metadata")
    return isinstance(meta, dict) and meta.get("agent") == "holon-agent"


def _failed_for_another_reason(result: Validation) -> bool:
    """The manifest is trustworthy, says failure, and gives a reason of its own."""
    data = result.manifest
    if data is None or result.problems or data.get("outcome") != "failure":
        return False
    meta = data.get("metadata")
    reason = meta.get("reason") if isinstance(meta, dict) else None
    return reason != "missing_artifacts"


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
    absent = [p for p in artifact_paths(manifest) if not _present(output, p)]
    if absent:
        named = ", ".join(shorten(p) for p in absent[:_MAX_ERRORS])
        more = f" (and {len(absent) - _MAX_ERRORS} more)" if len(absent) > _MAX_ERRORS else ""
        result.warnings.append(f"manifest lists artifacts that are absent: {named}{more}")


def _present(output: Path, rel: str) -> bool:
    """Whether ``rel`` exists inside ``output``; nothing outside it is ever looked up."""
    if leaves_root(rel):
        return False
    try:
        return (output / rel).exists()
    except OSError:  # found by tests/fuzz: e.g. a name too long to exist
        return False


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
