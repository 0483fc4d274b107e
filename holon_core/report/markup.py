"""Markup built one way only: record values are escaped on the way in, never concatenated.

``Markup`` marks a string as HTML this package built; every other ``str`` given to
:func:`tag` or :func:`join` is escaped with :func:`html.escape` (quotes too). So a value
from the record (the engine's output, a file name, a line of the diff) cannot become markup
unless someone wraps it in ``Markup`` by hand, which only this package's builders do, and
only around output they escaped themselves.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from urllib.parse import quote


class Markup(str):
    """HTML this package built (its text parts already escaped)."""

    __slots__ = ()


Child = str | int | float | None | Markup | Iterable["Child"]

#: Elements without content or end tag.
_VOID = frozenset({"meta", "br", "hr", "input", "link", "img"})


def esc(value: object) -> Markup:
    """``value`` as text: a ``Markup`` passes, anything else is escaped."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value), quote=True))


def join(children: Iterable[Child]) -> Markup:
    """The children in order: text escaped, ``Markup`` kept, ``None`` dropped, lists flattened."""
    parts: list[str] = []
    for child in children:
        if child is None:
            continue
        if isinstance(child, str | int | float):
            parts.append(esc(child))
        else:
            parts.append(join(child))
    return Markup("".join(parts))


def tag(name: str, *children: Child, **attrs: str | int | float | bool | None) -> Markup:
    """``<name attrs>children</name>``; ``class_`` is ``class``, ``data_x`` is ``data-x``.

    Attribute values are always escaped (a ``Markup`` value too: attributes hold text only);
    ``None`` and ``False`` leave the attribute out, ``True`` writes it bare.
    """
    rendered = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        attr = key.rstrip("_").replace("_", "-")
        if value is True:
            rendered.append(f" {attr}")
        else:
            rendered.append(f' {attr}="{html.escape(str(value), quote=True)}"')
    opening = f"<{name}{''.join(rendered)}>"
    if name in _VOID:
        return Markup(opening)
    return Markup(f"{opening}{join(children)}</{name}>")


def href(relative: str) -> str:
    """A link to a file beside the report: percent-encoded and anchored at ``./`` so no name
    (``javascript:...``, ``//host/x``) can turn it into a scheme or another host."""
    encoded = quote(relative, safe="/")
    return encoded if encoded.startswith("../") else f"./{encoded}"
