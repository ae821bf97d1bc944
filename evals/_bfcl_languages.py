"""BFCL's Java and JavaScript arguments, read as its checker reads them.

BFCL shows a model every Java or JavaScript parameter as a string (``10L``,
``new ArrayList<>(Arrays.asList(1, 2))``, ``{key: 'v'}``); its checker refuses an argument
that is not a string, turns the string into a value with its own converter
(``java_type_converter``, ``js_type_converter``), then applies the rules every language
shares. The converters and their type tables are taken from the installed ``bfcl-eval``
(their imports are ``re`` and the tables), so a literal reads here exactly as there.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agentloop._packages import data_package

__all__ = ["BfclLanguage", "bfcl_language", "read_argument"]

_INSTALL = "pip install --no-deps 'bfcl-eval==2026.3.23'"
_CONVERTERS = "bfcl_eval.eval_checker.ast_eval.type_convertor"
# BFCL's NESTED_CONVERSION_TYPE_LIST: the types whose items' type the converter is given
_NESTED = ("Array", "ArrayList", "array")


@dataclass(frozen=True)
class BfclLanguage:
    """One of BFCL's non-Python languages: its type table and its converter."""

    name: str
    error_type: str
    """BFCL's error type for an argument that is not a string."""
    types: Mapping[str, type]
    convert: Callable[..., Any]


def _language(name: str) -> BfclLanguage:
    module, table, error_type = {
        "java": ("java_type_converter", "JAVA_TYPE_CONVERSION", "type_error:java"),
        "javascript": ("js_type_converter", "JS_TYPE_CONVERSION", "type_error:js"),
    }[name]
    data_package("bfcl_eval", "bfcl-eval")  # importable wherever make or pip put it
    try:
        converter = importlib.import_module(f"{_CONVERTERS}.{module}")
        tables = importlib.import_module("bfcl_eval.constants.type_mappings")
    except ImportError:
        raise ValueError(
            f"bfcl_verdict: BFCL's {name} categories are checked with BFCL's own type "
            f"converter, from the bfcl-eval package; {_INSTALL}"
        ) from None
    label = "Java" if name == "java" else "JavaScript"
    return BfclLanguage(label, error_type, getattr(tables, table), getattr(converter, module))


@functools.cache
def _loaded(name: str) -> BfclLanguage:
    return _language(name)


def bfcl_language(category: str) -> BfclLanguage | None:
    """The language of a category as BFCL tells it (``is_js``, ``is_java``); None: Python."""
    if "javascript" in category:
        return _loaded("javascript")
    if "java" in category:
        return _loaded("java")
    return None


Read = tuple[tuple[str, str] | None, Any, str, "type | None", "type | None"]


def read_argument(language: BfclLanguage, param: str, value: Any, details: Any) -> Read:
    """``(failure, value, type name, type, items' type)`` of one argument, as BFCL's
    ``simple_function_checker`` reads it before its shared rules.

    >>> java = bfcl_language("simple_java")
    >>> read_argument(java, "n", "10L", {"type": "long"})[:2]
    (None, 10)
    >>> read_argument(java, "n", 10, {"type": "long"})[0]
    ('type_error:java', "type of 'n': expected a string (Java long), got int")
    """
    details = details if isinstance(details, Mapping) else {}
    desc = str(details.get("type"))
    kind = language.types.get(desc)
    if kind is None:  # BFCL's checker raises (KeyError) on a type outside its table
        failure = ("type_error:unknown", f"type of {param!r}: unknown {language.name} type")
        return failure, value, desc, None, None
    if type(value) is not str:
        got = type(value).__name__
        failure = (
            language.error_type,
            f"type of {param!r}: expected a string ({language.name} {desc}), got {got}",
        )
        return failure, value, desc, kind, None
    nested = None
    if desc in _NESTED:
        items = details.get("items")
        inner = str(items.get("type")) if isinstance(items, Mapping) else ""
        nested = language.types.get(inner)
        if nested is None:  # BFCL raises here too
            failure = ("type_error:unknown", f"items of {param!r}: unknown {language.name} type")
            return failure, value, desc, kind, None
    try:
        value = language.convert(value, desc, inner) if nested else language.convert(value, desc)
    except Exception as exc:  # BFCL's whole evaluation stops there
        failure = (
            language.error_type,
            f"{param!r}: BFCL's {language.name} converter raised {type(exc).__name__} "
            "(BFCL's own evaluation stops on it)",
        )
        return failure, value, desc, kind, None
    return None, value, desc, kind, nested
