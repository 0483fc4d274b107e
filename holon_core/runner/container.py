"""``holon run --container``: holon-agent in an OCI container instead of a host process.

The container sees only the run's own directories at the RFC-0002 paths: the input read-only
at ``/holon/input``, the snapshot at ``/holon/workspace``, the fresh output at
``/holon/output`` and the state dir at ``/holon/state``. The original workspace is never
mounted, so an engine that tries to reach it finds no such path; a git snapshot is made
standalone first (its borrowed objects copied in), because the path its alternates name is not
there either. Only the adapter's variables and holon's settings are passed, secrets by name
(the value goes from the runtime's environment, never onto a command line). The root file
system is read-only, every capability dropped, and the container removed afterwards.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from holon_core.errors import InputError
from holon_core.runner.layout import RunLayout
from holon_core.telemetry.setting import CONTEXT_VARS, collector
from holon_core.workspace import Snapshot

#: Picks the runtime (podman, docker, or a path to either); else podman, else docker on PATH.
RUNTIME_ENV = "HOLON_CONTAINER_RUNTIME"
#: The image ``--container`` without a value runs.
IMAGE_ENV = "HOLON_CONTAINER_IMAGE"
DEFAULT_IMAGE = "holon-agent:latest"
#: Host-side settings that mean nothing (or a host path) inside the container.
_HOST_ONLY = re.compile(r"HOLON_(\w+_(BIN|DIR)|AGENT_\w+|CONTAINER_\w+|PLUGINS|REPLAY_SCRIPT)")
#: The OpenTelemetry exporter's certificate and client key files: host paths, not inside.
_HOST_FILES = re.compile(
    r"OTEL_EXPORTER_OTLP_(TRACES_)?(CERTIFICATE|CLIENT_KEY|CLIENT_CERTIFICATE)"
)
_MEMORY = re.compile(r"\d+(\.\d+)?[bkmg]?", re.IGNORECASE)
_LOOPBACK = ("localhost", "::1")
#: Where the runtime's own helpers live: podman's netavark runs iptables/nft from /usr/sbin.
_SBIN_DIRS = ("/usr/sbin", "/sbin")


@dataclass(frozen=True)
class ContainerOptions:
    """What ``--container``, ``--network``, ``--memory`` and ``--cpus`` asked for."""

    image: str | None = None  # None: HOLON_CONTAINER_IMAGE, else holon-agent:latest
    network: str | None = None  # None: what the engine needs (see default_network)
    memory: str | None = None
    cpus: str | None = None

    def check(self) -> None:
        """Refuse malformed limits before anything is built."""
        if self.memory is not None and not _MEMORY.fullmatch(self.memory):
            raise InputError(
                f"--memory {self.memory!r} is not a size", hint="write it like 512m or 2g"
            )
        if self.cpus is not None:
            try:
                ok = float(self.cpus) > 0
            except ValueError:
                ok = False
            if not ok:
                raise InputError(
                    f"--cpus {self.cpus!r} is not a positive number", hint="write it like 1.5"
                )


@dataclass(frozen=True)
class Container:
    """One prepared container run: the runtime, the image, the name and the network."""

    runtime: str
    image: str
    name: str
    network: str | None
    options: ContainerOptions

    def command(
        self,
        layout: RunLayout,
        agent_flags: Sequence[str],
        settings: Mapping[str, str],
        engine_vars: Sequence[str],
    ) -> list[str]:
        """The runtime's command line; ``settings`` go by value, ``engine_vars`` by name."""
        mounts = {
            layout.input: "/holon/input",
            layout.snapshot: "/holon/workspace",
            layout.output: "/holon/output",
            layout.state: "/holon/state",
        }
        argv = [self.runtime, "run", "--rm", "--name", self.name, *self._user()]
        argv += ["--read-only", "--tmpfs", "/tmp:rw,exec,mode=1777"]
        argv += ["--cap-drop", "all", "--security-opt", "no-new-privileges"]
        if self.network:
            argv += ["--network", self.network]
        if self.options.memory:
            argv += ["--memory", self.options.memory]
        if self.options.cpus:
            argv += ["--cpus", self.options.cpus]
        for host, inside in mounts.items():
            mode = "ro" if inside == "/holon/input" else "rw"
            argv += ["--volume", f"{host}:{inside}:{mode}"]
        argv += ["--env", "HOME=/tmp", "--env", "TMPDIR=/tmp"]
        for name, value in sorted(settings.items()):
            if name.startswith("HOLON_") and not _HOST_ONLY.fullmatch(name):
                argv += ["--env", f"{name}={value}"]
        for name in [*engine_vars, *_telemetry_vars(settings)]:
            argv += ["--env", name]  # the value comes from the runtime's own environment
        return [*argv, self.image, *_inside_paths(agent_flags, mounts)]

    def remove(self, env: Mapping[str, str]) -> None:
        """Remove the container if it is still there (a killed runtime client leaves it)."""
        subprocess.run(
            [self.runtime, "rm", "--force", self.name],
            env=runtime_env(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )

    def _user(self) -> list[str]:
        """Run as the caller, so what lands in the output is theirs (rootless podman maps it)."""
        uid, gid = os.getuid(), os.getgid()
        rootless = Path(self.runtime).name == "podman" and uid != 0
        return ["--user", f"{uid}:{gid}", *(["--userns", "keep-id"] if rootless else [])]


def prepare(
    options: ContainerOptions,
    *,
    run_id: str,
    engine: str | None,
    engine_vars: Sequence[str],
    env: Mapping[str, str],
    snapshot: Snapshot,
) -> Container:
    """Check the runtime and the image, pick the network; make a git snapshot standalone."""
    options.check()
    runtime = find_runtime(env)
    image = options.image or env.get(IMAGE_ENV) or DEFAULT_IMAGE
    found = subprocess.run(
        [runtime, "image", "inspect", image],
        env=runtime_env(env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    if found.returncode != 0:
        raise InputError(
            f"container image {image!r} is not in {Path(runtime).name}'s local images",
            hint="build it with make image (container/build.sh), or pass --container IMAGE",
        )
    if snapshot.kind == "git-clone":
        standalone(snapshot.path)
    network = options.network or default_network(engine, engine_vars, env)
    name = "holon-" + re.sub(r"[^a-zA-Z0-9_.-]", "-", run_id)
    return Container(runtime, image, name, network, options)


def runtime_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment the runtime gets: the user's, with ``/usr/sbin`` and ``/sbin`` after
    their ``PATH`` when it lacks them.

    A CI job's or cron line's ``PATH`` often has no sbin dirs, and podman's netavark then
    cannot run iptables: every ``--container`` run with a network failed to start.
    """
    path = env.get("PATH") or os.defpath
    dirs = path.split(os.pathsep)
    missing = [d for d in _SBIN_DIRS if d not in dirs]
    return {**env, "PATH": os.pathsep.join([*dirs, *missing])}


def find_runtime(env: Mapping[str, str]) -> str:
    """``HOLON_CONTAINER_RUNTIME``, else podman, else docker on ``PATH``."""
    wanted = env.get(RUNTIME_ENV, "").strip()
    candidates = [wanted] if wanted else ["podman", "docker"]
    for candidate in candidates:
        found = shutil.which(candidate, path=env.get("PATH"))
        if found:
            return found
    if wanted:
        raise InputError(
            f"{RUNTIME_ENV}={wanted!r} is not an executable on PATH",
            hint="install podman or docker, or point it at one",
        )
    raise InputError(
        "no container runtime: neither podman nor docker is on PATH",
        hint="install podman (container/ci-deps.sh) or docker, or run without --container",
    )


def default_network(engine: str | None, engine_vars: Sequence[str], env: Mapping[str, str]) -> str:
    """What the run needs: the host's network for an endpoint on the host's loopback (a local
    gateway, the scripted model server, an OpenTelemetry collector: the spans are exported
    from inside), else none for replay without traces, else the runtime's default."""
    traces = collector(env)
    endpoints = [env.get(name, "") for name in engine_vars] if engine != "replay" else []
    if any(_on_loopback(url) for url in [*endpoints, traces or ""]):
        return "host"
    return "none" if engine == "replay" and traces is None else "bridge"


def _on_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host in _LOOPBACK or host.startswith("127.")


def _telemetry_vars(settings: Mapping[str, str]) -> list[str]:
    """The OpenTelemetry settings and W3C trace context the agent got (docs/telemetry.md),
    passed by name: the exporter's headers may hold a key."""
    names = [n for n in settings if n.startswith("OTEL_") or n in CONTEXT_VARS]
    return sorted(n for n in names if not _HOST_FILES.fullmatch(n))


def standalone(repo: Path) -> None:
    """Copy the objects a git snapshot borrows into it and drop the alternates file."""
    alternates = repo / ".git" / "objects" / "info" / "alternates"
    if not alternates.exists():
        return
    done = subprocess.run(
        ["git", "-c", "core.fsmonitor=false", "repack", "-a", "-d", "-q"],
        cwd=repo,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise InputError(
            f"cannot make the snapshot standalone: {done.stderr.decode(errors='replace')[-500:]}",
            hint="check the workspace's repository with git fsck",
        )
    alternates.unlink()


def _inside_paths(flags: Sequence[str], mounts: Mapping[Path, str]) -> list[str]:
    """The agent's flags with each host path under a mount rewritten to the container path."""
    out = []
    for word in flags:
        path = Path(word)
        for host, inside in mounts.items():
            if path == host or path.is_relative_to(host):
                word = str(Path(inside) / path.relative_to(host))
                break
        out.append(word)
    return out
