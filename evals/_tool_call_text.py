"""The one home of the ``<tool_call>`` text grammar.

Some models write calls as ``<tool_call>{...}</tool_call>`` blocks in a reply's text.
The engine's recovery of such calls and the rewards read blocks with these two
functions, so a block means the same thing in a run and in its scoring. Each side keeps
its own treatment of the items: the engine runs object arguments only, the rewards keep
whatever was written to compare it.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["block_items", "tool_call_blocks"]

# A block ends at its closing tag; one left open (the server stopped at max_tokens)
# ends at the next opening tag or the end of the text.
_TOOL_CALL_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|(?=<tool_call>)|\Z)", re.DOTALL)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")  # some models fence the JSON inside


def tool_call_blocks(text: str) -> list[str]:
    """The bodies of the ``<tool_call>`` blocks in ``text``, in order, trimmed and unfenced.

    A block left open ends at the next ``<tool_call>`` or at the end of the text.

    >>> tool_call_blocks('a<tool_call>```json\\n{"x": 1}\\n```</tool_call>b<tool_call> [2]')
    ['{"x": 1}', '[2]']
    """
    return [_FENCE.sub("", body.strip()) for body in _TOOL_CALL_BLOCK.findall(text)]


def block_items(body: str) -> list[Any] | None:
    """The JSON values one block holds: a list's elements, else the value; None when
    the body is not JSON.

    >>> block_items('[{"name": "f"}, 2]'), block_items('{"name": "f"}'), block_items("{")
    ([{'name': 'f'}, 2], [{'name': 'f'}], None)
    """
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, list) else [data]
