"""``match_function_call``: one call's name and arguments against an expected schema."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._calls import deserialize_args
from ._result_models import FunctionCallDetails, RewardResult
from ._schema_rules import FITS

__all__ = ["STRICTNESS_MODES", "match_function_call"]

STRICTNESS_MODES = ("exact", "partial", "flexible", "permissive")

# The JSON-schema type names (checked with the schema rules' table); others accept anything.
_JSON_TYPES = ("string", "number", "integer", "boolean", "array", "object", "null")


def _schema_parts(schema: Any) -> tuple[str, dict[str, Any], set[str]]:
    """(name, declared argument schemas, required names) from any accepted shape."""
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except ValueError as exc:
            raise ValueError(f"expected_call_schema is not valid JSON: {exc}") from None
    if not isinstance(schema, Mapping):
        raise ValueError(f"expected_call_schema must be a dict, not {type(schema).__name__}")
    if isinstance(schema.get("function"), Mapping):  # an OpenAI tool definition
        schema = schema["function"]
    name = schema.get("name", "")
    if isinstance(schema.get("parameters"), Mapping):  # JSON schema: only `required` is required
        params = schema["parameters"]
        props = params.get("properties") or {}
        required = {str(r) for r in params.get("required") or []}
    else:  # the reference shape: every declared argument is required
        props = schema.get("arguments") or {}
        required = set(props) if isinstance(props, Mapping) else set()
    if not isinstance(props, Mapping):
        raise ValueError("expected_call_schema arguments/properties must be a dict")
    return str(name), dict(props), required


def _type_ok(value: Any, arg_schema: Any) -> bool:
    declared = arg_schema.get("type") if isinstance(arg_schema, Mapping) else None
    names = declared if isinstance(declared, list) else [declared]
    fits = [FITS[n, type(value)] for n in names if isinstance(n, str) and n in _JSON_TYPES]
    # No type, "any" or an unknown type name accepts any value.
    return not fits or any(fits)


def match_function_call(
    messages: Any,
    function_name: str,
    parsed_arguments: Any,
    expected_call_schema: Any,
    argument_match_strictness: str = "exact",
) -> RewardResult[FunctionCallDetails]:
    """Score one call: ``(name score + argument score) / 2``, as reward-kit does.

    ``messages`` is context only and unused. ``expected_call_schema`` is
    ``{"name", "arguments": {arg: {"type": ...}}}`` (every declared argument
    required, as in reward-kit), ``{"name", "parameters": <JSON schema>}``
    (only ``required`` ones are), or an OpenAI tool definition. Types are JSON
    schema names (a list means any of them); ``True`` is not a number.
    ``parsed_arguments`` may be a dict or its JSON text.

    Argument score by ``argument_match_strictness``:

    - ``exact``: 1 with no missing required, no extra and no mistyped argument, else 0;
    - ``flexible`` / ``permissive``: extras allowed; 1 unless a required one is
      missing or one is mistyped;
    - ``partial``: only provided arguments are checked: the fraction of them
      that are declared and well typed (missing ones ignored; with nothing
      provided, 1 if the schema requires nothing, else 0).

    Any other strictness raises ValueError.

    >>> schema = {"name": "get_weather",
    ...           "arguments": {"location": {"type": "string"}, "unit": {"type": "string"}}}
    >>> match_function_call([], "get_weather", {"location": "Boston"}, schema).score
    0.5
    >>> r = match_function_call([], "get_weather", {"location": "Boston", "days": 3}, schema,
    ...                         argument_match_strictness="partial")
    >>> r.score, r.details.extra_args
    (0.75, ['days'])
    """
    if argument_match_strictness not in STRICTNESS_MODES:
        raise ValueError(
            f"unknown argument_match_strictness {argument_match_strictness!r}; "
            f"valid: {', '.join(STRICTNESS_MODES)}"
        )
    expected_name, declared, required = _schema_parts(expected_call_schema)
    args = deserialize_args(parsed_arguments)
    note = ""
    if not isinstance(args, Mapping):
        note = f"arguments are a {type(args).__name__}, not an object; treated as none"
        args = {}
    matched, mistyped, extra = [], [], []
    for key, value in args.items():
        if key not in declared:
            extra.append(str(key))
        elif _type_ok(value, declared[key]):
            matched.append(str(key))
        else:
            mistyped.append(str(key))
    missing = [k for k in declared if k in required and k not in args]

    mode = argument_match_strictness
    if mode == "exact":
        arg_score = 0.0 if missing or extra or mistyped else 1.0
    elif mode == "partial":
        arg_score = len(matched) / len(args) if args else (0.0 if required else 1.0)
    else:
        arg_score = 0.0 if missing or mistyped else 1.0
    name_match = isinstance(function_name, str) and function_name == expected_name
    score = ((1.0 if name_match else 0.0) + arg_score) / 2
    problems = [
        f"{label} {items}"
        for label, items in (("missing", missing), ("extra", extra), ("mistyped", mistyped))
        if items
    ]
    reason = (
        f"name {'matches' if name_match else f'{function_name!r} != {expected_name!r}'}; "
        f"arguments {arg_score:.2f} under {mode}" + (": " + ", ".join(problems) if problems else "")
    )
    return RewardResult[FunctionCallDetails](
        score=score,
        reason=reason,
        details=FunctionCallDetails(
            strictness=mode,
            name_match=name_match,
            arg_score=arg_score,
            matched_args=matched,
            missing_args=missing,
            extra_args=extra,
            type_mismatches=mistyped,
            note=note,
        ),
    )
