"""Where the run pipeline meets the room (:mod:`holon_core.sandbox`).

After the adapter built its launch plan, :func:`enter` wraps it so the engine's whole process
tree starts inside the room (``HOLON_SANDBOX``, default on); :func:`stop` closes the room's
network when the run ends and puts what the room was into ``metadata.sandbox``. With the
sandbox off the plan is unchanged, and the record and stderr say that the engine ran as the
user. The admission (:mod:`holon_core.sandbox.admit`) has refused a room this machine cannot
build before anything started.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.sandbox.setting import sandbox_setting

if TYPE_CHECKING:
    from holon_core.agent.state import RunState
    from holon_core.engine.adapter import LaunchPlan, RunContext
    from holon_core.sandbox.room import Room

_KEY = "_sandbox"
_MARK = "http://holon-endpoint.invalid"
OFF_NOTE = (
    "sandbox off (HOLON_SANDBOX=off): the engine runs as the user, with the user's files "
    "and network"
)


def wanted(run: RunState) -> bool:
    """Whether this run's engine goes into a room (the admission checked the setting)."""
    return sandbox_setting(run.env)


def enter(run: RunState, context: RunContext, plan: LaunchPlan) -> LaunchPlan:
    """The plan inside the room, or ``plan`` itself with the sandbox off."""
    if not sandbox_setting(run.env):
        run.metadata["sandbox"] = {"mode": "off"}
        run.metadata.setdefault("warnings", []).append(OFF_NOTE)
        print(f"holon-agent: warning: {OFF_NOTE}", file=sys.stderr)
        return plan
    from holon_core.sandbox.admit import SandboxUnavailable
    from holon_core.sandbox.bwrap import probe
    from holon_core.sandbox.policy import network_policy
    from holon_core.sandbox.room import model_endpoints, open_room

    found = probe(run.env)
    if found.problem is not None:  # the admission refused it already; kept for direct callers
        raise SandboxUnavailable(found.problem, hint=found.fix)
    network = context.spec.constraints.network
    policy = network_policy(run.env, network.allow if network is not None else ())
    engine = context.engine
    names = [k for k, v in engine.endpoint_env(_MARK).items() if v.startswith(_MARK)]
    default = None
    if engine.model_api is not None:
        from holon_core.gateway.apis import PUBLIC_ROOTS

        default = PUBLIC_ROOTS.get(engine.model_api)
    endpoints = model_endpoints(names, plan.env, default) if engine.model_api else []
    evidence = run.evidence

    def record(line: str) -> None:
        evidence.write_line("network.ndjson", line)

    paths = room_paths(context, plan, run.env)
    wrapped, room = open_room(
        plan, found, paths, policy, endpoints, record, clock_zero=evidence.started
    )
    run.metadata[_KEY] = room
    run.log.info("sandbox", mechanism="bubblewrap", version=found.version, allow=policy.describe())
    return wrapped


def room_paths(context: RunContext, plan: LaunchPlan, env: Mapping[str, str]) -> RoomPaths:
    """What this run's room mounts: its own dirs, the engine's install, the interpreter."""
    from holon_core.engine.binaries import managed_engine_dir
    from holon_core.sandbox.mounts import interpreter_paths
    from holon_core.sandbox.room import RoomPaths

    programs = [context.binary, Path(plan.argv[0]) if plan.argv else None]
    node = shutil.which("node", path=plan.env.get("PATH"))
    programs.append(Path(node) if node else None)
    # files the engine's environment names (a CA bundle, the direct engine an ACP agent runs)
    programs += _named_files(plan.env)
    # what an adapter linked into the run's home (OpenCode's ripgrep) must lead somewhere
    programs += _link_targets(context.home)
    readable = [context.input_dir, *interpreter_paths(), *_install_paths(programs)]
    # every pinned engine (holon-agent's HOLON_ENGINES_DIR: the engine's HOME is run-local)
    readable.append(managed_engine_dir(env))
    writable = [context.workspace, context.output_dir, context.run_dir, context.home]
    placed, overlays = _borrowed_objects(context.workspace)
    return RoomPaths(readable, writable, placed, overlays)


#: Where the room sees the git objects a snapshot borrows.
BORROWED_INSIDE = "/run/holon-git"


def _borrowed_objects(workspace: Path) -> tuple[list[tuple[Path, str]], dict[str, str]]:
    """A snapshot borrows the repository's objects through git alternates: the room sees
    each borrowed dir read-only under :data:`BORROWED_INSIDE` (at its own name the original
    workspace's path would exist inside), the snapshot's alternates file lists them there,
    and a borrowed dir's own listing reads empty (the flat list already holds its dirs)."""
    from holon_core.workspace import borrowed_stores

    borrowed = list(dict.fromkeys(borrowed_stores(workspace / ".git" / "objects")))
    placed = [(path, f"{BORROWED_INSIDE}/{index}") for index, path in enumerate(borrowed)]
    if not placed:
        return [], {}
    listing = workspace / ".git" / "objects" / "info" / "alternates"
    overlays = {str(listing): "".join(f"{inside}\n" for _, inside in placed)}
    for path, inside in placed:
        if (path / "info" / "alternates").is_file():
            overlays[f"{inside}/info/alternates"] = ""
    return placed, overlays


def _install_paths(programs: list[Path | None]) -> list[Path]:
    """Where programs are installed: an npm prefix whole (the package needs its
    ``node_modules``), any other program as its own file (a binary in ``~/.local/bin`` must
    not bring the rest of the home with it)."""
    found: list[Path] = []
    for program in programs:
        if program is None:
            continue
        for path in (program.absolute(), Path(os.path.realpath(program))):
            parts = path.parts
            if "node_modules" in parts:
                found.append(Path(*parts[: parts.index("node_modules")]))
            else:
                found.append(path)
    return found


def _named_files(env: Mapping[str, str]) -> list[Path]:
    """Files the engine's environment names by absolute path (a CA bundle, a direct engine's
    binary an ACP agent starts): holon built that environment, so each is meant to be read.
    Files only: a directory named there is not taken whole."""
    found = []
    for value in env.values():
        if value.startswith("/") and len(value) < 4096 and "\n" not in value:
            path = Path(value)
            try:
                if path.is_file():
                    found.append(path)
            except OSError:
                continue
    return found


def _link_targets(home: Path, limit: int = 5000) -> list[Path]:
    """Files the run-local home links to outside itself (an adapter links a tool it found on
    the machine, rather than let the engine download one); at most ``limit`` entries read."""
    found: list[Path] = []
    seen = 0
    for root, dirs, files in os.walk(home):
        for name in (*dirs, *files):
            seen += 1
            path = Path(root, name)
            if path.is_symlink():
                target = Path(os.path.realpath(path))
                if target.is_file() and not target.is_relative_to(home):
                    found.append(target)
        if seen > limit:
            break
    return found


def stop(run: RunState) -> None:
    """Close the room's network; its record into ``metadata.sandbox``."""
    room: Room | None = run.metadata.pop(_KEY, None)
    if room is None:
        return
    room.close()
    run.metadata["sandbox"] = room.record()


if TYPE_CHECKING:
    from holon_core.sandbox.room import RoomPaths
