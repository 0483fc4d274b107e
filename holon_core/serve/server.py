"""``holon-agent serve``: load once, then serve HTTP/1.1 on a Unix socket until told to stop.

The socket is bound by holon with a umask that makes it 0600 from the first moment (only the
owner may talk to the agent). A socket file nobody answers on is stale and replaced; one
that answers belongs to a live server and is refused, as is any other file at that path.
``POST /shutdown`` refuses new turns, lets the running and queued ones finish, then exits 0
and removes the socket; SIGTERM, SIGINT and SIGHUP do the same but first take the queued
turns out (recorded as cancelled, never run) and cancel the running ones (their manifests
say ``cancelled``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import stat
import sys
from collections.abc import Generator, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn

from holon_core.agent.paths import AgentPaths
from holon_core.agent.preflight import run_preflight
from holon_core.agent.select import select_engine
from holon_core.errors import HolonError
from holon_core.hooks.manager import load_plugins
from holon_core.serve.app import ServeState, build_app
from holon_core.serve.store import Store
from holon_core.serve.turn_plan import Session
from holon_core.untrusted.redact import Redactor, secret_values

DEFAULT_SOCKET = "/holon/ipc/agent.sock"
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class ServeError(HolonError):
    reason = "invalid_input"


def socket_path(flag: str | None, env: Mapping[str, str]) -> Path:
    return Path(flag or env.get("HOLON_SOCKET") or DEFAULT_SOCKET).expanduser().absolute()


def load_session(
    paths: AgentPaths,
    env: Mapping[str, str],
    *,
    engine: str | None,
    model: str | None,
    skills: list[Path],
    isolate: bool,
    allow_fetch: bool = False,
    model_map: dict[str, str] | None = None,
) -> Session:
    """Everything a turn needs that does not change between turns, loaded and checked once."""
    if paths.state is None:
        raise ServeError(
            "serve keeps sessions and responses in a state dir, and none is given",
            hint="pass --state DIR or set HOLON_STATE_DIR",
        )
    plugins = load_plugins(env)
    base_spec = None
    if paths.spec.is_file():
        from holon_core.spec.load import load_spec

        base_spec, _warnings = load_spec(paths.spec)
    adapter = select_engine(plugins, engine, env, base_spec)
    from holon_core.agent.replay_cassette import session_env

    env = session_env(env, adapter)  # HOLON_CASSETTE: checked now; a dummy key if none
    preflight = run_preflight(plugins, adapter, paths, env)
    redact = Redactor(secret_values(env, adapter.credential_env))
    from holon_core.gateway.shared import open_shared

    gateway = open_shared(adapter, env)  # one for the session, leased to each turn
    from holon_core.agent.record_session import start_session

    start_session(gateway, adapter, env)  # HOLON_RECORD: the session's cassette
    store = Store(paths.state)
    for response_id in store.settle_interrupted(redact):
        print(f"holon-agent serve: {response_id} was interrupted (marked failed)", file=sys.stderr)
    return Session(
        paths=paths,
        env=env,
        plugins=plugins,
        engine=adapter,
        preflight=preflight,
        base_spec=base_spec,
        store=store,
        redact=redact,
        model=model,
        skills=skills,
        isolate=isolate,
        allow_fetch=allow_fetch,
        model_map=model_map or {},
        gateway=gateway,
    )


def bind_socket(path: Path) -> socket.socket:
    """A listening Unix socket at ``path``, mode 0600; refuses a live server or another file."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        st = path.lstat()
    except FileNotFoundError:
        st = None
    if st is not None:
        if not stat.S_ISSOCK(st.st_mode):
            raise ServeError(
                f"{path} exists and is not a socket",
                hint="remove it or pass another --socket PATH",
            )
        if _answers(path):
            raise ServeError(
                f"a server is already listening on {path}",
                hint="stop it (POST /shutdown) or pass another --socket PATH",
            )
        path.unlink()  # stale: left by a server that died
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(str(path))
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot bind {path}: {exc}", hint="pass another --socket PATH") from None
    finally:
        os.umask(old)
    sock.listen(64)
    return sock


def _answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def _skill_names(session: Session) -> list[str]:
    """The skills a turn would get (for /health); a turn resolves them again for itself."""
    from holon_core.skill.layers import resolve_skills

    refs = session.base_spec.metadata.skills if session.base_spec is not None else []
    try:
        skills, _notes = resolve_skills(
            refs,
            session.skills,
            session.paths.input,
            workspace=session.paths.workspace,
            env=session.env,
        )
    except HolonError as exc:
        return [f"(not resolved: {exc})"]
    return [skill.name for skill in skills]


class _Server(uvicorn.Server):
    """uvicorn, with holon's signal handling: a stop signal cancels the turns, then drains."""

    def __init__(self, config: uvicorn.Config, state: ServeState) -> None:
        super().__init__(config)
        self.state = state

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        def on_signal(signum: int, _frame: FrameType | None) -> None:
            if self.state.draining and signum == signal.SIGINT:
                self.force_exit = True
            self.state.shutdown(cancel=True)

        previous = {sig: signal.signal(sig, on_signal) for sig in STOP_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def serve(
    paths: AgentPaths,
    env: Mapping[str, str],
    *,
    socket_flag: str | None,
    engine: str | None = None,
    model: str | None = None,
    skills: list[Path] | None = None,
    isolate: bool = False,
    allow_fetch: bool = False,
    model_map: dict[str, str] | None = None,
    max_concurrent: int = 1,
    max_queued: int = 8,
) -> int:
    """Run the server until shutdown; 0 after a clean stop, 1 when it cannot start."""
    path = socket_path(socket_flag, env)
    started = _bind_and_load(
        path,
        paths,
        env,
        engine=engine,
        model=model,
        skills=skills or [],
        isolate=isolate,
        allow_fetch=allow_fetch,
        model_map=model_map,
    )
    if started is None:
        return 1
    sock, session = started
    identity = path.stat()
    state = ServeState(
        session=session,
        socket=str(path),
        skills=_skill_names(session),
        max_concurrent=max_concurrent,
        max_queued=max_queued,
    )
    server = _uvicorn(state)
    print(f"holon-agent serve: listening on {path} (engine {session.engine.name})", file=sys.stderr)
    try:
        server.run(sockets=[sock])
    finally:
        from holon_core.agent.record_session import finish_session
        from holon_core.gateway.shared import close_shared

        close_shared(session.gateway)
        recorded = finish_session(session.gateway)  # HOLON_RECORD: written once all turns end
        sock.close()
        with contextlib.suppress(OSError):
            now = path.stat()
            if (now.st_dev, now.st_ino) == (identity.st_dev, identity.st_ino):
                path.unlink()
    return recorded


def _bind_and_load(
    path: Path, paths: AgentPaths, env: Mapping[str, str], **options: Any
) -> tuple[socket.socket, Session] | None:
    """The socket first (a clash with a live server is reported before any loading), then
    the session; None when either fails, said on stderr."""
    sock = None
    try:
        sock = bind_socket(path)
        return sock, load_session(paths, env, **options)
    except HolonError as exc:
        if sock is not None:
            sock.close()
            path.unlink()
        print(f"holon-agent serve: error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"holon-agent serve: fix: {exc.hint}", file=sys.stderr)
        return None


def _uvicorn(state: ServeState) -> _Server:
    """The uvicorn server over the app; ``state.stop`` asks it to exit."""
    config = uvicorn.Config(
        build_app(state),
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=None,
    )
    server = _Server(config, state)

    def stop() -> None:
        server.should_exit = True

    state.stop = stop
    return server
