"""The report's lexer lookup picks what Pygments' own ``find_lexer_class_for_filename`` picks,
for a name derived from every file pattern Pygments knows (ambiguous ones included: ``a.h``
is claimed by several lexers) and for names no lexer claims."""

from __future__ import annotations

from pygments.lexers import find_lexer_class_for_filename  # type: ignore[import-untyped]
from pygments.lexers._mapping import LEXERS  # type: ignore[import-untyped]

from holon_core.report.lexers import lexer_class_for

CHOSEN = [
    "hello.txt",
    "src/app.py",
    "a.h",
    "a.c",
    "x.inc",
    "Makefile",
    "Makefile.am",
    "foo.1",
    "CMakeLists.txt",
    "Dockerfile",
    ".bashrc",
    ".bash_profile",
    "a.xpm",
    "Kconfig",
    "a.php5",
    "a.sed",
    "x.lasso9",
    "a.m",
    "a.pl",
    "a.v",
    "a.S",
    "a.s",
    "a.R",
    "noext",
    "q.unknownext",
    "deep/dir/README.md",
    "A.PY",
]


def _names() -> list[str]:
    names = list(CHOSEN)
    for _module, _name, _aliases, patterns, _mimetypes in LEXERS.values():
        for pattern in patterns:
            name = pattern.replace("*", "x")
            if not any(c in name for c in "[]?"):
                names.append(name)
    return names


def test_the_same_lexer_as_pygments_for_every_pattern() -> None:
    names = _names()
    assert len(names) > 900
    differ = {
        name: (lexer_class_for(name), find_lexer_class_for_filename(name.rsplit("/", 1)[-1]))
        for name in names
        if lexer_class_for(name) is not find_lexer_class_for_filename(name.rsplit("/", 1)[-1])
    }
    assert differ == {}


def test_a_name_no_lexer_claims_has_none() -> None:
    assert lexer_class_for("notes.unknownext") is None
    found = lexer_class_for("src/app.py")
    assert found is not None and found.__name__ == "PythonLexer"
