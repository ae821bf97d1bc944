"""Finding tool calls in whatever the caller hands us, and normalising them.

Accepted message shapes: OpenAI chat dicts, LangChain message objects (duck
typed: a string ``type`` plus ``content``) and anything with
``to_openai_messages()`` (an agentloop ``Trajectory``). Accepted call shapes:
OpenAI ``{"type": "function", "function": {"name", "arguments"}}``, LangChain
``{"name", "args", "id"}``, ``{"name", "arguments"}``, ``{"name", "parameters"}``
and objects with those attributes (agentloop ``ToolCallRecord``). Nothing here
raises on odd input: unusable pieces are skipped and described in ``notes``.
"""

from __future__ import annotations

import json
import json.scanner
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

__all__ = [
    "Call",
    "calls_from_items",
    "calls_from_message",
    "collect_calls",
    "count_tool_messages",
    "deserialize_args",
    "final_answer_of",
    "is_message",
    "is_trajectory",
    "last_message_calls",
    "parse_content_calls",
    "role_of",
    "text_of",
]

# The C scanner behind json.loads, called directly: arguments are decoded for
# every call compared, and json.loads' wrapper costs as much as the parse.
_scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
_JSON_SPACE = " \t\n\r"
_TOOL_CALL_BLOCK = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
# LangChain message ``type`` values mapped to OpenAI roles.
_ROLES = {
    "ai": "assistant",
    "AIMessageChunk": "assistant",
    "human": "user",
    "HumanMessageChunk": "user",
    "tool": "tool",
    "ToolMessageChunk": "tool",
    "system": "system",
    "SystemMessageChunk": "system",
}
_NOT_ASSISTANT = frozenset(("user", "system", "tool", "developer", "function"))


class Call(NamedTuple):
    """One tool call reduced to what is compared: its name and deserialized arguments."""

    name: str
    args: Any


_new_call = tuple.__new__  # Call(...) runs a Python-level __new__; this is the C one


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(key)
    try:
        return getattr(obj, key, None)
    except Exception:  # a property that raises is just "absent"
        return None


def is_trajectory(obj: Any) -> bool:
    """True for an agentloop ``Trajectory`` (or anything shaped like one).

    >>> is_trajectory([{"role": "user", "content": "hi"}])
    False
    """
    return not isinstance(obj, (dict, list, str)) and callable(
        getattr(obj, "to_openai_messages", None)
    )


def is_message(obj: Any) -> bool:
    """True for a chat message (dict with a role/content/tool_calls, or LangChain).

    >>> is_message({"role": "tool", "content": "x"}), is_message({"name": "f", "args": {}})
    (True, False)
    """
    if isinstance(obj, dict):
        return (
            "role" in obj
            or "tool_calls" in obj
            or ("content" in obj and "name" not in obj and "function" not in obj)
        )
    return isinstance(getattr(obj, "type", None), str) and hasattr(obj, "content")


def role_of(msg: Any) -> str | None:
    """The OpenAI role of a message dict or LangChain message, if it has one.

    >>> from langchain_core.messages import AIMessage
    >>> role_of(AIMessage("hi")), role_of({"role": "tool"}), role_of({"type": "human"})
    ('assistant', 'tool', 'user')
    """
    if isinstance(msg, dict):
        role = msg.get("role")
        if role is None:
            kind = msg.get("type")
            role = _ROLES.get(kind) if isinstance(kind, str) else None
        return role if isinstance(role, str) else None
    kind = getattr(msg, "type", None)
    return _ROLES.get(kind, kind) if isinstance(kind, str) else None


def text_of(content: Any) -> str:
    """Message content as text: strings as is, text blocks joined, anything else empty.

    >>> text_of([{"type": "text", "text": "a"}, "b", {"type": "image_url"}]), text_of(None)
    ('ab', '')
    """
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "".join(parts)
    return ""


