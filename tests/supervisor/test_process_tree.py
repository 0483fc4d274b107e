"""process_tree on its own: subreaper, descendants, and a sweep that kills and reaps."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import psutil

from holon_core.process.tree import (
    ProcessTree,
    become_subreaper,
    children_of,
    descendants,
    kill_tree,
    scan,
)


def test_become_subreaper_on_linux():
    assert become_subreaper() is sys.platform.startswith("linux")
    assert become_subreaper() is sys.platform.startswith("linux")  # idempotent


def test_descendants_of_a_missing_pid_is_empty():
    proc = subprocess.Popen(["true"])
    proc.wait()
    assert descendants(proc.pid) == []


def test_kill_tree_kills_and_reaps_a_whole_tree():
    become_subreaper()
    # sh -> two sleeps; one leaves the session. Announce pids, then wait forever.
    proc = subprocess.Popen(
        ["sh", "-c", "sleep 300 & setsid sleep 300 & echo $!; echo ready; wait"],
        stdout=subprocess.PIPE,
        start_new_session=True,
        text=True,
    )
    assert proc.stdout is not None
    setsid_pid = int(proc.stdout.readline())
    assert proc.stdout.readline().strip() == "ready"
    tree = ProcessTree(proc.pid)
    found = {p.pid for p in tree.members()}
    assert {proc.pid, setsid_pid} <= found
    assert len(descendants(proc.pid)) == 2
    watched = [psutil.Process(pid) for pid in found]

    report = kill_tree(tree.members)

    assert report.killed == 3
    assert report.survivors == 0
    assert [p for p in watched if p.is_running()] == []
    proc.stdout.close()
    proc.returncode = -9  # reaped by kill_tree, by pid


def test_the_proc_scan_agrees_with_psutil_even_for_an_odd_command_name(tmp_path):
    # A command name with spaces and parentheses must not shift the fields read after it.
    odd = tmp_path / "a) b (c"
    odd.symlink_to(shutil.which("sleep") or "/bin/sleep")
    proc = subprocess.Popen([str(odd), "300"], start_new_session=True)
    try:
        real = psutil.Process(proc.pid)
        for _ in range(500):  # until the exec is done: mid-exec the child maps no memory yet
            if real.cmdline()[:1] == [str(odd)]:
                break
            time.sleep(0.01)
        stat = scan()[proc.pid]
        assert (stat.ppid, stat.session, stat.zombie) == (os.getpid(), proc.pid, False)
        assert stat.rss_bytes > 0
        assert [p.pid for p in children_of(os.getpid())].count(proc.pid) == 1
        assert [p.pid for p in descendants(os.getpid())].count(proc.pid) == 1
        proc.kill()
        for _ in range(200):  # the kill lands asynchronously: a zombie until reaped
            if scan()[proc.pid].zombie:
                break
            time.sleep(0.01)
        assert scan()[proc.pid].zombie
        assert real.status() == psutil.STATUS_ZOMBIE
    finally:
        proc.kill()
        proc.wait()
    assert proc.pid not in scan()
