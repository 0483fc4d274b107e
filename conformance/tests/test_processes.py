"""The leak check catches what a test leaves behind, orphans in their own session included."""

from __future__ import annotations

import subprocess

import pytest
from holon_conformance.processes import (
    assert_no_leftovers,
    become_subreaper,
    descendant_pids,
)


def test_an_orphan_in_its_own_session_is_found_and_killed():
    assert become_subreaper()
    before = descendant_pids()
    # The shell starts `sleep` in a new session and exits at once: `sleep` is an orphan,
    # like a tool process Codex or Gemini leaves behind.
    subprocess.run(["sh", "-c", "setsid sleep 30 </dev/null >/dev/null 2>&1 &"], check=True)
    with pytest.raises(AssertionError, match="sleep 30"):
        assert_no_leftovers(before, grace=0.2)
    assert descendant_pids() == before


def test_a_process_that_ends_within_the_grace_period_is_not_a_leak():
    before = descendant_pids()
    proc = subprocess.Popen(["sleep", "0.2"])
    assert_no_leftovers(before, grace=5)
    assert proc.wait(timeout=5) == 0
