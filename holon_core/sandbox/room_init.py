"""The first process inside the room: loopback listeners bridged to the host, then the engine.

Run by bubblewrap as ``python -I -S room_init.py PORT=SOCKET ... -- ARGV``. The room's network
namespace has a loopback interface and no route out, so for each ``PORT=SOCKET`` this listens
on ``127.0.0.1:PORT`` and carries every connection to the Unix socket ``SOCKET``, which the
room mounts from the host (the model endpoint's bridge and the egress proxy). The listeners are
bound before the engine starts, so its first request never meets a closed port.

Every run pays for this process's start, so it imports only the interpreter's C modules
(``_socket``, ``_thread``, ``_signal``, ``os``, ``sys``) and no ``site``: about 12 ms here,
where ``socket``, ``threading``, ``signal`` and ``subprocess`` (their enums, selectors and
locks) made it 50 to 60 ms (``bench/sandbox_overhead.py``, "where a room's start goes"). It
imports nothing of holon's: the room mounts the interpreter, not necessarily holon's
dependencies.

Stop signals are not passed on: holon signals the engine's whole process group, this process
included, so the engine gets its own SIGTERM and its grace; this one only outlives it to report
its exit status.
"""

# No contextlib, no pathlib: their imports would be most of this process's start-up.
# ruff: noqa: SIM105, PTH208

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # the C half of signal (no stub)
import _socket
import _thread
import os
import sys

_CHUNK = 1 << 16
_STOPS = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP)
#: Python ignores these at start-up; the engine gets them back at their default, as
#: ``subprocess`` gives its children (``restore_signals``): ``yes | head`` must end ``yes``.
_RESTORED = (_signal.SIGPIPE, _signal.SIGXFSZ)


def _pump(source: _socket.socket, sink: _socket.socket, done: _thread.LockType | None) -> None:
    """Copy until ``source`` ends, then pass the end on (and release ``done``)."""
    try:
        while data := source.recv(_CHUNK):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end, how in ((sink, _socket.SHUT_WR), (source, _socket.SHUT_RD)):
            try:
                end.shutdown(how)
            except OSError:
                pass
        if done is not None:
            done.release()


def _carry(client: _socket.socket, target: str) -> None:
    upstream = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        upstream.connect(target)
    except OSError:
        client.close()
        upstream.close()
        return
    back = _thread.allocate_lock()
    back.acquire()
    _thread.start_new_thread(_pump, (upstream, client, back))
    _pump(client, upstream, None)
    back.acquire()  # the other direction ended too
    client.close()
    upstream.close()


def _serve(listener: _socket.socket, target: str) -> None:
    while True:
        try:
            fd, _ = listener._accept()  # type: ignore[attr-defined]  # socket.accept's core
        except OSError:
            return
        client = _socket.socket(fileno=fd)
        client.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
        _thread.start_new_thread(_carry, (client, target))


def _listen(port: int) -> _socket.socket:
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    return listener


def _inherited() -> list[int]:
    """Descriptors above stderr that would pass to the engine (what ``subprocess`` closes)."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if fd > 2 and os.get_inheritable(fd):
                found.append(fd)
        except OSError:  # the listing's own descriptor, closed by now
            continue
    return found


def main(argv: list[str]) -> int:
    split = argv.index("--")
    forwards, command = argv[:split], argv[split + 1 :]
    for spec in forwards:
        port, target = spec.split("=", 1)
        _thread.start_new_thread(_serve, (_listen(int(port)), target))
    for signum in _STOPS:
        _signal.signal(signum, lambda *_: None)
    closing = [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]
    try:
        engine = os.posix_spawnp(
            command[0], command, os.environ, file_actions=closing, setsigdef=_RESTORED
        )
    except OSError as exc:
        sys.stderr.write(f"holon room: cannot start {command[0]}: {exc}\n")
        return 127
    while True:
        try:
            _, status = os.waitpid(engine, 0)
            break
        except InterruptedError:  # pragma: no cover - PEP 475 retries waitpid itself
            continue
    code = os.waitstatus_to_exitcode(status)
    sys.stdout.flush()
    if code < 0:  # killed by a signal: die of the same one, so holon sees how it ended
        _signal.signal(-code, _signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
