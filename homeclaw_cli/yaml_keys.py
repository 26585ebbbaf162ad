"""Duplicate keys in a YAML mapping, which PyYAML accepts silently (the last one wins).

A descriptor or config file with `type:` twice is almost always a mistake, and the value that
silently won makes every later error misleading, so readers refuse it and name both lines.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml


@dataclass(frozen=True)
class DuplicateKey:
    key: str
    line: int  # 1-based, of the repeated key
    column: int
    first_line: int  # 1-based, of the key's first appearance

    def message(self, line_offset: int = 0) -> str:
        """`duplicate key 'type' (first on line 4)`; `line_offset` for text cut from a file."""
        return f"duplicate key {self.key!r} (first on line {self.first_line + line_offset})"


def first_duplicate_key(root: yaml.Node) -> DuplicateKey | None:
    """The first key written twice in one mapping of `root`, in document order."""
    seen_nodes: set[int] = set()
    stack: list[yaml.Node] = [root]
    found: list[DuplicateKey] = []
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue  # an alias: its node was checked where it was defined
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[tuple[str, str], int] = {}
            for key_node, value_node in node.value:
                if (
                    isinstance(key_node, yaml.ScalarNode)
                    and key_node.tag != "tag:yaml.org,2002:merge"
                ):
                    ident = (key_node.tag, key_node.value)
                    mark = key_node.start_mark
                    if ident in first:
                        found.append(
                            DuplicateKey(
                                key_node.value, mark.line + 1, mark.column + 1, first[ident]
                            )
                        )
                    else:
                        first[ident] = mark.line + 1
                stack.append(value_node)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return min(found, key=lambda d: (d.line, d.column), default=None)
