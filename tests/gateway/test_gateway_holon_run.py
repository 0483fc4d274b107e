"""``holon run`` through the gateway: the CA settings reach holon-agent's gateway, and
``--max-cost`` stops the run ``budget_exceeded``."""

from __future__ import annotations

import json
import re

import yaml

from holon_core.testing.task import committed_repo
from tests.runner import kit as runner_kit

from .kit import REAL_KEY
from .test_gateway_engines import engine_env


def holon_run(tmp_path, args, env):
    return runner_kit.holon_run(tmp_path, args, env=env, timeout=240)


def workspace(tmp_path):
    return committed_repo(tmp_path / "ws", {"README.md": "hi\n"})


def test_max_cost_stops_a_holon_run_over_https(engine_binary, https_provider, ca_file, tmp_path):
    engine_binary("claude")
    server = https_provider("write-and-run")
    ws = workspace(tmp_path)
    argv = ["--goal", "Create hello.txt", "--workspace", str(ws), "--engine", "claude"]
    ran = holon_run(
        tmp_path, [*argv, "--max-cost", "0.0001", "--json"], engine_env(server, "claude", ca_file)
    )
    result = json.loads(ran.stdout)
    assert (result["outcome"], result["reason"]) == ("failure", "budget_exceeded"), ran.stderr
    found = next((tmp_path / "runs").glob("*/output/manifest.json"))
    manifest = json.loads(found.read_text())
    meta = manifest["metadata"]
    # The gateway reached the HTTPS upstream: holon run passed SSL_CERT_FILE on.
    assert meta["gateway"]["upstream"] == server.url
    assert meta["budget"]["max_cost_usd"] == 0.0001
    assert meta["budget"]["spent"]["model_calls"] == 1


def test_a_max_cost_that_is_no_amount_is_refused(tmp_path):
    ws = workspace(tmp_path)
    argv = ["--goal", "x", "--workspace", str(ws), "--engine", "replay", "--max-cost", "lots"]
    ran = holon_run(tmp_path, argv, {})
    assert ran.exit_code == 1
    assert "--max-cost: 'lots' is not a positive number of US dollars" in ran.stderr


def test_holon_solve_takes_max_cost_and_refuses_no_amount(tmp_path):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "holon_core.cli.main", "solve", "o/r#1", "--max-cost", "lots"],
        env=runner_kit.base_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "--max-cost: 'lots' is not a positive number of US dollars" in done.stderr


#: A tool call that reads the environment of each of its ancestors up to ``holon run``
#: (``/proc/<pid>/environ``: the environment a process was started with) and prints which
#: held the key: ``{key}`` is the key as two adjacent string literals, never whole.
ANCESTORS = """\
import os, re
k = {key}
def read(p, name):
    try:
        with open("/proc/" + p + "/" + name, "rb") as f:
            return f.read().decode("latin-1")
    except OSError:
        return None
p, n = str(os.getppid()), 0
while p not in ("0", "1"):
    env, line = read(p, "environ"), read(p, "cmdline") or ""
    n += env is not None
    if env is not None and k in env:
        print("keyhunt-" + "found in", line.split(chr(0))[:3])
    if re.search("holon_core[.]cli[.]main.run.", line):
        break
    p = re.search(r"PPid:.(\\d+)", read(p, "status") or "PPid:\\t0").group(1)
print("keyhunt-" + "done", n, "ancestors read, up to", line.split(chr(0))[:4])
"""


def test_no_process_above_the_engine_shows_the_key_in_its_environment(
    engine_binary, https_provider, ca_file, tmp_path
):
    """holon run and holon-agent both held the key: both dropped it from their environment,
    initial block included, before the engine started (as root, the tool could read both)."""
    engine_binary("claude")
    half = len(REAL_KEY) // 2
    code = ANCESTORS.replace("{key}", f'"{REAL_KEY[:half]}" "{REAL_KEY[half:]}"')
    scenario = tmp_path / "hunt.yaml"
    turn = {"run_shell": {"command": f"python3 -c '{code}'"}}
    scenario.write_text(yaml.safe_dump({"turns": [turn, {"final": {"text": "looked"}}]}))
    server = https_provider(str(scenario))
    ws = workspace(tmp_path)
    argv = ["--goal", "Look around", "--workspace", str(ws), "--engine", "claude", "--json"]
    # the room hides every process above the engine; this is about those processes themselves
    env = engine_env(server, "claude", ca_file) | {"HOLON_SANDBOX": "off"}
    ran = holon_run(tmp_path, argv, env)
    assert json.loads(ran.stdout)["outcome"] == "success", ran.stderr
    sent = "\n".join(r.text() for r in server.requests)
    done = re.search(r"keyhunt-done (\d+) ancestors read, up to \[([^\]]*)\]", sent)
    assert done is not None, sent[-2000:]
    assert "holon_core.cli.main" in done.group(2) and int(done.group(1)) >= 3  # it got there
    assert "keyhunt-found" not in sent, re.findall(r"keyhunt-found[^\\\n]*", sent)
    assert REAL_KEY not in sent
