"""YAML for config files: like ``yaml.safe_load``, but a key repeated in one mapping is an
error naming both lines (PyYAML keeps the last one silently, so a second ``model:``
further down a file would quietly win)."""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode

from agentloop.errors import ConfigError

__all__ = ["load_unique_yaml"]

_MERGE_TAG = "tag:yaml.org,2002:merge"


class _UniqueKeyLoader(yaml.SafeLoader):
    """A safe loader that notes every repeated key instead of overwriting."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[int, str, int]] = []

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        # Checked before merge keys (``<<: *base``) are flattened in: overriding a merged
        # key is what merging is for, not a duplicate.
        first: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag == _MERGE_TAG:
                continue
            key = self.construct_object(key_node)
            line = key_node.start_mark.line + 1
            try:
                if key in first:
                    self.duplicates.append((line, str(key), first[key]))
                else:
                    first[key] = line
            except TypeError:  # an unhashable key: the base constructor reports it
                continue
        return super().construct_mapping(node, deep=deep)


def load_unique_yaml(text: str, source: str) -> Any:
    """The YAML document in ``text``; ``ConfigError`` with one ``source:line: duplicate
    key 'k' (first on line n)`` line per repeated key. YAML syntax errors propagate."""
    loader = _UniqueKeyLoader(text)
    try:
        data = loader.get_single_data()
    finally:
        loader.dispose()
    if loader.duplicates:
        raise ConfigError(
            "\n".join(
                f"{source}:{line}: duplicate key {key!r} (first on line {was})"
                for line, key, was in sorted(loader.duplicates)
            )
        )
    return data
