"""Model outputs for BFCL's Java and JavaScript entries: the ground truth written as
literals, and perturbations of them. Pure.

In ``simple_java`` and ``simple_javascript`` every argument reaches the model as a string
(``"10L"``, ``"new ArrayList<>(Arrays.asList(1, 2))"``, ``"{key: 'v'}"``), which BFCL's
checker converts back (``java_type_converter``, ``js_type_converter``) and compares with
its possible answer (Python values). A case is a decoded output ``[{name: {param:
string}}]`` as in ``bfcl_perturb``; ``cases_for_entry`` is its counterpart for these
categories: the canonical literals, other spellings of the same values, each argument
with a wrong type (a JSON value, not a string), a wrong value, a literal of the wrong
kind (``10`` for a long, ``3.0`` for a float, ``'a'`` quotes), left out, an extra
argument, an extra call, no call, a wrong name, hostile strings, and the malformed
argument texts of ``bfcl_perturb``.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from bfcl_perturb import _raw_outputs

__all__ = ["LANGUAGE_CATEGORIES", "cases_for_entry", "literal"]

LANGUAGE_CATEGORIES = ("simple_java", "simple_javascript")
_JAVA_ELEMENT = {"String": "String", "integer": "int", "long": "long", "char": "char"}
HOSTILE = [
    "",
    " ",
    "9" * 5000,  # more digits than Python's int() reads
    "new ArrayList<>(Arrays.asList())",
    'new HashMap<String, Object>() {{ put("k", ); }}',
    "[",
    "[[1, 2], [3",
    "{",
    "{a:}",
    "{'a': [1, {'b': 2}]}",
    "new Array(",
    "null",
    "undefined",
    "\u00e9\u4e2d\U0001f600",
    "\x00",
    "a" * 20000,
]


def _first(values: Any) -> tuple[bool, Any]:
    for value in values if isinstance(values, list) else [values]:
        if not (isinstance(value, str) and value == ""):
            return True, value
    return False, None


def _java_scalar(value: Any) -> str:
    """A value inside a Java collection, as ``parse_java_value`` reads it back."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _js_scalar(value: Any, quote: str = '"') -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"{quote}{value}{quote}"
    if isinstance(value, list):
        return "[" + ", ".join(_js_scalar(v, quote) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_js_scalar(v, quote)}" for k, v in value.items()) + "}"
    return repr(value) if isinstance(value, float) else str(value)


def _dict_value(pattern: Any) -> Any:
    """One acceptable dict of a possible answer (acceptable values per key)."""
    if not isinstance(pattern, dict):
        return pattern
    out = {}
    for key, values in pattern.items():
        found, value = _first(values)
        if found:
            out[key] = value
    return out


def literal(value: Any, kind: str, items: str | None, language: str, form: int = 0) -> str:
    """``value`` (a possible answer's) as a model would write it for a parameter of BFCL
    type ``kind``; ``form`` picks another spelling where there is one."""
    if isinstance(value, str):
        return value  # a string, or a variable's name
    if language == "java":
        if kind == "boolean":
            return "true" if value else "false"
        if kind == "long":
            return f"{value}{'lL'[form % 2]}"
        if kind == "float":
            return f"{float(value)!r}{'fF'[form % 2]}"
        if kind == "double":
            return repr(float(value))
        if kind == "Array" and isinstance(value, list):
            element = _JAVA_ELEMENT.get(items or "", "Object")
            body = ", ".join(_java_scalar(v) if form == 0 else str(v) for v in value)
            return f"new {element}[]{{{body}}}"
        if kind == "ArrayList" and isinstance(value, list):
            if form == 1:
                adds = " ".join(f"add({_java_scalar(v)});" for v in value)
                return (
                    f"new ArrayList<{_JAVA_ELEMENT.get(items or '', 'Object')}>() {{{{ {adds} }}}}"
                )
            body = ", ".join(_java_scalar(v) for v in value)
            return f"new ArrayList<>(Arrays.asList({body}))"
        if kind == "HashMap":
            puts = " ".join(
                f"put({json.dumps(k)}, {_java_scalar(v)});" for k, v in _dict_value(value).items()
            )
            return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
        return _java_scalar(value)
    quote = "'" if form == 1 else '"'
    if kind == "Bigint":
        return f"{value}n"
    if kind == "float":
        return repr(float(value)) if form == 0 else str(value)
    if kind == "array" and isinstance(value, list) and form == 2:
        return f"new Array({', '.join(_js_scalar(v, quote) for v in value)})"
    if kind == "dict":
        return _js_scalar(_dict_value(value), quote)
    return _js_scalar(value, quote)


