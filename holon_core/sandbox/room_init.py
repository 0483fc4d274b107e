"""The first process inside the room: loopback listeners bridged to the host, then the engine.

Run by bubblewrap as ``python -I -S room_init.py PORT=SOCKET ... -- ARGV``. The room's network
namespace has a loopback interface and no route out, so for each ``PORT=SOCKET`` this listens
on ``127.0.0.1:PORT`` and carries every connection to the Unix socket ``SOCKET``, which the
room mounts from the host (the model endpoint's bridge and the egress proxy). The listeners are
bound before the engine starts, so its first request never meets a closed port.

Standard library only, no ``site``: it starts in about 20 ms and imports nothing of holon's
(the room mounts the interpreter, not necessarily holon's dependencies).

Stop signals are not passed on: holon signals the engine's whole process group, this process
included, so the engine gets its own SIGTERM and its grace; this one only outlives it to report
its exit status.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading

_CHUNK = 1 << 16


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(_CHUNK):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end, how in ((sink, socket.SHUT_WR), (source, socket.SHUT_RD)):
            with contextlib.suppress(OSError):
                end.shutdown(how)


def _carry(client: socket.socket, target: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(target)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    back.start()
    _pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _serve(listener: socket.socket, target: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=_carry, args=(client, target), daemon=True).start()


def _listen(port: int) -> socket.socket:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    return listener


def main(argv: list[str]) -> int:
    split = argv.index("--")
    forwards, command = argv[:split], argv[split + 1 :]
    for spec in forwards:
        port, target = spec.split("=", 1)
        listener = _listen(int(port))
        threading.Thread(target=_serve, args=(listener, target), daemon=True).start()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: None)
    try:
        engine = subprocess.Popen(command)
    except OSError as exc:
        sys.stderr.write(f"holon room: cannot start {command[0]}: {exc}\n")
        return 127
    while True:
        try:
            code = engine.wait()
            break
        except InterruptedError:  # pragma: no cover - PEP 475 retries wait() itself
            continue
    sys.stdout.flush()
    if code < 0:  # killed by a signal: die of the same one, so holon sees how it ended
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
