"""YAML from strangers (specs, skill front matter) loaded within fixed limits.

PyYAML's safe loader still builds whatever the text describes: a few lines of aliases (a
"billion laughs") stand for hundreds of millions of nodes once anything walks the result,
and deep nesting ends in a ``RecursionError`` inside the composer. This loader counts every
node as it would be after alias expansion and the nesting depth while composing, and stops
with :class:`YamlLimitError` (a ``yaml.YAMLError``) as soon as either passes its cap, before
any expansion happens. Callers turn it into their own typed error.
"""

from __future__ import annotations

from typing import Any

import yaml

#: Nodes after expanding every alias (a real spec has a few hundred).
MAX_NODES = 20_000
#: Characters of scalar text after expanding every alias.
MAX_CHARS = 4 * 1024 * 1024
#: Nesting of sequences and mappings.
MAX_DEPTH = 64


class YamlLimitError(yaml.YAMLError):
    """The document expands past what holon accepts; the message says which limit."""

    def __init__(self, problem: str, mark: yaml.Mark | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark


class _LimitedLoader(yaml.SafeLoader):
    """A SafeLoader whose composer tracks the expanded size and the depth of the document."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0
        self._chars = 0
        # expanded (nodes, chars) of every finished node, by identity: an alias costs that much
        self._sizes: dict[int, tuple[int, int]] = {}

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event: Any = self.peek_event()  # type: ignore[no-untyped-call]
            target = self.anchors.get(event.anchor)
            if target is not None:
                size = self._sizes.get(id(target))
                if size is None:  # the alias points into the node that contains it
                    raise YamlLimitError(
                        f"alias *{event.anchor[:40]} refers to a node that contains it",
                        event.start_mark,
                    )
                self._count(size[0], size[1], event.start_mark)
            return super().compose_node(parent, index)
        start: yaml.Mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise YamlLimitError(f"nested deeper than {MAX_DEPTH} levels", start)
        before = (self._nodes, self._chars)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if node is None:
            return None
        text = len(node.value) if isinstance(node, yaml.ScalarNode) else 0
        self._count(1, text, start)
        self._sizes[id(node)] = (self._nodes - before[0], self._chars - before[1])
        return node

    def _count(self, nodes: int, chars: int, mark: yaml.Mark) -> None:
        self._nodes += nodes
        self._chars += chars
        if self._nodes > MAX_NODES:
            raise YamlLimitError(
                f"expands to more than {MAX_NODES} nodes (aliases are counted as expanded)",
                mark,
            )
        if self._chars > MAX_CHARS:
            raise YamlLimitError(
                f"expands to more than {MAX_CHARS} characters (aliases are counted as expanded)",
                mark,
            )


def load(text: str) -> Any:
    """Python data of ``text`` within the limits; raises ``yaml.YAMLError`` otherwise."""
    loader = _LimitedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def load_with_node(text: str) -> tuple[Any, yaml.Node | None]:
    """Data and node tree from one parse (the data is constructed from that tree)."""
    loader = _LimitedLoader(text)
    try:
        node = loader.get_single_node()
        data = None if node is None else loader.construct_document(node)
        return data, node
    finally:
        loader.dispose()
