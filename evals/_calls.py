"""Finding tool calls in whatever the caller hands us, and normalising them.

Accepted call shapes: OpenAI ``{"type": "function", "function": {"name", "arguments"}}``,
LangChain ``{"name", "args", "id"}``, ``{"name", "arguments"}``, ``{"name", "parameters"}``
and objects with those attributes (agentloop ``ToolCallRecord``); messages as read by
``_messages``. Nothing here raises on odd input: unusable pieces are skipped and
described in ``notes``.

One call is read by ``agentloop._tool_calls``, the one reader the engine and dataset
validation use too; the rewards keep whatever a call's arguments hold to compare it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import partial
from typing import Any

from agentloop._tool_calls import (
    NOT_A_CALL,
    ReadCall,
    block_items,
    call_fields,
    decode_arguments,
    read_call,
    tool_call_blocks,
)

from ._messages import get as _get
from ._messages import is_message, is_trajectory, role_of, text_of

__all__ = [
    "Call",
    "call_fields",
    "calls_from_items",
    "calls_from_message",
    "collect_calls",
    "deserialize_args",
    "parse_content_calls",
]

_NOT_ASSISTANT = frozenset(("user", "system", "tool", "developer", "function"))


Call = ReadCall  # one call: its name, its arguments (as compared) and its problem, if any


def deserialize_args(value: Any) -> Any:
    """Arguments as compared: JSON strings decoded, ``""``/missing as ``{}``.

    A string that is not valid JSON stays the raw string (compared as such).

    >>> deserialize_args('{"a": 1}'), deserialize_args(""), deserialize_args("{oops")
    ({'a': 1}, {}, '{oops')
    """
    return decode_arguments(value)[0]


def calls_from_items(items: Any, notes: list[str], where: str, as_sent: bool = False) -> list[Call]:
    """Calls of a ``tool_calls`` list; items that are not calls are noted and skipped.

    >>> notes = []
    >>> [c.name for c in calls_from_items([{"name": "f", "args": {"x": 1}}, 42], notes, "gt")]
    ['f']
    >>> notes
    ['gt: tool call 1 has no name or function; skipped']
    """
    if not items:
        return []
    if type(items) is not list and (  # ABC checks are slow; lists skip them
        isinstance(items, (dict, str)) or not isinstance(items, Iterable)
    ):
        notes.append(f"{where}: tool_calls is a {type(items).__name__}, not a list; ignored")
        return []
    calls = []
    for i, item in enumerate(items):
        call = read_call(item, as_sent)
        if call.problem is NOT_A_CALL:
            notes.append(f"{where}: tool call {i} has no name or function; skipped")
        else:
            calls.append(call)
    return calls


def parse_content_calls(text: str, notes: list[str], where: str = "content") -> list[Call]:
    """Calls written as ``<tool_call>`` blocks in text (one call, or a list, per block).

    >>> notes = []
    >>> text = '<tool_call>{"name": "f", "parameters": {}}</tool_call><tool_call>{oops</tool_call>'
    >>> parse_content_calls(text, notes)
    [ReadCall(name='f', args={}, problem=None)]
    >>> notes
    ['content: <tool_call> block 1 is not valid JSON; skipped']
    """
    calls = []
    for i, body in enumerate(tool_call_blocks(text)):
        items = block_items(body)
        if items is None:
            notes.append(f"{where}: <tool_call> block {i} is not valid JSON; skipped")
            continue
        skipped = 0
        for item in items:
            if isinstance(item, dict) and (call := read_call(item)).problem is not NOT_A_CALL:
                calls.append(call)
            else:
                skipped += 1
        if skipped or not items:
            what = "is not a call object" if skipped == len(items) else f"has {skipped} non-calls"
            notes.append(f"{where}: <tool_call> block {i} {what}; skipped")
    return calls


def calls_from_message(
    msg: Any,
    notes: list[str],
    where: str = "message",
    *,
    from_content: bool = True,
    as_sent: bool = False,
) -> list[Call]:
    """A message's native tool calls, else (``from_content``) the calls in its text.

    >>> from langchain_core.messages import AIMessage
    >>> msg = AIMessage("", tool_calls=[{"name": "f", "args": {"q": 1}, "id": "1"}])
    >>> calls_from_message(msg, [])
    [ReadCall(name='f', args={'q': 1}, problem=None)]
    """
    get = msg.get if type(msg) is dict else partial(_get, msg)
    raw = get("tool_calls")
    invalid = get("invalid_tool_calls")  # LangChain keeps malformed calls apart
    if invalid:
        return calls_from_items(raw, notes, where, as_sent) + calls_from_items(
            invalid, notes, where, as_sent
        )
    if raw:
        return calls_from_items(raw, notes, where, as_sent)
    if not from_content:
        return []
    text = text_of(get("content"))
    return parse_content_calls(text, notes, where) if "<tool_call>" in text else []


def _trajectory_calls(traj: Any, notes: list[str], as_sent: bool) -> list[Call]:
    records = getattr(traj, "tool_calls", None)
    if callable(records):  # the run's own calls, not calls in the input history
        return calls_from_items(records(), notes, "trajectory", as_sent)
    return collect_calls(traj.to_openai_messages(), notes, "trajectory", as_sent=as_sent)


def collect_calls(
    obj: Any, notes: list[str], where: str = "input", *, as_sent: bool = False
) -> list[Call]:
    """Every call in ``obj``, in order.

    ``obj`` may be a Trajectory (all rounds), a message list (every message's
    tool calls; text ``<tool_call>`` blocks of assistant messages without native
    calls), a ground-truth dict ``{"tool_calls": [...]}``, one message, one
    call, a list of calls, a JSON string of any of these, or None. ``as_sent``: arguments
    as a strict JSON reader reads the text the model sent (``read_as_sent``; BFCL's).

    >>> collect_calls('{"tool_calls": [{"name": "f", "arguments": "{}"}]}', [])
    [ReadCall(name='f', args={}, problem=None)]
    """
    if obj is None:
        return []
    if type(obj) is list:
        return _list_calls(obj, notes, where, as_sent=as_sent)
    if type(obj) is dict:  # a ground truth {"tool_calls": [...]}, one message or one call
        return _list_calls([obj], notes, where, False, as_sent)
    if isinstance(obj, str):
        try:
            decoded = json.loads(obj)
        except (ValueError, RecursionError):
            notes.append(f"{where}: a string that is not JSON; no calls")
            return []
        if isinstance(decoded, str):
            return []
        return collect_calls(decoded, notes, where, as_sent=as_sent)
    if is_trajectory(obj):
        return _trajectory_calls(obj, notes, as_sent)
    if isinstance(obj, Mapping) and not isinstance(obj, dict):
        obj = dict(obj)
    if not isinstance(obj, (dict, list, tuple)) and not is_message(obj):
        call = read_call(obj, as_sent)
        if call.problem is NOT_A_CALL:
            notes.append(f"{where}: unsupported {type(obj).__name__}; no calls")
            return []
        return [call]
    if isinstance(obj, (list, tuple)):
        return _list_calls(obj, notes, where, as_sent=as_sent)
    return _list_calls([obj], notes, where, False, as_sent)


def _list_calls(
    items: Any, notes: list[str], where: str, numbered: bool = True, as_sent: bool = False
) -> list[Call]:
    calls: list[Call] = []
    for i, item in enumerate(items):
        if is_message(item):
            here = f"{where} item {i}" if numbered else where
            from_content = role_of(item) not in _NOT_ASSISTANT
            calls += calls_from_message(
                item, notes, here, from_content=from_content, as_sent=as_sent
            )
        elif (call := read_call(item, as_sent)).problem is NOT_A_CALL:
            at = f"{where} item {i}" if numbered else where
            notes.append(f"{at}: not a message or a call; skipped")
        else:
            calls.append(call)
    return calls
