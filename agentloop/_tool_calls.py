"""Reading a tool call: the one set of rules for every reader.

The engine (calls a server left in a reply's text), dataset validation (prompt history
and ground truth) and the rewards (generated and expected calls) read a call here, so a
call means the same thing at run time, at validation and at scoring. Each reader decides
what to do with a call that has a problem: the engine never runs it, validation rejects
the line, the rewards compare what was written.

Call shapes: OpenAI ``{"type": "function", "function": {"name", "arguments"}}``,
LangChain ``{"name", "args", "id"}``, ``{"name", "arguments"}``, ``{"name", "parameters"}``,
and objects with those attributes (agentloop's ``ToolCallRecord``, LangChain's messages'
calls). In text, ``<tool_call>{...}</tool_call>`` blocks, each holding one call or a JSON
list of calls.
"""

from __future__ import annotations

import json
import re
from functools import partial
from typing import Any, NamedTuple

__all__ = [
    "NOT_A_CALL",
    "NOT_JSON",
    "NOT_OBJECT",
    "NO_NAME",
    "ReadCall",
    "block_items",
    "call_fields",
    "decode_arguments",
    "field",
    "invalid_call",
    "lenient_texts",
    "read_as_sent",
    "read_call",
    "split_calls",
    "strict_problem",
    "tool_call_blocks",
]

NOT_A_CALL = "not a tool call (no 'function' object or 'name')"
NO_NAME = "no function name"
NOT_JSON = "arguments are not valid JSON"
NOT_OBJECT = "arguments are not a JSON object"

# A block ends at its closing tag; one left open (the server stopped at max_tokens)
# ends at the next opening tag or the end of the text.
_TOOL_CALL_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|(?=<tool_call>)|\Z)", re.DOTALL)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")  # some models fence the JSON inside


class ReadCall(NamedTuple):
    """One call as read: its name, its decoded arguments, and what makes it unusable."""

    name: str
    """The function's name; ``""`` when the call has none."""
    args: Any
    """Decoded arguments: an object normally, ``{}`` when blank or missing; any other JSON
    value as decoded; the raw string when it is not JSON."""
    problem: str | None = None
    """None for a usable call (a name and object arguments), else why it is not."""


_new = tuple.__new__  # ReadCall(...) runs a Python-level __new__; this is the C one
# ``json.loads`` on text, without its wrapper (which also reads bytes and options).
_loads = json.JSONDecoder().decode


def field(obj: Any, key: str) -> Any:
    """``obj[key]`` of a dict, else the attribute; None when absent or when reading it fails.

    >>> field({"a": 1}, "a"), field(object(), "a")
    (1, None)
    """
    if isinstance(obj, dict):
        return obj.get(key)
    try:
        return getattr(obj, key, None)
    except Exception:  # a property that raises is just "absent"
        return None


def call_fields(item: Any) -> tuple[Any, Any] | None:
    """``(name, arguments)`` of one call in any accepted shape, as written; None when
    ``item`` has no call shape. The name may be None (a ``function`` without one).

    >>> call_fields({"type": "function", "function": {"name": "f", "arguments": "{}"}})
    ('f', '{}')
    >>> call_fields({"name": "f", "args": {"x": 1}}), call_fields([1])
    (('f', {'x': 1}), None)
    """
    get = item.get if type(item) is dict else partial(field, item)
    function = get("function")
    if function is not None and not isinstance(function, (str, int, float, list)):
        get = function.get if type(function) is dict else partial(field, function)
        args = get("arguments")
        return get("name"), get("parameters") if args is None else args
    name = get("name")
    if name is None:
        return None
    for key in ("args", "arguments", "parameters", "raw_args"):
        args = get(key)
        if args is not None:
            return name, args
    return name, None


def decode_arguments(value: Any) -> tuple[Any, str | None]:
    """Arguments decoded, and the problem with them (None for an object).

    JSON text is decoded; blank text or no arguments mean ``{}``; text that is not JSON
    stays the raw string.

    >>> decode_arguments('{"a": 1}'), decode_arguments(" "), decode_arguments(None)
    (({'a': 1}, None), ({}, None), ({}, None))
    >>> decode_arguments("{oops"), decode_arguments("null")
    (('{oops', 'arguments are not valid JSON'), (None, 'arguments are not a JSON object'))
    """
    if value is None:
        return {}, None
    if isinstance(value, str):
        try:
            value = _loads(value)
        except (ValueError, RecursionError):
            return ({}, None) if not value.strip() else (value, NOT_JSON)
    return value, None if isinstance(value, dict) else NOT_OBJECT


def strict_problem(text: Any) -> str | None:
    """What a strict JSON reader (``json.loads``, as BFCL decodes a call) finds wrong with
    a call's argument text: None when it decodes to an object. Stricter than
    :func:`decode_arguments` and LangChain: blank text and a raw control character inside
    a string are not JSON.

    >>> strict_problem('{"a": 1}'), strict_problem(""), strict_problem('{"a": "x\\ty"}')
    (None, 'arguments are not valid JSON', 'arguments are not valid JSON')
    """
    return _strict(text)[1] if isinstance(text, str) else NOT_JSON


