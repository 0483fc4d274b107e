"""One run's room: the bubblewrap command around the engine, and its network's host end.

:func:`open_room` takes the launch plan an adapter built and returns the plan that starts the
same command inside the room (same argv, environment and cwd, paths unchanged), with the
egress proxy and the model endpoint's bridge listening on Unix sockets in a private directory
of holon's that the room mounts. :meth:`Room.close` stops them; :meth:`Room.record` is what
goes into ``metadata.sandbox``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from holon_core.sandbox import mounts as room_mounts
from holon_core.sandbox.proxy import RoomNetwork

if TYPE_CHECKING:
    from holon_core.engine.adapter import LaunchPlan
    from holon_core.sandbox.bwrap import Bubblewrap
    from holon_core.sandbox.policy import NetworkPolicy

#: Where the room sees holon's sockets, and the proxy's port on the room's loopback.
SOCKETS_INSIDE = "/run/holon"
PROXY_PORT = 3128
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
#: Variables that point clients at the proxy: both cases (curl reads only lower-case
#: ``http_proxy``), and Node's switch to honour them (Node 22.21+, 24+).
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")


@dataclass(slots=True)
class RoomPaths:
    readable: list[Path] = field(default_factory=list)
    writable: list[Path] = field(default_factory=list)
    #: Read-only dirs the room sees under another name: (host path, path inside).
    placed: list[tuple[Path, str]] = field(default_factory=list)
    #: Files whose content the room sees replaced: path inside -> the content it reads.
    overlays: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Room:
    bwrap: Bubblewrap
    mounts: list[room_mounts.Mount]
    network: RoomNetwork
    socket_dir: str
    bridged: list[str]
    policy: NetworkPolicy

    def close(self) -> None:
        self.network.stop()
        shutil.rmtree(self.socket_dir, ignore_errors=True)

    def record(self) -> dict[str, Any]:
        counts = self.network.counts
        return {
            "mode": "on",
            "mechanism": "bubblewrap",
            "version": self.bwrap.version,
            "namespaces": ["user", "mount", "pid", "network", "ipc", "uts", "cgroup"],
            "mounts": [
                {"path": m.path, "how": m.how}
                | ({"target": m.target} if m.target else {})
                | ({"inside": m.inside} if m.inside else {})
                for m in self.mounts
            ],
            "system": {"read_only": [*room_mounts.SYSTEM_DIRS, "/etc (selected files)"]},
            "private": ["/tmp", "/proc", "/dev"],
            "network": {
                "policy": "no route out: the model endpoint's bridge and the egress proxy",
                "model_endpoint": self.bridged,
                "allow": self.policy.describe(),
                "allowed": counts.allowed,
                "denied": counts.denied,
                "failed": counts.failed,
                "denied_hosts": counts.hosts_denied,
            },
        }


def model_endpoints(
    names: Iterable[str], env: Mapping[str, str], default: str | None
) -> list[tuple[str, int]]:
    """(host, port) of each endpoint variable the engine was given (else the API's default)."""
    found: list[tuple[str, int]] = []
    for name in names:
        value = (env.get(name) or default or "").strip()
        try:
            url = urlsplit(value)
            port = url.port or (443 if url.scheme == "https" else 80)
        except ValueError:
            continue
        if url.hostname and (url.hostname, port) not in found:
            found.append((url.hostname, port))
    return found


def open_room(  # noqa: PLR0917 - each is one part of the room
    plan: LaunchPlan,
    bwrap: Bubblewrap,
    paths: RoomPaths,
    policy: NetworkPolicy,
    endpoints: list[tuple[str, int]],
    record: Callable[[str], None],
    *,
    clock_zero: float | None = None,
) -> tuple[LaunchPlan, Room]:
    """The plan that runs ``plan`` in a room, and the room (its network already listening);
    ``clock_zero`` is the run's start (see :class:`~holon_core.sandbox.proxy.RoomNetwork`)."""
    from holon_core.sandbox.policy import AllowRule, NetworkPolicy

    assert bwrap.path is not None
    socket_dir = tempfile.mkdtemp(prefix="holon-room-")  # the run's TMPDIR: nothing in /tmp
    bridges: dict[str, tuple[str, int]] = {}
    forwards: list[str] = []
    bridged: list[str] = []
    extra_rules: list[AllowRule] = []
    for index, (host, port) in enumerate(endpoints):
        if host in _LOOPBACK:
            name = f"endpoint-{index}.sock"
            bridges[str(Path(socket_dir) / name)] = (host, port)
            forwards.append(f"{port}={SOCKETS_INSIDE}/{name}")
            bridged.append(f"{host}:{port}")
        else:  # a model API reached directly (no gateway): through the proxy, by name
            extra_rules.append(AllowRule(host.lower(), port))
            bridged.append(f"{host}:{port} (through the egress proxy)")
    if extra_rules:
        policy = NetworkPolicy((*policy.allow, *extra_rules), policy.pinned)
    forwards.append(f"{PROXY_PORT}={SOCKETS_INSIDE}/proxy.sock")
    network = RoomNetwork(
        policy, str(Path(socket_dir) / "proxy.sock"), bridges, record, clock_zero=clock_zero
    )
    try:
        network.start()
    except BaseException:
        network.stop()
        shutil.rmtree(socket_dir, ignore_errors=True)
        raise
    mounts = room_mounts.plan(paths.readable, paths.writable)
    mounts += [room_mounts.Mount(str(host), "ro", inside=inside) for host, inside in paths.placed]
    room = Room(bwrap, mounts, network, socket_dir, bridged, policy)
    init = str(Path(__file__).with_name("room_init.py"))
    argv = [bwrap.path, "--unshare-all", "--die-with-parent", "--cap-drop", "ALL"]
    argv += room_mounts.system_args()
    argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run"]
    argv += room_mounts.mount_args(mounts)
    argv += _overlay_args(paths.overlays, Path(socket_dir))
    argv += ["--ro-bind", init, "/run/holon-init.py", "--bind", socket_dir, SOCKETS_INSIDE]
    argv += ["--chdir", str(plan.cwd), "--", sys.executable, "-I", "-S", "/run/holon-init.py"]
    argv += [*forwards, "--", *plan.argv]
    return replace(plan, argv=argv, env=proxied_env(plan.env), wrapper=True), room


def _overlay_args(overlays: Mapping[str, str], socket_dir: Path) -> list[str]:
    """Each overlay's content in holon's private dir, bound read-only over its path inside."""
    args: list[str] = []
    for index, (inside, content) in enumerate(overlays.items()):
        source = socket_dir / f"overlay-{index}"
        source.write_text(content, encoding="utf-8")
        args += ["--ro-bind", str(source), inside]
    return args


def proxied_env(env: Mapping[str, str]) -> dict[str, str]:
    """The engine's environment pointed at the room's proxy (the loopback bypasses it)."""
    proxy = f"http://127.0.0.1:{PROXY_PORT}"
    out = {k: v for k, v in env.items() if k.upper() not in ("ALL_PROXY", "NO_PROXY")}
    out |= dict.fromkeys(PROXY_VARIABLES, proxy)
    out |= {"NO_PROXY": "127.0.0.1,localhost,::1", "no_proxy": "127.0.0.1,localhost,::1"}
    out["NODE_USE_ENV_PROXY"] = "1"
    return out
