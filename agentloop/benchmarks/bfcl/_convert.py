"""BFCL entries as agentloop rows: tool schemas, expected calls, metadata. Pure functions.

The tool schemas are what BFCL itself sends an OpenAI function-calling model
(``bfcl_eval.model_handler.utils.convert_to_tool`` with ``GORILLA_TO_OPENAPI`` after
``add_language_specific_hint_to_function_doc``): names with ``.`` become ``_`` (OpenAI
names allow ``[a-zA-Z0-9_-]`` only), BFCL types become JSON-schema types, a ``float``
gets ``format: float`` and a sentence in its description, and each description ends
with BFCL's Python hint. Java and JavaScript functions (``simple_java``,
``simple_javascript``) first go through BFCL's
``_func_doc_language_specific_pre_processing``: their hint, and every parameter a string
whose description names the original type (and, for an array, its items' type; for a
JavaScript dict, its properties' schema). The metadata keeps BFCL's own types, as its
checker reads them.

Expected calls use the matcher forms of ``evals``: a parameter's acceptable values
become ``{"$any": [...]}``; ``""`` among them (BFCL's mark for "may be omitted") makes
it ``{"$optional": {"$any": [the others]}}``, or ``{"$optional": ""}`` when ``""`` is
the only one. A ``dict`` parameter's answers (and each
dict of a list-of-dict parameter) hold acceptable values per key in turn: they become
``{key: matcher}`` patterns. Deeper values are literal, as in BFCL's ``dict_checker``.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "PYTHON_HINT",
    "bfcl_language",
    "bfcl_row",
    "checker_functions",
    "expected_calls",
    "openai_name",
    "openai_tools",
]

# BFCL's GORILLA_TO_OPENAPI; any other type becomes "string", as BFCL does.
_OPENAPI_TYPES = {
    "integer": "integer",
    "number": "number",
    "float": "number",
    "string": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "dict": "object",
    "object": "object",
    "tuple": "array",
    "any": "string",
    "byte": "integer",
    "short": "integer",
    "long": "integer",
    "double": "number",
    "char": "string",
    "ArrayList": "array",
    "Array": "array",
    "HashMap": "object",
    "Hashtable": "object",
    "Queue": "array",
    "Stack": "array",
    "Any": "string",
    "String": "string",
    "Bigint": "integer",
}

PYTHON_HINT = " Note that the provided function is in Python 3 syntax."
_HINTS = {
    "python": PYTHON_HINT,
    "java": " Note that the provided function is in Java 8 SDK syntax.",
    "javascript": " Note that the provided function is in JavaScript syntax.",
}
_LABELS = {"java": "Java", "javascript": "JavaScript"}
_FLOAT_NOTE = " This is a float type value."


def openai_name(name: str) -> str:
    """A BFCL function name as OpenAI accepts it (``math.factorial`` -> ``math_factorial``)."""
    return re.sub(r"\.", "_", name)


def _openapi(bfcl_type: Any) -> str:
    return _OPENAPI_TYPES.get(bfcl_type, "string") if isinstance(bfcl_type, str) else "string"


def _cast_properties(properties: dict[str, Any]) -> None:
    """BFCL's ``_cast_to_openai_type``, in place; where BFCL would raise (an ``items``
    without a type, a float without a description) this maps to ``string`` / ``""``."""
    for schema in properties.values():
        if "type" not in schema:
            schema["type"] = "string"
        else:
            if schema["type"] == "float":
                schema["format"] = "float"
                schema["description"] = schema.get("description", "") + _FLOAT_NOTE
            schema["type"] = _openapi(schema["type"])
        if schema["type"] not in ("array", "object"):
            continue
        if "properties" in schema:
            _cast_properties(schema["properties"])
        elif "items" in schema:
            items = schema["items"]
            items["type"] = _openapi(items.get("type"))
            if items["type"] == "array" and "items" in items:
                items["items"]["type"] = _openapi(items["items"].get("type"))
            elif items["type"] == "object" and "properties" in items:
                _cast_properties(items["properties"])


def bfcl_language(category: str) -> str:
    """A category's language as BFCL tells it (``is_js``, ``is_java``)."""
    if "javascript" in category:
        return "javascript"
    return "java" if "java" in category else "python"


