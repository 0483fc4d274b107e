"""Quote untrusted values in messages without quoting (or walking) too much of them.

``repr`` of an alias-expanded YAML value or of an engine's JSON can be gigabytes long; a
message shows at most :data:`MAX_QUOTE` characters and walks no further than it prints.
"""

from __future__ import annotations

#: What an error message may quote of a value taken from user or engine input.
MAX_QUOTE = 120


def clip(value: object, limit: int = MAX_QUOTE) -> str:
    """``repr``-like quote of user input for an error message, never longer than ``limit``.

    ``repr`` of an alias-expanded value can be gigabytes long; this walks no further than it
    prints.
    """
    text = _short_repr(value, limit + 1)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shorten(text: str, limit: int = MAX_QUOTE) -> str:
    """Plain ``text`` cut to ``limit`` characters, marked when cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def name_list(names: list[str], shown: int = 5) -> str:
    """The first ``shown`` names, comma-separated, then how many more there are."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def _short_repr(value: object, budget: int) -> str:
    if budget <= 0:
        return "..."
    if isinstance(value, str):
        return repr(value[:budget])
    if isinstance(value, list | tuple):
        parts: list[str] = []
        used = 0
        for item in value:
            if used > budget:
                parts.append("...")
                break
            part = _short_repr(item, budget - used - 2)
            parts.append(part)
            used += len(part) + 2
        return "[" + ", ".join(parts) + "]"
    if isinstance(value, dict):
        items: list[str] = []
        used = 0
        for key, item in value.items():
            if used > budget:
                items.append("...")
                break
            key_text = _short_repr(key, budget - used - 2)
            part = f"{key_text}: {_short_repr(item, budget - used - len(key_text) - 4)}"
            items.append(part)
            used += len(part) + 2
        return "{" + ", ".join(items) + "}"
    return repr(value)[:budget]
