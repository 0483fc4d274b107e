"""The core and the conformance suite name no engine outside docs and comments.

Which engines exist is what the installed adapters declare (entry points): a fourth engine
must plug in without a core edit. Python is read token by token (comments and docstrings may
name engines as examples); data files (JSON, YAML) must not name one at all.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = re.compile(r"claude|codex|gemini", re.IGNORECASE)
#: Documentation kept as data: the requirement registry quotes the RFC's sentences.
DOCS = {"conformance/holon_conformance/suite/rfc-0002.yaml"}
#: Keyword arguments whose string is help text, not code.
HELP_KEYWORDS = {"description", "help"}
#: Identifiers of published conventions that name a model API's provider, not an engine:
#: OpenTelemetry's GenAI provider for Google's generateContent API is ``gcp.gemini``.
CONVENTION_NAMES = {"GCP_GEMINI"}


def code_mentions(path: Path) -> list[str]:
    """Lines where a Python file names an engine outside a comment or a docstring."""
    found = []
    before: list[tokenize.TokenInfo] = []
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline)
    for token in tokens:
        if token.type in (tokenize.COMMENT, tokenize.NL):
            continue
        kinds = [t.type for t in before[-1:]] or [tokenize.NEWLINE]
        docstring = token.type == tokenize.STRING and kinds[0] in (
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
        )
        keyword = [t.string for t in before[-2:]]
        help_text = token.type == tokenize.STRING and keyword[-1:] == ["="]
        help_text = help_text and keyword[0] in HELP_KEYWORDS
        convention = token.type == tokenize.NAME and token.string in CONVENTION_NAMES
        if not (docstring or help_text or convention) and ENGINE.search(token.string):
            found.append(f"{path.name}:{token.start[0]}: {token.line.strip()}")
        before.append(token)
    return found


def mentions(folder: str) -> list[str]:
    found = []
    for path in sorted((ROOT / folder).rglob("*")):
        relative = path.relative_to(ROOT).as_posix()
        if not path.is_file() or "__pycache__" in relative:
            continue
        if relative in DOCS:
            continue
        if path.suffix == ".py":
            found += code_mentions(path)
        elif path.suffix in (".json", ".yaml", ".yml", ".toml") and ENGINE.search(path.read_text()):
            found.append(f"{relative}: names an engine in data")
    return found


def test_the_core_names_no_engine() -> None:
    assert mentions("holon_core") == []


def test_the_conformance_fixtures_and_suite_name_no_engine() -> None:
    assert mentions("conformance/holon_conformance") == []


def test_the_check_sees_code_but_not_comments(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    text = '"""Docs may say Claude."""\n# so may comments: codex\nX = "gemini"\nf(help="codex")\n'
    sample.write_text(text)
    assert [line.split(": ", 1)[1] for line in code_mentions(sample)] == ['X = "gemini"']