def deserialize_args(value: Any) -> Any:
    """Arguments as compared: JSON strings decoded, ``""``/missing as ``{}``.

    A string that is not valid JSON stays the raw string (compared as such).

    >>> deserialize_args('{"a": 1}'), deserialize_args(""), deserialize_args("{oops")
    ({'a': 1}, {}, '{oops')
    """
    if value is None:
        return {}
    if isinstance(value, str):
        text = value.strip(_JSON_SPACE)
        try:
            decoded, end = _scan(text, 0)
            if end == len(text):
                return decoded
        except (ValueError, RecursionError, StopIteration):
            pass
        return {} if not value.strip() else value  # blank (any whitespace) means no arguments
    return value


def _call_from_item(item: Any) -> Call | None:
    """One call in any accepted shape, or None when it is not a call."""
    if type(item) is dict:  # fast path: the OpenAI wire shape
        function = item.get("function")
        if type(function) is dict:
            name = function.get("name")
            args = function.get("arguments")
            if type(name) is str and type(args) is str:
                text = args.strip(_JSON_SPACE)
                try:
                    decoded, end = _scan(text, 0)
                    if end == len(text):
                        return _new_call(Call, (name, decoded))
                except (ValueError, RecursionError, StopIteration):
                    pass
                return _new_call(Call, (name, deserialize_args(args)))
    function = _get(item, "function")
    if function is not None and not isinstance(function, (str, int, float, list)):
        name = _get(function, "name")
        args = _get(function, "arguments")
        if args is None:
            args = _get(function, "parameters")
    else:
        name = _get(item, "name")
        if name is None:
            return None
        args = None
        for key in ("args", "arguments", "parameters", "raw_args"):
            args = _get(item, key)
            if args is not None:
                break
    if name is None:
        name = ""
    return Call(name if isinstance(name, str) else str(name), deserialize_args(args))


