"""Model outputs for BFCL entries: the canonical answer and systematic perturbations. Pure.

A case is one decoded model output in BFCL's AST form, ``[{func_name: {param: value}}]``,
with BFCL's own function names (dots kept). Both checkers judge the same case: BFCL's
``ast_checker`` (in ``.venv-bfcl``) and agentloop's ``bfcl_verdict`` (which sees the
calls as OpenAI tool calls, names with ``.`` -> ``_``). Nothing here says which verdict
is right: the cases are chosen to probe each rule of BFCL's checker (types, the string
normalisation, optional parameters, dict and list-of-dict values, call counts,
pairing of parallel calls, relevance).

``cases_for_entry(entry, answers, category)`` -> list of ``{"case_id", "id", "category",
"perturbation", "output"}``; ``answers`` is BFCL's possible answer (``[{name: {param:
[acceptable values]}}]``, ``""`` among the values = may be omitted), None for the
irrelevance/relevance categories. Deterministic: same input, same cases, same order.
A few cases also carry ``raw``: the calls' arguments as JSON text, some of it malformed
(the checker side decodes it with BFCL's own function-calling decoder).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from bfcl_variants import value_variants

__all__ = [
    "AST_CATEGORIES",
    "CATEGORIES",
    "RELEVANCE_CATEGORIES",
    "canonical_output",
    "cases_for_entry",
]

AST_CATEGORIES = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
)
RELEVANCE_CATEGORIES = ("irrelevance", "live_irrelevance", "live_relevance")
CATEGORIES = AST_CATEGORIES + RELEVANCE_CATEGORIES

MAX_ALTERNATIVES = 3  # other acceptable values tried per parameter
Output = list[dict[str, dict[str, Any]]]


def _is_omit_mark(value: Any) -> bool:
    return isinstance(value, str) and value == ""


def _first(values: Any) -> tuple[bool, Any]:
    """The first acceptable value that is not BFCL's "may be omitted" mark."""
    for value in values if isinstance(values, list) else [values]:
        if not _is_omit_mark(value):
            return True, value
    return False, None


def _canonical_dict(pattern: Any) -> Any:
    """One acceptable dict (``{key: [values]}``) -> a dict value (first value per key)."""
    if not isinstance(pattern, dict):
        return pattern
    out = {}
    for key, values in pattern.items():
        found, value = _first(values)
        if found:
            out[key] = value
    return out


def _schema(doc: dict[str, Any] | None, param: str) -> dict[str, Any]:
    props = ((doc or {}).get("parameters") or {}).get("properties") or {}
    schema = props.get(param)
    return schema if isinstance(schema, dict) else {}


def _kind(schema: dict[str, Any]) -> tuple[Any, Any]:
    items = schema.get("items")
    return schema.get("type"), items.get("type") if isinstance(items, dict) else None


def _from_answer(value: Any, schema: dict[str, Any]) -> Any:
    """An acceptable answer as a value: dict answers hold acceptable values per key."""
    kind, item = _kind(schema)
    if kind == "dict":
        return _canonical_dict(value)
    if kind in ("array", "tuple") and item == "dict" and isinstance(value, list):
        return [_canonical_dict(v) for v in value]
    return copy.deepcopy(value)


def canonical_output(answers: list[dict[str, Any]], docs: dict[str, Any]) -> Output:
    """First acceptable value of each parameter; parameters that accept only omission
    are left out."""
    output: Output = []
    for answer in answers:
        for name, params in answer.items():
            args = {}
            for param, values in params.items():
                found, value = _first(values)
                if found:
                    args[param] = _from_answer(value, _schema(docs.get(name), param))
            output.append({name: args})
    return output


def _type_default(schema: dict[str, Any]) -> Any:
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    return {
        "integer": 1,
        "float": 1.5,
        "number": 1.5,
        "boolean": True,
        "array": [],
        "tuple": [],
        "dict": {},
        "object": {},
    }.get(schema.get("type"), "test")


def _required_args(doc: dict[str, Any]) -> dict[str, Any]:
    params = doc.get("parameters") or {}
    return {p: _type_default(_schema(doc, p)) for p in params.get("required") or []}


def _relevance_outputs(docs: list[dict[str, Any]]) -> list[tuple[str, Output]]:
    outs: list[tuple[str, Output]] = [("no_call", [])]
    if docs:
        first = docs[0]
        outs.append(("call_required_args", [{first["name"]: _required_args(first)}]))
        outs.append(("call_no_args", [{first["name"]: {}}]))
        outs.append(("call_all_functions", [{d["name"]: _required_args(d)} for d in docs]))
    outs.append(("call_unknown_function", [{"unknown_function": {"x": 1}}]))
    return outs


def _with_args(output: Output, index: int, args: dict[str, Any]) -> Output:
    out = copy.deepcopy(output)
    name = next(iter(out[index]))
    out[index] = {name: args}
    return out


