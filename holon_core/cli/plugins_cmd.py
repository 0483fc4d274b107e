"""``holon plugins [--json]``: what is installed, with versions, hooks and engines."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from holon_core.hooks.manager import load_plugins


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("plugins", help="list installed plugins and the engines they add")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    plugins = load_plugins()
    infos = plugins.describe()
    if args.json:
        payload = []
        for info in infos:
            entry = asdict(info)
            entry["capabilities"] = {
                e: plugins.get_engine(e).capabilities.as_dict() for e in info.engines
            }
            payload.append(entry)
        print(json.dumps(payload, indent=2))
        return 0
    for info in infos:
        version = f" {info.version}" if info.version else ""
        dist = f" ({info.distribution}{version})" if info.distribution else ""
        print(f"{info.name}{dist}")
        print(f"  hooks: {', '.join(info.hooks) or '-'}")
        for engine in info.engines:
            caps = plugins.get_engine(engine).capabilities.as_dict()
            enabled = ", ".join(k for k, v in caps.items() if v) or "-"
            print(f"  engine {engine}: {enabled}")
    return 0
