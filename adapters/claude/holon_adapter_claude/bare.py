"""Claude Code run bare, without holon: the measured recipe of engines.md section 2.

The conformance kit (``holon_conformance.direct``) finds this module next to the adapter and
uses it so benchmarks and tests drive the bare CLI exactly like each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

#: Where the CLI discovers user skills, relative to HOME (engines.md section 7).
SKILL_DIR = ".claude/skills"


def bare_launch(
    binary: str, prompt: str, home: Path, endpoint: dict[str, str], retries: int
) -> tuple[list[str], dict[str, str]]:
    """argv and the variables to add to a clean environment (``endpoint``: the adapter's)."""
    (home / ".claude").mkdir(exist_ok=True)
    env = {
        **endpoint,
        "IS_SANDBOX": "1",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_MAX_RETRIES": str(retries),
    }
    argv = [binary, "-p", prompt, "--output-format", "stream-json", "--verbose"]
    return [*argv, "--dangerously-skip-permissions"], env
