"""Griffe extension: the source's docstrings, written for reading in the code, render well.

- Doctest examples: the docstrings hold ``>>>`` examples that run as tests; Markdown would
  read their prompts as quotes and their output as links. Each run of example lines (a
  ``>>>`` line, its ``...`` continuations and its output, up to a blank line) is fenced as
  a ``pycon`` block.
- Sphinx roles (``:class:`RewardResult```) become plain code spans.
"""

from __future__ import annotations

import re
from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """``text`` with each doctest example fenced as a ``pycon`` code block."""
    out: list[str] = []
    indent: int | None = None  # the example's indentation while inside one
    for line in text.split("\n"):
        if indent is None and line.lstrip().startswith(">>>"):
            indent = len(line) - len(line.lstrip())
            out.append(" " * indent + "```pycon")
        elif indent is not None and not line.strip():
            out.append(" " * indent + "```")
            indent = None
        out.append(line)
    if indent is not None:
        out.append(" " * indent + "```")
    return "\n".join(out)


_ROLE = re.compile(r":(?:class|func|meth|attr|mod|exc|data|obj):`~?([^`]+)`")


def drop_roles(text: str) -> str:
    """``text`` with each Sphinx role as a plain code span."""
    return _ROLE.sub(r"`\1`", text)


class ReadableDocstrings(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(drop_roles(obj.docstring.value))