def _ast_outputs(
    answers: list[dict[str, Any]], docs: dict[str, dict[str, Any]]
) -> list[tuple[str, Output]]:
    canon = canonical_output(answers, docs)
    outs: list[tuple[str, Output]] = [("canonical", canon)]
    # Call-level perturbations.
    if len(canon) > 1:
        outs.append(("calls_reversed", list(reversed(canon))))
        if len(canon) > 2:
            outs.append(("calls_rotated", canon[1:] + canon[:1]))
    if canon:
        outs.append(("extra_call_duplicate", canon + canon[:1]))
        outs.append(("missing_call", canon[:-1]))
        name0 = next(iter(canon[0]))
        outs.append(("wrong_name", [{name0 + "_v2": canon[0][name0]}, *canon[1:]]))
        outs.append(("wrong_name_case", [{name0.upper(): canon[0][name0]}, *canon[1:]]))
        for other in docs:
            if other != name0:
                outs.append(("other_function", [{other: canon[0][name0]}, *canon[1:]]))
                break
    outs.append(("no_call", []))
    # Parameter-level perturbations, on each expected call in turn.
    omit_all = copy.deepcopy(canon)
    for index, (name, params) in enumerate(a for answer in answers for a in answer.items()):
        doc = docs.get(name) or {}
        args = canon[index][name]
        required = set((doc.get("parameters") or {}).get("required") or [])
        props = (doc.get("parameters") or {}).get("properties") or {}
        for param, values in params.items():
            values = values if isinstance(values, list) else [values]
            schema = _schema(doc, param)
            others = [v for v in values if not _is_omit_mark(v)][1 : MAX_ALTERNATIVES + 1]
            for alt in others:
                outs.append(
                    (
                        "alt_value",
                        _with_args(canon, index, {**args, param: _from_answer(alt, schema)}),
                    )
                )
            if param in args:
                rest = {k: v for k, v in args.items() if k != param}
                if any(_is_omit_mark(v) for v in values):
                    outs.append(("omit_optional", _with_args(canon, index, rest)))
                    omit_all[index][name].pop(param, None)
                elif param in required:
                    outs.append(("omit_required", _with_args(canon, index, rest)))
                else:
                    outs.append(("omit_expected_unrequired", _with_args(canon, index, rest)))
                for variant, value in value_variants(args[param]):
                    outs.append((variant, _with_args(canon, index, {**args, param: value})))
            elif any(_is_omit_mark(v) for v in values):
                # Only omission is acceptable: give a value anyway.
                outs.append(
                    (
                        "value_for_omit_only",
                        _with_args(canon, index, {**args, param: _type_default(schema)}),
                    )
                )
                if schema.get("type") == "string":
                    outs.append(
                        ("empty_str_for_omit_only", _with_args(canon, index, {**args, param: ""}))
                    )
        for param, values in params.items():
            values = values if isinstance(values, list) else [values]
            if (
                param in args
                and any(_is_omit_mark(v) for v in values)
                and isinstance(args[param], str)
            ):
                outs.append(
                    ("empty_str_for_optional", _with_args(canon, index, {**args, param: ""}))
                )
            if param in args and any(_is_omit_mark(v) for v in values):
                outs.append(("null_for_optional", _with_args(canon, index, {**args, param: None})))
        unexpected = [p for p in props if p not in params]
        if unexpected:
            extra = {**args, unexpected[0]: _type_default(props[unexpected[0]])}
            outs.append(("extra_param_in_schema", _with_args(canon, index, extra)))
        outs.append(
            ("extra_param_unknown", _with_args(canon, index, {**args, "unexpected_arg": 1}))
        )
    if omit_all != canon:
        outs.append(("omit_all_optional", omit_all))
    if len(canon) > 1:
        # Reordered calls combined with other acceptable values (greedy pairing probe).
        for kind, out in list(outs):
            if kind == "alt_value":
                outs.append(("alt_value_calls_reversed", list(reversed(out))))
    return outs


def cases_for_entry(
    entry: dict[str, Any], answers: list[dict[str, Any]] | None, category: str
) -> list[dict[str, Any]]:
    """Every case for one BFCL entry (see the module docstring)."""
    functions = entry.get("function") or []
    if category in RELEVANCE_CATEGORIES or answers is None:
        outputs = _relevance_outputs(functions)
    else:
        outputs = _ast_outputs(answers, {f["name"]: f for f in functions})
    base = next((out for kind, out in outputs if kind in ("canonical", "call_required_args")), [])
    cases = []
    seen: dict[str, int] = {}
    for perturbation, output, raw in [(k, o, None) for k, o in outputs] + _raw_outputs(base):
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


def _raw_outputs(base: Output) -> list[tuple[str, Output, list[list[str]] | None]]:
    """Cases whose first call's arguments are given as text (``raw``: ``[[name, JSON
    text], ...]``, what a function-calling model returns); ``output`` is then what BFCL
    would decode, ``[]`` where the text does not decode to an object."""
    if not base:
        return []
    raw = [[name, json.dumps(args)] for call in base for name, args in call.items()]
    first = raw[0][1]
    spaced = [[raw[0][0], json.dumps(json.loads(first), indent=2)], *raw[1:]]
    truncated = [[raw[0][0], first[:-1]], *raw[1:]]
    values = list(next(iter(base[0].values())).values())
    not_object = [[raw[0][0], json.dumps(values)], *raw[1:]]

    def first_as(text: str) -> list[list[str]]:
        return [[raw[0][0], text], *raw[1:]]

    return [
        ("args_json_reformatted", base, spaced),
        ("args_malformed_json", [], truncated),
        ("args_not_an_object", [], not_object),
        # what LangChain reads (leniently) but BFCL's strict json.loads does not
        ("args_raw_tab", [], first_as(with_control_character(first, "\t"))),
        ("args_raw_newline", [], first_as(with_control_character(first, "\n"))),
        ("args_blank", [], first_as("")),
        # JSON, but not an object
        ("args_null", [], first_as("null")),
        ("args_number", [], first_as("5")),
        ("args_string", [], first_as('"hi"')),
    ]


def with_control_character(text: str, char: str) -> str:
    """JSON object text with a raw control character inside a string: the first string
    value's, else a key's (strict JSON rejects it; a lenient reader keeps it)."""
    at = text.find('": "')
    if at >= 0:
        return text[: at + 4] + char + text[at + 4 :]
    rest = text.strip()[1:-1].strip()
    return '{"x' + char + 'y": 0' + (", " + rest if rest else "") + "}"