def _as_strings(properties: dict[str, Any], language: str) -> None:
    """BFCL's Java/JavaScript parameter rewrite, in place: each becomes a string, its
    description saying what it stands for."""
    label = _LABELS[language]
    arrays = ("ArrayList", "Array") if language == "java" else ("array",)
    for schema in properties.values():
        kind = schema.get("type")
        description = schema.get("description", "")
        if kind == "any":
            description += (
                f" This parameter can be of any type of {label} object in string representation."
            )
        else:
            description += f" This is {label} {kind} type parameter in string representation."
        if kind in arrays:
            description += (
                f" The list elements are of type {(schema.get('items') or {}).get('type')};"
                " they are not in string representation."
            )
            schema.pop("items", None)
        if language == "javascript" and kind == "dict" and "properties" in schema:
            description += (
                " The dictionary entries have the following schema; they are not in string"
                f" representation. {json.dumps(schema.pop('properties'))}"
            )
        schema["description"] = description
        schema["type"] = "string"


def openai_tools(functions: list[dict[str, Any]], language: str = "python") -> list[dict[str, Any]]:
    """BFCL function docs as the OpenAI tool schemas BFCL sends for a category in
    ``language`` (``bfcl_language``)."""
    tools = []
    for function in copy.deepcopy(functions):
        function["description"] = function.get("description", "") + _HINTS[language]
        function["name"] = openai_name(function["name"])
        parameters = function.setdefault("parameters", {})
        parameters["type"] = "object"
        parameters["properties"] = parameters.get("properties") or {}
        if language != "python":
            _as_strings(parameters["properties"], language)
        _cast_properties(parameters["properties"])
        tools.append({"type": "function", "function": function})
    return tools


def checker_functions(functions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """BFCL's function docs as its checker reads them: original types and descriptions,
    names as the model sees them."""
    docs = copy.deepcopy(functions)
    for doc in docs:
        doc["name"] = openai_name(doc["name"])
    return docs


def _alternatives(values: Any, convert: Callable[[Any], Any]) -> dict[str, Any]:
    values = values if isinstance(values, list) else [values]
    kept = [convert(v) for v in values if not (isinstance(v, str) and v == "")]
    if len(kept) == len(values):
        return {"$any": kept}  # [] too: BFCL then accepts no value (live_simple_106-63-0)
    # only "": omitted, or "" itself (which BFCL's checker accepts as listed)
    return {"$optional": {"$any": kept} if kept else ""}


def _literal(value: Any) -> Any:
    return value


def _dict_pattern(value: Any) -> Any:
    """One acceptable dict: acceptable values per key (BFCL's ``dict_checker``)."""
    if not isinstance(value, dict):
        return value
    # BFCL's dict_checker iterates a member's answers: a bare string is its characters
    # (simple_java_64: {"format": "epoch_millis"} accepts only one-character values)
    return {
        key: _alternatives(list(values) if isinstance(values, str) else values, _literal)
        for key, values in value.items()
    }


def _dict_list_pattern(value: Any) -> Any:
    """One acceptable list of dicts (BFCL's ``list_dict_checker``: same length, in order)."""
    return [_dict_pattern(v) for v in value] if isinstance(value, list) else value


def _converter(schema: dict[str, Any]) -> Callable[[Any], Any]:
    # BFCL picks its dict checkers by the declared type, not by the answer's shape.
    kind = schema.get("type")
    if kind in ("dict", "HashMap"):  # HashMap: Java's, read into a dict by BFCL's converter
        return _dict_pattern
    items = schema.get("items")
    if kind in ("array", "tuple") and isinstance(items, dict) and items.get("type") == "dict":
        return _dict_list_pattern
    return _literal


def expected_calls(
    answers: list[dict[str, Any]], functions: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """BFCL's possible answer (``[{name: {param: [values]}}]``) as expected tool calls."""
    docs = {f["name"]: f for f in functions}
    calls = []
    for answer in answers:
        for name, params in answer.items():
            properties = (docs.get(name) or {}).get("parameters", {}).get("properties") or {}
            arguments = {
                param: _alternatives(values, _converter(properties.get(param) or {}))
                for param, values in params.items()
            }
            function = {"name": openai_name(name), "arguments": arguments}
            calls.append({"type": "function", "function": function})
    return calls


def bfcl_row(
    entry: dict[str, Any], category: str, answers: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """One BFCL entry as a dataset row; ``answers`` None: no call is expected
    (irrelevance; for relevance the verdict reads the category)."""
    functions = entry.get("function") or []
    return {
        "id": entry["id"],
        "messages": entry["question"][0],
        "tools": openai_tools(functions, bfcl_language(category)),
        "ground_truth": {"tool_calls": expected_calls(answers or [], functions)},
        "metadata": {"bfcl_category": category, "bfcl_functions": checker_functions(functions)},
    }
