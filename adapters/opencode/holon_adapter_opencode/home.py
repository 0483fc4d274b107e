"""The run-local OpenCode home: XDG dirs under the run's HOME and one generated config.

OpenCode reads ``$XDG_CONFIG_HOME/opencode/opencode.json`` and keeps its database, logs and
snapshots in ``$XDG_DATA_HOME/opencode``; pointing all four XDG variables inside the run
keeps the user's own config and sessions out. Nothing is fetched at run time: the models
list (``OPENCODE_DISABLE_MODELS_FETCH``), default plugins, LSP downloads and auto-update are
switched off, and the Anthropic provider it needs is built into the binary. Its skill, glob
and grep tools run ripgrep: ``rg`` from PATH, else from its data dir, else downloaded from
GitHub; holon links the ``rg`` it finds into the run's data dir so none is ever downloaded.
What else OpenCode would do at start that holon spares is in ``startup.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from holon_adapter_opencode.startup import models_env, skip_plugin_install

DEFAULT_MODEL = "anthropic/claude-sonnet-4-5"
#: Variables that keep OpenCode off the network except for the model endpoint.
OFFLINE_ENV = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
    # Not network, but work holon does not need: no file watcher over the workspace.
    "OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER": "1",
}


def xdg_dirs(home: Path) -> dict[str, str]:
    names = {"XDG_CONFIG_HOME": ".config", "XDG_DATA_HOME": ".local/share"}
    names |= {"XDG_CACHE_HOME": ".cache", "XDG_STATE_HOME": ".local/state"}
    return {variable: str(home / folder) for variable, folder in names.items()}


def config_dir(home: Path) -> Path:
    return home / ".config" / "opencode"


def skills_dir(home: Path) -> Path:
    """Where OpenCode discovers global skills (``skills/<name>/SKILL.md``)."""
    return config_dir(home) / "skills"


def config(
    model: str, base_url: str | None, max_steps: int | None, *, sandboxed: bool = False
) -> dict[str, Any]:
    """The forced settings: one model for every agent, tools allowed, nothing shared.

    Outside directories: OpenCode refuses a command that names one, unless holon's room
    already makes them nonexistent (then the room is the one policy, as for every engine)."""
    provider_id, _, model_id = model.partition("/")
    provider: dict[str, Any] = {"models": {model_id: {"name": model_id}}}
    if base_url:
        provider["options"] = {"baseURL": base_url.rstrip("/") + "/v1"}
    build: dict[str, Any] = {"model": model}
    if max_steps is not None:
        build["steps"] = max_steps
    return {
        "autoupdate": False,
        "share": "disabled",
        "snapshot": False,  # holon records the diff; OpenCode's git snapshots halve its speed
        "model": model,
        "small_model": model,  # the title side call goes to the same endpoint
        "provider": {provider_id: provider},
        "agent": {"build": build},
        "permission": {
            "edit": "allow",
            "bash": "allow",
            "skill": "allow",
            "webfetch": "deny",
            "external_directory": "allow" if sandboxed else "deny",
        },
    }


def find_ripgrep(path: str | None) -> Path | None:
    """``rg`` on the engine's PATH, else beside this Python (PyPI's ``ripgrep`` puts it there)."""
    found = shutil.which("rg", path=path)
    if found:
        return Path(found)
    import sysconfig  # only here: every holon process (the probe too) imports this module

    beside = Path(sysconfig.get_path("scripts")) / "rg"
    return beside if beside.is_file() else None


def link_ripgrep(home: Path, path: str | None) -> Path | None:
    """Link ``rg`` where OpenCode looks before it downloads one; the target, or None."""
    rg = find_ripgrep(path)
    if rg is None:
        return None
    # the data dir (older releases) and the cache dir (1.18: XDG_CACHE_HOME/opencode/bin)
    for target in (
        home / ".local" / "share" / "opencode" / "bin" / "rg",
        home / ".cache" / "opencode" / "bin" / "rg",
    ):
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.symlink_to(rg.resolve())
    return target


def write_home(home: Path, settings: dict[str, Any], path: str | None) -> dict[str, str]:
    """Create the XDG dirs and the config; the variables that point OpenCode at them."""
    env = xdg_dirs(home)
    for value in env.values():
        Path(value).mkdir(parents=True, exist_ok=True)
    config_dir(home).mkdir(parents=True, exist_ok=True)
    target = config_dir(home) / "opencode.json"
    target.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    link_ripgrep(home, path)
    skip_plugin_install(config_dir(home))
    models = models_env(Path(env["XDG_CACHE_HOME"]), str(settings["model"]).partition("/")[0])
    return env | OFFLINE_ENV | models | {"OPENCODE_CONFIG": str(target)}