def _strict(text: str) -> tuple[Any, str | None]:
    """``text`` as a strict JSON reader reads it, and the problem (the text when not JSON)."""
    try:
        value = _loads(text)
    except (ValueError, RecursionError):
        return text, NOT_JSON
    return value, None if isinstance(value, dict) else NOT_OBJECT


def lenient_texts(message: Any) -> dict[str, str]:
    """By call id, the argument text of the calls that only a lenient reader accepts (see
    :func:`strict_problem`), as the provider sent them, where a message keeps the
    provider's own calls: ``additional_kwargs["tool_calls"]``, LangChain's place for them.
    agentloop's OpenAI client and score mode keep them there for such calls, the only
    case where a call's text says more than LangChain's reading of it.

    >>> raw = [{"id": "a", "function": {"name": "f", "arguments": ""}},
    ...        {"id": "b", "function": {"name": "f", "arguments": "{}"}}]
    >>> lenient_texts({"additional_kwargs": {"tool_calls": raw}}), lenient_texts({})
    ({'a': ''}, {})
    """
    calls = field(field(message, "additional_kwargs") or {}, "tool_calls")
    texts: dict[str, str] = {}
    for call in calls if isinstance(calls, list) else []:
        call_id, raw = field(call, "id"), (call_fields(call) or (None, None))[1]
        text = "" if raw is None else raw  # no text: not JSON to a strict reader either
        if isinstance(call_id, str) and isinstance(text, str) and strict_problem(text):
            texts[call_id] = text
    return texts


def read_as_sent(item: Any) -> ReadCall:
    """One call as a strict JSON reader reads the text the model sent (BFCL's decoder):
    the text a call kept (``raw_args``) wins over its parsed arguments, and text is
    decoded by :func:`strict_problem`'s rule (blank text is not JSON here).

    >>> read_as_sent({"name": "f", "args": {"s": "x\\ty"}, "raw_args": '{"s": "x\\ty"}'})
    ReadCall(name='f', args='{"s": "x\\ty"}', problem='arguments are not valid JSON')
    >>> read_as_sent({"function": {"name": "f", "arguments": ""}}).problem
    'arguments are not valid JSON'
    """
    return read_call(item, as_sent=True)


def read_call(item: Any, as_sent: bool = False) -> ReadCall:
    """One call in any accepted shape; ``problem`` says what makes it unusable.
    ``as_sent``: see :func:`read_as_sent`.

    >>> read_call({"type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}})
    ReadCall(name='f', args={'x': 1}, problem=None)
    >>> read_call({"nme": "f", "arguments": {}}).problem
    "not a tool call (no 'function' object or 'name')"
    >>> read_call({"function": {"arguments": "{}"}}).problem
    'no function name'
    """
    fields = call_fields(item)
    if fields is None:
        return ReadCall("", {}, NOT_A_CALL)
    name, raw = fields
    if as_sent:  # the text a call kept wins; text is read strictly
        text = field(item, "raw_args")
        text = text if isinstance(text, str) else raw
        args, problem = _strict(text) if isinstance(text, str) else decode_arguments(raw)
    else:
        args, problem = decode_arguments(raw)
    if not isinstance(name, str) or not name:
        return _new(ReadCall, ("", args, NO_NAME))
    return _new(ReadCall, (name, args, problem))


def invalid_call(call: Any, problem: str) -> dict[str, Any]:
    """``call`` as LangChain's ``invalid_tool_call`` (arguments as written, as text).

    >>> invalid_call({"id": "a", "function": {"name": "f", "arguments": "[1]"}}, "why")
    {'type': 'invalid_tool_call', 'id': 'a', 'name': 'f', 'args': '[1]', 'error': 'why'}
    """
    name, raw = call_fields(call) or (None, None)
    return {
        "type": "invalid_tool_call",
        "id": field(call, "id"),
        "name": name if isinstance(name, str) else None,
        "args": raw if raw is None or isinstance(raw, str) else json.dumps(raw),
        "error": problem,
    }


def split_calls(calls: list[Any], lenient_json: bool = False) -> tuple[list[Any], list[Any]]:
    """The calls usable as made, and the others as :func:`invalid_call` records.

    ``lenient_json``: calls whose text is not strict JSON stay with the usable ones, for
    a reader that parses leniently (LangChain's) to decide.

    >>> keep, invalid = split_calls([{"name": "f"}, {"name": "g", "arguments": "[1]"}])
    >>> keep, [(i["name"], i["error"]) for i in invalid]
    ([{'name': 'f'}], [('g', 'arguments are not a JSON object')])
    """
    keep, invalid = [], []
    for call in calls:
        problem = read_call(call).problem
        if problem is None or (lenient_json and problem == NOT_JSON):
            keep.append(call)
        else:
            invalid.append(invalid_call(call, problem))
    return keep, invalid


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
