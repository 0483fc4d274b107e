"""Orders an engine does not promise are not drift: Gemini CLI lists its built-in skills
(``skill-creator``, ``antigravity-support``) in whichever order its asynchronous glob found
them, in the system prompt's ``<available_skills>`` block and in the ``activate_skill``
tool. Two such requests normalize to the same body; a changed skill still differs."""

from __future__ import annotations

from typing import Any

from holon_core.cassette.normalize import PathMap, normalize_body

SKILLS = {
    "skill-creator": "Guide for creating effective skills.",
    "antigravity-support": "Answers questions about Antigravity.",
}


def gemini_request(order: list[str], described: dict[str, str] = SKILLS) -> dict[str, Any]:
    """The parts of a Gemini CLI request that carry its skill list, in ``order``."""
    skills = "\n".join(
        f"  <skill>\n    <name>{name}</name>\n    <description>{described[name]}</description>\n"
        f"    <location>/engines/gemini/bundle/builtin/{name}/SKILL.md</location>\n  </skill>"
        for name in order
    )
    system = (
        "You are an interactive CLI agent.\n\n# Available Agent Skills\n\n<available_skills>\n"
        f"{skills}\n</available_skills>\n\nMore instructions."
    )
    hint = ", ".join(f"'{name}'" for name in order)
    tool = {
        "name": "activate_skill",
        "description": f"Activates a specialized agent skill by name (Available: {hint}).",
        "parametersJsonSchema": {
            "type": "object",
            "properties": {"name": {"type": "string", "enum": list(order)}},
        },
    }
    return {
        "systemInstruction": {"parts": [{"text": system}]},
        "tools": [{"functionDeclarations": [tool]}],
        "contents": [{"role": "user", "parts": [{"text": "Create hello.txt"}]}],
    }


def normalized(body: dict[str, Any]) -> Any:
    return normalize_body(body, PathMap())


def test_the_skill_order_of_gemini_cli_is_not_drift() -> None:
    one = gemini_request(["skill-creator", "antigravity-support"])
    other = gemini_request(["antigravity-support", "skill-creator"])
    assert one != other
    assert normalized(one) == normalized(other)


def test_a_changed_skill_is_still_drift() -> None:
    changed = dict(SKILLS, **{"skill-creator": "Something else entirely."})
    one = gemini_request(["skill-creator", "antigravity-support"])
    other = gemini_request(["antigravity-support", "skill-creator"], changed)
    assert normalized(one) != normalized(other)
    renamed = gemini_request(["skill-creator", "antigravity-support"])
    renamed["tools"][0]["functionDeclarations"][0]["description"] = renamed["tools"][0][
        "functionDeclarations"
    ][0]["description"].replace("'skill-creator'", "'skill-maker'")
    assert normalized(one) != normalized(renamed)
