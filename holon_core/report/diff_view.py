"""``diff.patch`` split per file and rendered line by line, with syntax highlighting.

Each file's hunk lines (without their ``+``/``-``/`` `` prefix) are lexed once by Pygments
(chosen by the file name) and the tokens cut back into lines, so a line keeps its colours
and the diff keeps its shape. Token text is escaped here, by :func:`markup.esc`; Pygments'
own HTML output is never used. Without Pygments the lines are shown plain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from holon_core.report.markup import Markup, esc, join, tag

#: Lines highlighted per file; longer files are shown plain past this.
MAX_HIGHLIGHT_LINES = 5_000
_GIT_NAMES = re.compile(r"^diff --git a/(.*) b/(.*)$")


@dataclass
class FileDiff:
    old: str | None
    new: str | None
    header: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # from the first @@ on

    @property
    def name(self) -> str:
        if self.new and self.old and self.new != self.old:
            return f"{self.old} → {self.new}"
        return self.new or self.old or "(unnamed)"

    @property
    def status(self) -> str:
        joined = "\n".join(self.header)
        if "Binary files" in joined or "GIT binary patch" in joined:
            return "binary"
        if "new file mode" in joined:
            return "added"
        if "deleted file mode" in joined:
            return "deleted"
        if "rename from" in joined:
            return "renamed"
        return "modified"

    @property
    def added(self) -> int:
        return sum(1 for line in self.lines if line.startswith("+"))

    @property
    def removed(self) -> int:
        return sum(1 for line in self.lines if line.startswith("-"))


def split(patch: str) -> list[FileDiff]:
    files: list[FileDiff] = []
    current: FileDiff | None = None
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            names = _GIT_NAMES.match(line)
            current = FileDiff(names.group(1) if names else None, names.group(2) if names else None)
            current.header.append(line)
            files.append(current)
        elif current is None:
            continue
        elif current.lines or line.startswith("@@"):
            current.lines.append(line)
        else:
            current.header.append(line)
            _names_from_header(current, line)
    return files


def _names_from_header(diff: FileDiff, line: str) -> None:
    if line.startswith("--- ") and line != "--- /dev/null":
        diff.old = _strip_prefix(line[4:], "a/")
    elif line.startswith("+++ ") and line != "+++ /dev/null":
        diff.new = _strip_prefix(line[4:], "b/")
    elif line == "--- /dev/null":
        diff.old = None
    elif line == "+++ /dev/null":
        diff.new = None


def _strip_prefix(name: str, prefix: str) -> str:
    name = name.split("\t", 1)[0]
    return name[len(prefix) :] if name.startswith(prefix) else name


def render_file(diff: FileDiff) -> Markup:
    """One file's lines as a ``<pre>`` of rows: hunk headers, context, additions, removals."""
    if not diff.lines:
        what = "a binary file" if diff.status == "binary" else "no lines (mode or name only)"
        return tag("p", f"{what}: see diff.patch", class_="muted nolines")
    code_lines = [line[1:] for line in diff.lines if not line.startswith("@@")]
    coloured = highlight(diff.new or diff.old or "", code_lines)
    rows: list[Markup] = []
    index = 0
    for line in diff.lines:
        if line.startswith("@@"):
            rows.append(tag("span", line, class_="dl hunk"))
            continue
        mark = line[:1]
        kind = {"+": "add", "-": "del", "\\": "meta"}.get(mark, "ctx")
        body = coloured[index] if index < len(coloured) else esc(line[1:])
        index += 1
        rows.append(tag("span", tag("span", mark or " ", class_="mark"), body, class_=f"dl {kind}"))
    return tag("pre", join(rows), class_="diff code")


def highlight(filename: str, lines: list[str]) -> list[Markup]:
    """``lines`` as escaped HTML, one entry per line, coloured when Pygments knows the file."""
    plain = [esc(line) for line in lines]
    if not lines or len(lines) > MAX_HIGHLIGHT_LINES:
        return plain
    try:
        from pygments.token import STANDARD_TYPES  # type: ignore[import-untyped]

        from holon_core.report.lexers import lexer_class_for
    except ImportError:
        return plain
    found = lexer_class_for(filename)
    if found is None:
        return plain
    lexer = found(stripnl=False)
    # per line, runs of [css class, text]: a token of the same class, or blank text, joins
    # the run before it (fewer spans, the same colours)
    out: list[list[list[str]]] = [[]]
    for token, value in lexer.get_tokens("\n".join(lines) + "\n"):
        css = _css_class(token, STANDARD_TYPES)
        for i, piece in enumerate(value.split("\n")):
            if i:
                out.append([])
            runs = out[-1]
            if not piece:
                continue
            if runs and (runs[-1][0] == css or piece.isspace()):
                runs[-1][1] += piece
            else:
                runs.append([css, piece])
    rendered = [
        Markup("".join(tag("span", text, class_=css) if css else esc(text) for css, text in runs))
        for runs in out[: len(lines)]
    ]
    return rendered if len(rendered) == len(lines) else plain


def _css_class(token: object, standard: dict[object, str]) -> str:
    current = token
    while current is not None:
        found = standard.get(current)
        if found is not None:
            return found
        current = getattr(current, "parent", None)
    return ""


def style_css(scope: str) -> str:
    """Pygments' colours for the token classes, scoped under ``scope`` (empty without it)."""
    try:
        from pygments.formatters import HtmlFormatter  # type: ignore[import-untyped]
    except ImportError:
        return ""
    css: str = HtmlFormatter(style="friendly").get_style_defs(scope)
    # Only the token rules: the formatter's own pre/line-number rules are not ours.
    return "\n".join(
        line for line in css.splitlines() if line.startswith(f"{scope} .") and "{" in line
    )
