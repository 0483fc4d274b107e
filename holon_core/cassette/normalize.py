"""A model request's body with what varies between two runs of the same task taken out.

Two runs of one task never send byte-identical requests: the workspace and the run-local
home sit at other paths, the date moves, engines mint session, device and item ids, tool
results carry timings, and prompt-cache markers move each turn. Replay compares requests
after :func:`normalize_body`, so none of that counts as drift while a changed prompt, skill
text, tool list or tool result still does. Every rule is listed in ``docs/cassettes.md``
(section "Matching"); a rule applies to both sides, each with its own paths.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from holon_core.cassette.scrub import Scrubber

#: Fields dropped wherever they appear: per-request bookkeeping, never what the model reads.
#: ``cache_control``: Anthropic prompt-cache breakpoints move each turn; ``metadata``
#: (Anthropic ``user_id``, OpenAI): device, account and session ids; ``prompt_cache_key``
#: and ``client_metadata`` (OpenAI Responses, Codex): the conversation and installation ids.
DROPPED_FIELDS = frozenset({"cache_control", "metadata", "prompt_cache_key", "client_metadata"})

#: Fields holding an id that links a tool call to its result. Replay serves recorded bytes,
#: so server-minted ids come back identical, but clients mint some (Gemini's function-call
#: ids, Codex's item ids): each distinct value becomes ``<id-N>`` in order of appearance,
#: which keeps every call-result link and drops the value.
ID_FIELDS = frozenset({"id", "call_id", "tool_use_id", "tool_call_id"})

_WEEKDAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*"
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"

#: (pattern, replacement) on every string, in order.
TEXT_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # holon's run ids (``run-20261126T193954-eee1e5-8c22972c``), in run-local home paths
    (re.compile(r"\d{8}T\d{6}-[0-9a-f]{6}(?:-[0-9a-f]{8})?"), "<run-id>"),
    # the gateway's per-run placeholder key, when a tool prints the environment
    (re.compile(r"holon-placeholder-[0-9a-f]{32}"), "<placeholder>"),
    # Claude Code's billing header (system[0]): its version suffix and cch hash follow the
    # prompt and the request; never what the model is asked
    (re.compile(r"x-anthropic-billing-header:[^\n]*"), "x-anthropic-billing-header: <billing>"),
    (re.compile(r"\bcch=[0-9a-f]+"), "cch=<cch>"),
    (
        re.compile(
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
        ),
        "<uuid>",
    ),
    (re.compile(r"\b[0-9a-f]{32,}\b"), "<hex>"),
    (
        re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"),
        "<datetime>",
    ),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), "<date>"),
    (re.compile(rf"\b{_WEEKDAY},? {_MONTH} \d{{1,2}},? \d{{4}}\b"), "<date>"),
    (re.compile(rf"\b{_MONTH} \d{{1,2}},? \d{{4}}\b"), "<date>"),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:\s?[AP]M)?\b"), "<time>"),
    # loopback ports: the gateway's and the scripted server's
    (re.compile(r"\b(127\.0\.0\.1|localhost):\d+"), r"\1:<port>"),
    # tool-result timings and chunk ids (Codex: "Wall time: 0.0012 seconds", "Chunk ID: 8f21b4")
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:seconds|second|secs|sec|ms|s)\b"), "<duration>"),
    (re.compile(r"(Chunk ID:\s*)\w+"), r"\1<id>"),
    # process ids in tool results (Gemini CLI: "Process Group PGID: 10778")
    (re.compile(r"\b(PID|PGID|pid|pgid)(:?\s*)\d+"), r"\1\2<pid>"),
    # a commit listed at a line's start (Claude Code's git status block: "0e80565 initial"):
    # the baseline's commit differs whenever the workspace was committed anew
    # (a short hash may hold no digit: "beaddec")
    (re.compile(r"(?m)^[0-9a-f]{7,40}(?= \S)"), "<commit>"),
)


@dataclass(frozen=True)
class PathMap:
    """One run's absolute paths and the token each becomes (``<workspace>``, ...).

    Longest first, so a path inside another (the workspace inside the run root) wins. Each
    path is also matched in its slug form (every non-alphanumeric character as ``-``), as
    Claude Code names a project's directory.
    """

    pairs: tuple[tuple[str, str], ...] = ()
    #: Normalized strings of this run, by their text (see :func:`normalize_text`).
    cache: dict[str, str] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @classmethod
    def of(cls, named: dict[str, str | None]) -> PathMap:
        """``named``: token name -> absolute path (None or ``/`` skipped)."""
        found: list[tuple[str, str]] = []
        for name, path in named.items():
            path = (path or "").rstrip("/")
            if path.count("/") < 2:  # "/tmp" itself: a system dir, not the run's
                continue
            found.append((path, f"<{name}>"))
            found.append((re.sub(r"[^A-Za-z0-9]", "-", path), f"<{name}-slug>"))
        found.sort(key=lambda pair: len(pair[0]), reverse=True)
        return cls(tuple(found))

    def apply(self, text: str) -> str:
        return replace_all(text, dict(self.pairs))

    def onto(self, other: PathMap) -> list[tuple[str, str]]:
        """(this run's path, the other run's) for each token both know: how a recorded
        response's paths become the replay's."""
        theirs = {token: path for path, token in other.pairs}
        return [(path, theirs[token]) for path, token in self.pairs if token in theirs]


def replace_all(text: str, table: dict[str, str]) -> str:
    """Each key of ``table`` replaced by its value in one pass, longest key first, so a
    replacement is never replaced again (a run's paths often start with another's)."""
    found = [key for key in table if key and key in text]
    if not found:
        return text
    found.sort(key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(key) for key in found))
    return pattern.sub(lambda match: table[match.group(0)], text)


_DIGIT = re.compile(r"\d")
#: The rules (by replacement) that can match text holding no digit; the others need one.
_DIGITLESS = frozenset(
    index
    for index, (_, replacement) in enumerate(TEXT_RULES)
    if replacement
    in {"x-anthropic-billing-header: <billing>", "cch=<cch>", "<hex>", r"\1<id>", "<commit>"}
)


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: Literals one of which every match of a rule holds: the rule runs only on text holding one
#: (``in`` is far cheaper than a regex scan), by the rule's replacement.
_GATE_BY_REPLACEMENT: dict[str, tuple[str, ...]] = {
    "cch=<cch>": ("cch=",),
    "<uuid>": ("-",),
    "<datetime>": (":",),
    "<date>": ("-", *_MONTHS),
    "<time>": (":",),
    r"\1:<port>": ("127.0.0.1:", "localhost:"),
    r"\1\2<pid>": ("PID", "PGID", "pid", "pgid"),
}
_GATES = {
    index: _GATE_BY_REPLACEMENT[replacement]
    for index, (_, replacement) in enumerate(TEXT_RULES)
    if replacement in _GATE_BY_REPLACEMENT
}


#: The token-shape pass recording applies to every recorded string (``scrub.py``): a live
#: request holding an ``sk-...``-shaped string matches its recorded, redacted self.
_SHAPES = Scrubber.shapes()


def normalize_text(text: str, paths: PathMap) -> str:
    """Every rule applied to one string. Each run's requests resend the same system prompt,
    tools and history, so results are kept per run (``paths.cache``): a replay normalizes
    each distinct string once."""
    done = paths.cache.get(text)
    if done is not None:
        return done
    out = _SHAPES(paths.apply(text))  # token shapes are redacted in recordings
    digits = _DIGIT.search(out) is not None
    for index, (pattern, replacement) in enumerate(TEXT_RULES):
        gate = _GATES.get(index)
        if (digits or index in _DIGITLESS) and (gate is None or any(g in out for g in gate)):
            out = pattern.sub(replacement, out)
    if "<available_skills>" in out or "(Available: '" in out:
        out = _sorted_skill_lists(out)
    if len(text) >= 64:
        paths.cache[text] = out
    return out


_SKILLS_BLOCK = re.compile(r"(<available_skills>\n)(.*?)(\n\s*</available_skills>)", re.DOTALL)
_SKILL = re.compile(r"[ \t]*<skill>.*?</skill>", re.DOTALL)
_AVAILABLE = re.compile(r"\(Available: ('[^'\n]*'(?:, '[^'\n]*')*)\)")


def _sorted_skill_lists(text: str) -> str:
    """An engine's list of skills in name order: Gemini CLI finds its built-in skills with
    an asynchronous glob and lists them (``<available_skills>`` in the system prompt, the
    ``activate_skill`` tool's "(Available: ...)") in whichever order the glob returned."""

    def block(match: re.Match[str]) -> str:
        skills = _SKILL.findall(match.group(2))
        if "".join(skills).replace("\n", "") != match.group(2).replace("\n", ""):
            return match.group(0)  # not only <skill> elements: left as it is
        return match.group(1) + "\n".join(sorted(skills)) + match.group(3)

    def names(match: re.Match[str]) -> str:
        return "(Available: " + ", ".join(sorted(match.group(1).split(", "))) + ")"

    return _AVAILABLE.sub(names, _SKILLS_BLOCK.sub(block, text))


def normalize_body(body: Any, paths: PathMap) -> Any:
    """The body with every rule applied (a JSON value in, a JSON value out).

    Strings that hold JSON (Anthropic's ``metadata.user_id``, OpenAI's function-call
    ``arguments``) are normalized as text, which their ids and paths also match as.
    """
    ids: dict[str, str] = {}

    def walk(value: Any, key: str | None) -> Any:
        if isinstance(value, dict):
            # Keys in sorted order: ids are numbered in the order they are met, and a
            # cassette may store a part with its keys sorted (format.canonical_json).
            out = {k: walk(value[k], k) for k in sorted(value) if k not in DROPPED_FIELDS}
            return _sorted_enum(_sorted_tools(out))
        if isinstance(value, list):
            return [walk(item, key) for item in value]
        if isinstance(value, str):
            if key in ID_FIELDS:
                return ids.setdefault(value, f"<id-{len(ids)}>")
            return normalize_text(value, paths)
        return value

    return walk(body, None)


def _sorted_tools(obj: dict[str, Any]) -> dict[str, Any]:
    """Tool lists in name order: engines build them from unordered maps (MCP servers,
    skills), so their order is not the model's business."""
    tools = obj.get("tools")
    if isinstance(tools, list) and all(isinstance(t, dict) for t in tools):
        obj["tools"] = sorted(tools, key=_tool_name)
    declarations = obj.get("functionDeclarations")
    if isinstance(declarations, list) and all(isinstance(d, dict) for d in declarations):
        obj["functionDeclarations"] = sorted(declarations, key=_tool_name)
    return obj


def _sorted_enum(obj: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema ``enum`` of strings in sorted order: a set of allowed values (Gemini
    CLI's ``activate_skill`` lists its skill names in the order it found them)."""
    values = obj.get("enum")
    if isinstance(values, list) and all(isinstance(v, str) for v in values):
        obj["enum"] = sorted(values)
    return obj


def _tool_name(tool: dict[str, Any]) -> str:
    function = tool.get("function")
    if isinstance(function, dict):
        return str(function.get("name", ""))
    return str(tool.get("name") or tool.get("type") or json.dumps(tool, sort_keys=True))


def canonical(body: Any) -> str:
    """A normalized body as stable text, one JSON line per leaf run, for diffs."""
    return json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False)
