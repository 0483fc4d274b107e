"""holon-agent's PID 1 init (``agent/init.py``), driven as if it were PID 1.

The init forks the agent, forwards stop signals to it, reaps every process (here an orphan
it adopts as a subreaper, standing in for the container's PID 1) and exits with the agent's
code. The real PID 1 case is proven in the image by ``container/tests``.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, time
    from holon_core.agent.init import run_as_init, unblock_stop_signals
    from holon_core.process.tree import become_subreaper

    become_subreaper()  # orphans come to the init, as they would to PID 1
    init = os.getpid()

    def agent():
        got = []
        signal.signal(signal.SIGTERM, lambda signum, frame: got.append(signum))
        unblock_stop_signals()
        middle = os.fork()
        if middle == 0:  # its child becomes an orphan: this parent exits at once
            if os.fork() == 0:
                os._exit(0)
            os._exit(0)
        os.waitpid(middle, 0)
        print(f"agent {os.getpid()} init {os.getppid()}", flush=True)
        while not got:
            time.sleep(0.01)
        time.sleep(0.2)  # the orphan has long exited: only the init can reap it
        zombies = [p for p in os.listdir("/proc") if p.isdigit() and _zombie_child(p)]
        print(f"cancelled by {got[0]}; zombies of the agent: {len(zombies)}", flush=True)
        return 3

    def _zombie_child(pid):
        try:
            stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            return False
        return stat[0] == "Z" and int(stat[1]) == os.getpid()

    code = run_as_init(agent, pid=1)
    if os.getpid() != init:
        os._exit(code)
    zombies = sum(
        1 for p in os.listdir("/proc") if p.isdigit() and _zombie_child(p)
    )
    print(f"init exits {code}; zombies left {zombies}", flush=True)
    os._exit(code)
    """
)


def test_init_forwards_sigterm_reaps_orphans_and_exits_with_the_agents_code() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith("agent "), first
    init_pid = int(first.split()[3])
    assert init_pid == proc.pid  # the agent runs in a child; the init stays the first process
    time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)  # to the init, as `podman stop` does
    out, _ = proc.communicate(timeout=30)
    assert f"cancelled by {int(signal.SIGTERM)}" in out
    assert "init exits 3; zombies left 0" in out
    assert proc.returncode == 3