def calls_from_items(items: Any, notes: list[str], where: str) -> list[Call]:
    """Calls of a ``tool_calls`` list; items that are not calls are noted and skipped.

    >>> notes = []
    >>> calls_from_items([{"name": "f", "args": {"x": 1}}, 42], notes, "gt"), notes
    ([Call(name='f', args={'x': 1})], ['gt: tool call 1 has no name or function; skipped'])
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
        call = _call_from_item(item)
        if call is None:
            notes.append(f"{where}: tool call {i} has no name or function; skipped")
        else:
            calls.append(call)
    return calls


def parse_content_calls(text: str, notes: list[str], where: str = "content") -> list[Call]:
    """Calls written as ``<tool_call>{...}</tool_call>`` blocks in text.

    >>> notes = []
    >>> text = '<tool_call>{"name": "f", "parameters": {}}</tool_call><tool_call>{oops</tool_call>'
    >>> parse_content_calls(text, notes), notes
    ([Call(name='f', args={})], ['content: <tool_call> block 1 is not valid JSON; skipped'])
    """
    calls = []
    for i, block in enumerate(_TOOL_CALL_BLOCK.findall(text)):
        try:
            item = json.loads(block)
        except (ValueError, RecursionError):
            notes.append(f"{where}: <tool_call> block {i} is not valid JSON; skipped")
            continue
        call = _call_from_item(item) if isinstance(item, dict) else None
        if call is None:
            notes.append(f"{where}: <tool_call> block {i} is not a call object; skipped")
        else:
            calls.append(call)
    return calls


def calls_from_message(
    msg: Any, notes: list[str], where: str = "message", *, from_content: bool = True
) -> list[Call]:
    """A message's native tool calls, else (``from_content``) the calls in its text.

    >>> from langchain_core.messages import AIMessage
    >>> msg = AIMessage("", tool_calls=[{"name": "f", "args": {"q": 1}, "id": "1"}])
    >>> calls_from_message(msg, [])
    [Call(name='f', args={'q': 1})]
    """
    raw = _get(msg, "tool_calls")
    invalid = _get(msg, "invalid_tool_calls")  # LangChain keeps malformed calls apart
    if raw or invalid:
        return calls_from_items(raw, notes, where) + calls_from_items(invalid, notes, where)
    if not from_content:
        return []
    text = text_of(_get(msg, "content"))
    return parse_content_calls(text, notes, where) if "<tool_call>" in text else []


def last_message_calls(messages: Any, notes: list[str]) -> list[Call]:
    """The generation's calls: the last message of a list (reference semantics).

    >>> last_message_calls([{"role": "assistant", "content": None}], [])
    []
    """
    return calls_from_message(messages[-1], notes, "last message")


def _trajectory_calls(traj: Any, notes: list[str]) -> list[Call]:
    records = getattr(traj, "tool_calls", None)
    if callable(records):  # the run's own calls, not calls in the input history
        return calls_from_items(records(), notes, "trajectory")
    return collect_calls(traj.to_openai_messages(), notes, "trajectory")


def collect_calls(obj: Any, notes: list[str], where: str = "input") -> list[Call]:
    """Every call in ``obj``, in order.

    ``obj`` may be a Trajectory (all rounds), a message list (every message's
    tool calls; text ``<tool_call>`` blocks of assistant messages without native
    calls), a ground-truth dict ``{"tool_calls": [...]}``, one message, one
    call, a list of calls, a JSON string of any of these, or None.

    >>> collect_calls('{"tool_calls": [{"name": "f", "arguments": "{}"}]}', [])
    [Call(name='f', args={})]
    """
    if obj is None:
        return []
    if isinstance(obj, str):
        try:
            decoded = json.loads(obj)
        except (ValueError, RecursionError):
            notes.append(f"{where}: a string that is not JSON; no calls")
            return []
        return [] if isinstance(decoded, str) else collect_calls(decoded, notes, where)
    if is_trajectory(obj):
        return _trajectory_calls(obj, notes)
    if isinstance(obj, Mapping) and not isinstance(obj, dict):
        obj = dict(obj)
    if not isinstance(obj, (dict, list, tuple)) and not is_message(obj):
        call = _call_from_item(obj)
        if call is None:
            notes.append(f"{where}: unsupported {type(obj).__name__}; no calls")
            return []
        return [call]
    items = obj if isinstance(obj, (list, tuple)) else [obj]
    calls: list[Call] = []
    for i, item in enumerate(items):
        here = f"{where} item {i}" if items is obj else where
        if is_message(item):
            from_content = role_of(item) not in _NOT_ASSISTANT
            calls += calls_from_message(item, notes, here, from_content=from_content)
            continue
        call = _call_from_item(item)
        if call is None:
            notes.append(f"{here}: not a message or a call; skipped")
        else:
            calls.append(call)
    return calls


def _messages_of(obj: Any) -> list[Any]:
    if is_trajectory(obj):
        return list(obj.to_openai_messages())
    if isinstance(obj, (list, tuple)):
        return list(obj)
    return []


def count_tool_messages(obj: Any) -> int:
    """Tool-result messages (role ``tool`` or a LangChain ToolMessage) in a conversation.

    >>> from langchain_core.messages import ToolMessage
    >>> count_tool_messages([ToolMessage("r", tool_call_id="1"), {"role": "tool"}])
    2
    """
    return sum(1 for m in _messages_of(obj) if role_of(m) == "tool")


def final_answer_of(obj: Any) -> str | None:
    """A trajectory's ``final_answer``, or the text of a list's last assistant message.

    >>> final_answer_of([{"role": "assistant", "content": "Paris"}, {"role": "user"}])
    'Paris'
    """
    if is_trajectory(obj) and hasattr(obj, "final_answer"):
        answer = obj.final_answer
        return answer if isinstance(answer, str) else None
    for msg in reversed(_messages_of(obj)):
        if role_of(msg) == "assistant":
            return text_of(_get(msg, "content"))
    return None