def _wrong(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7
    if isinstance(value, list):
        return [*value, value[0]] if value else [1]
    if isinstance(value, dict):
        return {**value, "zz_extra": 1}
    return str(value) + "_wrong"


def _native(value: Any) -> Any:
    """The value as a JSON value instead of a string (a wrong type for these languages)."""
    return value if not isinstance(value, str) else {"value": value}


def cases_for_entry(
    entry: dict[str, Any], answers: list[dict[str, Any]], category: str
) -> list[dict[str, Any]]:
    """Every case for one Java or JavaScript entry (see the module docstring)."""
    language = "javascript" if "javascript" in category else "java"
    doc = entry["function"][0]
    properties = doc["parameters"].get("properties") or {}
    ((name, params),) = answers[0].items()
    values: dict[str, Any] = {}
    for param, options in params.items():
        found, value = _first(options)
        if found:
            values[param] = value

    def kind(param: str) -> tuple[str, str | None]:
        schema = properties.get(param) or {}
        items = schema.get("items") or {}
        return str(schema.get("type")), items.get("type") if isinstance(items, dict) else None

    def written(form: int = 0, **changed: Any) -> dict[str, Any]:
        out = {p: literal(v, *kind(p), language, form) for p, v in values.items()}
        out.update(changed)
        return out

    base = [{name: written()}]
    outs: list[tuple[str, Any]] = [("canonical", base)]
    for form in (1, 2):
        outs.append((f"literal_form_{form}", [{name: written(form)}]))
    outs.append(("call_none", []))
    outs.append(("call_extra", [*base, copy.deepcopy(base[0])]))
    outs.append(("call_wrong_name", [{name + "X": written()}]))
    outs.append(("arg_extra", [{name: written(zz_unexpected="1")}]))
    for param, value in values.items():
        t, items = kind(param)
        outs.append(
            (f"arg_missing:{t}", [{name: {p: v for p, v in written().items() if p != param}}])
        )
        outs.append((f"arg_native_type:{t}", [{name: written(**{param: _native(value)})}]))
        wrong = literal(_wrong(value), t, items, language)
        outs.append((f"arg_wrong_value:{t}", [{name: written(**{param: wrong})}]))
        # the literal of another kind: a long without L, a float without f, quotes, ...
        plain = _js_scalar(value) if not isinstance(value, str) else json.dumps(value)
        outs.append((f"arg_other_literal:{t}", [{name: written(**{param: plain})}]))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            for text in (f"{value}L", f"{value}f", f"{float(value)}", f"{value}n", f" {value} "):
                outs.append((f"arg_number_spelling:{t}", [{name: written(**{param: text})}]))
        if isinstance(value, bool):
            for text in ("True", "1", "'true'", "TRUE"):
                outs.append((f"arg_bool_spelling:{t}", [{name: written(**{param: text})}]))
        if isinstance(value, str):
            outs.append((f"arg_case_space:{t}", [{name: written(**{param: f" {value.upper()} "})}]))
    if values:
        first = next(iter(values))
        for text in HOSTILE:
            outs.append(("arg_hostile", [{name: written(**{first: text})}]))
    cases = []
    seen: dict[str, int] = {}
    for perturbation, output, raw in [(k, o, None) for k, o in outs] + _raw_outputs(base):
        n = seen[perturbation] = seen.get(perturbation, 0) + 1
        case = {
            "case_id": f"{entry['id']}::{perturbation}#{n}",
            "id": entry["id"],
            "category": category,
            "perturbation": perturbation,
            "output": output,
        }
        if raw is not None:
            case["raw"] = raw
        cases.append(case)
    return cases
