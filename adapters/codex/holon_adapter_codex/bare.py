"""Codex CLI run bare, without holon: the measured recipe of engines.md section 2.

The conformance kit (``holon_conformance.direct``) finds this module next to the adapter and
uses it so benchmarks and tests drive the bare CLI exactly like each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

#: Where the CLI discovers user skills, relative to HOME (engines.md section 7).
SKILL_DIR = ".codex/skills"
#: A catalog model: it decides the tool set (``apply_patch`` needs a known model).
MODEL = "gpt-5.5"


def provider_args(base_url: str, retries: int) -> list[str]:
    """``-c`` options that send the CLI to ``base_url`` (it ignores ``OPENAI_BASE_URL`` with
    an API key, 0.169.0), retries capped: by default it retries 5xx and stream errors a lot."""
    table = (
        f'{{name="scripted",base_url="{base_url}",env_key="OPENAI_API_KEY",'
        f'wire_api="responses",request_max_retries={retries},stream_max_retries={retries}}}'
    )
    return ["-c", f"model_providers.scripted={table}", "-c", "model_provider=scripted"]


def bare_launch(
    binary: str, prompt: str, home: Path, endpoint: dict[str, str], retries: int
) -> tuple[list[str], dict[str, str]]:
    """argv and the variables to add to a clean environment (``endpoint``: the adapter's)."""
    (home / ".codex").mkdir(exist_ok=True)
    env = {"CODEX_HOME": str(home / ".codex"), "OPENAI_API_KEY": endpoint["OPENAI_API_KEY"]}
    argv = [binary, "exec", "--json", "--skip-git-repo-check"]
    argv += ["--dangerously-bypass-approvals-and-sandbox"]
    argv += ["--disable", "plugins", "--disable", "remote_plugin", "--disable", "apps"]
    argv += ["-c", "analytics.enabled=false", *provider_args(endpoint["OPENAI_BASE_URL"], retries)]
    return [*argv, "-m", MODEL, prompt], env
