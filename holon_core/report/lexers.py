"""The Pygments lexer for a file name, found without testing every lexer's patterns.

``pygments.lexers.get_lexer_for_filename`` matches the name against all of its ~930 file
patterns, each through a regular expression, on every call: about 330 ms per file of a diff
on a 2-core machine, which made the report the slowest part of a small run's end. Nearly
every pattern is ``*.ext`` or a plain name, so they are indexed once by their literal tail;
a name is matched (``fnmatch``, case-sensitive, as Pygments does) only against the patterns
whose tail it ends with, plus the dozen with no literal tail. Among the matches the choice is
Pygments' own: the lexer's ``priority``, half a point more for a pattern without ``*``, then
the class name. Lexers registered by third-party plugins are not consulted.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from fnmatch import fnmatchcase
from typing import Any

#: (module, lexer name, pattern) of every file pattern, by the literal text after its last
#: ``*``; the patterns without a literal tail (``*.[1-9]``, ``Makefile.*``) under "".
_Entry = tuple[str, str, str]


@functools.cache
def _index() -> dict[str, list[_Entry]]:
    from pygments.lexers._mapping import LEXERS  # type: ignore[import-untyped]

    index: dict[str, list[_Entry]] = defaultdict(list)
    for module, name, _aliases, patterns, _mimetypes in LEXERS.values():
        for pattern in patterns:
            tail = pattern.rsplit("*", 1)[-1]
            wild = not tail or any(c in tail for c in "[]?")
            index["" if wild else tail].append((module, name, pattern))
    return dict(index)


def lexer_class_for(filename: str) -> Any | None:
    """The lexer class Pygments would pick for ``filename`` (a path or a base name)."""
    from pygments.lexers import find_lexer_class  # type: ignore[import-untyped]

    name = filename.rsplit("/", 1)[-1]
    index = _index()
    candidates = list(index.get("", []))
    for start in range(len(name)):
        candidates += index.get(name[start:], [])
    matches: list[tuple[Any, str]] = []
    for _module, lexer_name, pattern in candidates:
        if fnmatchcase(name, pattern):
            matches.append((find_lexer_class(lexer_name), pattern))
    if not matches:
        return None

    def rating(match: tuple[Any, str]) -> tuple[float, str]:
        cls, pattern = match
        return cls.priority + (0.5 if "*" not in pattern else 0), cls.__name__

    return max(matches, key=rating)[0]
