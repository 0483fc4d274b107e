"""``holon-provider`` / ``python -m holon_conformance.provider``: serve a scenario until stopped."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from holon_conformance import __version__
from holon_conformance.provider.scenario import ScenarioError, library_names
from holon_conformance.provider.server import ScriptedProvider
from holon_core.cli.parser import Parser

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import FrameType


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(
        prog="holon-provider",
        description="Scripted model server for the installed adapters' engines (127.0.0.1 only).",
    )
    parser.add_argument("--version", action="version", version=f"holon-provider {__version__}")
    parser.add_argument(
        "--scenario", required=True, help=f"a file, or one of: {', '.join(library_names())}"
    )
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument("--log", type=Path, help="append one JSON line per request here")
    parser.add_argument("--workdir", help="workspace for relative paths when the prompt has none")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        provider = ScriptedProvider(
            args.scenario, port=args.port, log_path=args.log, workdir=args.workdir
        )
    except ScenarioError as exc:
        print(f"holon-provider: error: {exc}", file=sys.stderr)
        return 1
    done = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    with provider:
        print(f"holon-provider: serving {provider.scenario.name!r} at {provider.url}", flush=True)
        for engine, env in endpoint_envs(provider.url).items():
            print(f"  {engine}: {' '.join(f'{k}={v}' for k, v in env.items())}", flush=True)
        done.wait()
    return 0


def endpoint_envs(url: str) -> dict[str, dict[str, str]]:
    """Each installed adapter's variables pointing its engine at ``url`` (none: left out)."""
    from holon_core.hooks.manager import load_plugins

    plugins = load_plugins()
    found = {name: plugins.get_engine(name).endpoint_env(url) for name in plugins.engine_names()}
    return {name: env for name, env in found.items() if env}


if __name__ == "__main__":
    sys.exit(main())
