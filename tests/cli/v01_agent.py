"""A stand-in for an RFC-0002 v0.1 agent, as the reference implementation's entrypoint was.

It takes its paths from the environment only (``HOLON_INPUT_DIR``, ``HOLON_WORKSPACE_DIR``,
``HOLON_OUTPUT_DIR``) and refuses any argument, the way an entrypoint that takes no flags
would fail on one. It writes the v0.1 manifest shape: artifacts as ``{name, path}`` objects,
``metadata`` with ``agent``/``version``/``mode`` and none of holon's own fields.
``HOLON_V01_MODE`` picks the ending: ``success`` (edits README.md, writes diff.patch and
summary.md), ``failure`` (``error`` set, no patch) or ``failure-silent`` (no ``error``, no
``artifacts``, as the reference agent wrote after an exception), ``numeric`` (success with a
numeric duration).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

if sys.argv[1:]:
    sys.stderr.write(f"v0.1 agent: no arguments expected, got {sys.argv[1:]}\n")
    sys.exit(64)
inputs = Path(os.environ["HOLON_INPUT_DIR"])
workspace = Path(os.environ["HOLON_WORKSPACE_DIR"])
output = Path(os.environ["HOLON_OUTPUT_DIR"])
assert (inputs / "spec.yaml").is_file()
mode = os.environ.get("HOLON_V01_MODE", "success")
metadata = {"agent": "claude-code", "version": "0.1.0", "mode": "solve"}
(output / "seen-env.json").write_text(json.dumps(dict(os.environ)))
if mode.startswith("failure"):
    manifest: dict[str, object] = {"metadata": metadata, "status": "completed"}
    manifest |= {"outcome": "failure", "duration": "0.2s"}
    if mode == "failure":
        manifest |= {"artifacts": [], "error": "Error: the model refused"}
    (output / "manifest.json").write_text(json.dumps(manifest, indent=2))
    sys.exit(1)
readme = workspace / "README.md"
readme.write_text(readme.read_text() + "added by a v0.1 agent\n")
git = ["git", "-c", "core.quotepath=off", "diff", "--binary", "--full-index"]
patch = subprocess.run(git, cwd=workspace, capture_output=True, check=True).stdout
(output / "diff.patch").write_bytes(patch)
(output / "summary.md").write_text("# Summary\n\nEdited README.md.\n")
artifacts = [{"name": n, "path": n} for n in ("diff.patch", "summary.md")]
artifacts.append({"name": "evidence", "path": "evidence/"})
(output / "evidence").mkdir(exist_ok=True)
manifest = {"metadata": metadata, "status": "completed", "outcome": "success"}
manifest |= {"duration": 1.5 if mode == "numeric" else "1.5s", "artifacts": artifacts}
(output / "manifest.json").write_text(json.dumps(manifest, indent=2))
sys.exit(0)
