"""A stand-in for a broken third-party agent, started by `holon run` through HOLON_AGENT_CMD.

It speaks only the contract (flags and env) and does what ``HOLON_FAKE_AGENT`` says:
``missing`` writes no manifest, ``invalid`` writes one that violates the schema, ``huge``
writes a valid one padded past the runner's read cap, ``link`` makes manifest.json a link to
``/dev/zero``, ``valid`` writes a correct success manifest and nothing else. It always
records its argv and env in ``<output>/fake-agent.json`` so tests can see what the runner
passed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

parser = argparse.ArgumentParser()
for flag in ("--input", "--workspace", "--output", "--state", "--engine", "--model"):
    parser.add_argument(flag)
parser.add_argument("--skill", action="append", default=[])
args = parser.parse_args()
output = Path(args.output)
mode = os.environ.get("HOLON_FAKE_AGENT", "valid")
(output / "fake-agent.json").write_text(json.dumps({"argv": sys.argv[1:], "env": dict(os.environ)}))
if mode == "invalid":
    (output / "manifest.json").write_text(json.dumps({"status": "done", "outcome": "great"}))
elif mode == "link":
    (output / "manifest.json").symlink_to("/dev/zero")
elif mode == "huge":
    padding = {"pad": "x" * (9 << 20)}
    manifest = {"status": "completed", "outcome": "success", "duration": "1s", "metadata": padding}
    (output / "manifest.json").write_text(json.dumps({**manifest, "artifacts": ["manifest.json"]}))
elif mode == "valid":
    manifest = {
        "status": "completed",
        "outcome": "success",
        "duration": "0.1s",
        "artifacts": ["fake-agent.json", "manifest.json"],
        "metadata": {"holon_version": "0.0.0", "reason": "ok"},
    }
    (output / "manifest.json").write_text(json.dumps(manifest))
sys.exit(int(os.environ.get("HOLON_FAKE_EXIT", "0")))
