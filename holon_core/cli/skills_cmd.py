"""``holon skills list|show|validate|add|remove``: what a run would stage, and the local store.

``list`` and ``show`` run the same resolver as ``holon-agent`` (layers, precedence, checks),
given the spec (``--spec``), the workspace (``--workspace``, default ``.``) and ``--skill``
dirs; a refusal prints the rule that refused and exits 1, as the run would fail.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from holon_core.errors import InputError, SkillError
from holon_core.skill.layers import STORE_REF, describe, resolve_skills
from holon_core.skill.package import ResolvedSkill, load_skill

ACTIONS = {
    "list": "every skill found (layer, version, origin, digest, valid or why not, shadowed) "
    "and what a run would stage",
    "show": "one skill: where each layer has it, which one wins, its files and digest",
    "validate": "check a skill directory or pinned archive against every rule",
    "add": "add a skill dir or PATH|URL#sha256=HEX archive to the local store",
    "remove": "remove NAME@VERSION (or every version of NAME) from the local store",
}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("skills", help="list, check and store skills", description=__doc__)
    actions = parser.add_subparsers(dest="skills_command", metavar="ACTION")
    for name, text in ACTIONS.items():
        action = actions.add_parser(name, help=text, description=text)
        if name in ("show", "remove"):
            action.add_argument("name", metavar="NAME[@VERSION]" if name == "remove" else "NAME")
        if name in ("validate", "add"):
            action.add_argument("source", metavar="PATH" if name == "validate" else "PATH|URL")
        if name in ("list", "show"):
            action.add_argument("--spec", metavar="SPEC", help="the task spec (its skills)")
            action.add_argument(
                "--workspace", metavar="DIR", default=".", help="workspace (default: .)"
            )
            action.add_argument(
                "--skill", action="append", default=[], metavar="DIR", help="as holon run"
            )
        action.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    if args.skills_command is None:
        raise InputError("say what to do: holon skills " + " | ".join(ACTIONS))
    env = dict(os.environ)
    handler = {"list": _list, "show": _show, "validate": _validate, "add": _add}
    handler["remove"] = _remove
    try:
        data = handler[args.skills_command](args, env)
    except SkillError as exc:
        if not args.json:
            raise
        _emit({"ok": False, "error": exc.message, "hint": exc.hint}, True)
        return 1
    _emit(data, args.json)
    return 0 if data.get("ok", True) else 1


def _inputs(
    args: argparse.Namespace, also: str | None = None
) -> tuple[list[str], list[Path], Path, Path]:
    """The spec's references, the flag dirs, the input dir and the workspace a run would get;
    ``also``: a name looked up as if the spec named it."""
    refs: list[str] = []
    input_dir = Path.cwd()
    if args.spec:
        from holon_core.spec.load import load_spec

        spec, _ = load_spec(Path(args.spec))
        refs, input_dir = list(spec.metadata.skills), Path(args.spec).parent
    workspace = Path(args.workspace)
    if not workspace.is_dir():
        raise InputError(f"workspace {workspace} is not a directory", hint="pass --workspace DIR")
    if also is not None and also not in refs:
        refs.append(also)
    return refs, [Path(s).expanduser() for s in args.skill], input_dir, workspace


def _resolve(
    args: argparse.Namespace, env: Mapping[str, str], also: str | None = None
) -> tuple[list[ResolvedSkill], list[str]]:
    """What the run would resolve; ``also``: a name looked up as if the spec named it."""
    refs, flags, input_dir, workspace = _inputs(args, also)
    with tempfile.TemporaryDirectory(prefix="holon-skills-") as scratch:
        return resolve_skills(
            refs, flags, input_dir, workspace=workspace, env=env, scratch=Path(scratch)
        )


def _list(args: argparse.Namespace, env: Mapping[str, str]) -> dict[str, Any]:
    """Every skill found (docs/skills.md, "Listing skills"), and what a run would stage."""
    from holon_core.skill.catalog import build_catalog
    from holon_core.skill.store import entries

    refs, flags, input_dir, workspace = _inputs(args)
    with tempfile.TemporaryDirectory(prefix="holon-skills-") as scratch:
        found = build_catalog(
            refs, flags, input_dir, workspace=workspace, env=env, scratch=Path(scratch)
        )
    rows = [row.to_json() for row in found.rows]
    library = ("builtin", "user")
    offered = {r["name"] for r in rows if r["layer"] in library and r["status"] == "available"}
    refusal = found.refusal
    return {
        "ok": refusal is None,
        "error": None if refusal is None else refusal.message,
        "hint": None if refusal is None else refusal.hint,
        "skills": rows,
        "staged": [row.to_json() for row in found.staged],
        "notes": found.notes,
        "available": sorted(offered),
        "store": [f"{name}@{version}" for name, version, _ in entries(env)],
    }


def _show(args: argparse.Namespace, env: Mapping[str, str]) -> dict[str, Any]:
    if STORE_REF.match(args.name):
        from holon_core.skill.store import lookup

        name, version = args.name.split("@", 1)
        return {"ok": True, "skill": _row(lookup(name, version, env), files=True)}
    skills, notes = _resolve(args, env, also=args.name)
    found = [s for s in skills if s.name == args.name]
    return {"ok": True, "skill": _row(found[0], files=True), "notes": notes}


def _validate(args: argparse.Namespace, env: Mapping[str, str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="holon-skills-") as scratch:
        source = args.source
        if "#sha256=" in source:
            from holon_core.skill.archive import materialize

            path = materialize(source, base=Path.cwd(), dest=Path(scratch))
        else:
            path = Path(source).expanduser()
        try:
            skill = load_skill(path, "flag", origin=source)
        except SkillError as exc:
            return {"ok": False, "source": source, "error": exc.message, "hint": exc.hint}
        # Checked on its own, the package is in no layer: a run decides that, not validate.
        return {"ok": True, "skill": _row(skill, files=True) | {"layer": None}}


def _add(args: argparse.Namespace, env: Mapping[str, str]) -> dict[str, Any]:
    from holon_core.skill.store import add

    added = add(args.source, env)
    return {"ok": True, "added": added.created, "path": str(added.path), "skill": _row(added.skill)}


def _remove(args: argparse.Namespace, env: Mapping[str, str]) -> dict[str, Any]:
    from holon_core.skill.store import remove

    name, _, version = args.name.partition("@")
    return {"ok": True, "removed": remove(name, version or None, env)}


def _row(skill: ResolvedSkill, *, files: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = dict(describe(skill))
    row["description"] = skill.description
    row["warnings"] = list(skill.warnings)
    if skill.requires_env:
        row["requires_env"] = list(skill.requires_env)
    if skill.artifacts:
        row["artifacts"] = list(skill.artifacts)
    if files:
        row["path"] = str(skill.path)
        row["files"] = [p.relative_to(skill.path).as_posix() for p in skill.files]
    return row


def _emit(data: Mapping[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(data, indent=2))
        return
    out = sys.stdout
    if not data.get("ok", True):
        print(f"refused: {data.get('error')}", file=out)
        if data.get("hint"):
            print(f"  fix: {data['hint']}", file=out)
    if "skills" in data:
        from holon_core.cli.skills_table import skills_table

        for line in skills_table(data["skills"]):
            print(line, file=out)
        staged = [row["name"] for row in data["staged"]]
        if data["ok"]:
            print("a run stages, in order: " + (", ".join(staged) or "none"), file=out)
    for note in data.get("notes", []):
        print(f"note: {note}", file=out)
    if "skill" in data:
        row = data["skill"]
        print(_line(row), file=out)
        for key in ("description", "path", "requires_env", "artifacts", "files"):
            if row.get(key):
                value = row[key]
                print(f"  {key}: {', '.join(value) if isinstance(value, list) else value}")
        for warning in row.get("warnings", []):
            print(f"  warning: {warning}", file=out)
    if "added" in data:
        print(("added to " if data["added"] else "already in the store: ") + data["path"])
    for ref in data.get("removed", []):
        print(f"removed {ref}", file=out)


def _line(row: Mapping[str, Any]) -> str:
    version = f"@{row['version']}" if row.get("version") else ""
    layer = row["layer"] or "valid, no layer"
    return f"{row['name']}{version}  {layer}  {row['origin']}  sha256:{row['sha256'][:12]}"
