"""Perturbations of one parameter value, by the value's own type. Pure.

Each variant probes a rule of BFCL's checker: int/float/bool/string swaps, the string
normalisation (case, spaces, punctuation, quotes), list order and length, dict keys,
and the same inside lists and dicts (a chosen subset, so nesting does not explode).
"""

from __future__ import annotations

from typing import Any

__all__ = ["value_variants"]


def value_variants(value: Any) -> list[tuple[str, Any]]:
    """(perturbation, new value) for one parameter value, by the value's own type."""
    out: list[tuple[str, Any]] = []
    if isinstance(value, bool):
        out += [("bool_as_int", int(value)), ("bool_as_str", str(value).lower())]
        out.append(("bool_flipped", not value))
    elif isinstance(value, int):
        out += [("int_as_float", float(value)), ("int_as_str", str(value))]
        out.append(("int_changed", value + 1))
        if value in (0, 1):
            out.append(("int_as_bool", bool(value)))
    elif isinstance(value, float):
        out += [("float_as_int", int(value)), ("float_as_str", repr(value))]
        out.append(("float_changed", value + 1.5))
    elif isinstance(value, str):
        for name, variant in (
            ("str_upper", value.upper()),
            ("str_lower", value.lower()),
            ("str_title", value.title()),
            ("str_spaces_to_underscores", value.replace(" ", "_")),
            ("str_no_spaces", value.replace(" ", "")),
            ("str_dot_suffix", value + "."),
            ("str_comma_dash", value.replace(" ", ", ", 1).replace(",", "-")),
            ("str_single_to_double_quote", value.replace("'", '"')),
            ("str_double_to_single_quote", value.replace('"', "'")),
            ("str_bang_suffix", value + "!"),
            ("str_padded", f" {value} "),
            ("str_changed", value + "zz"),
            ("str_empty", ""),
            ("str_accented", value.replace("e", "\u00e9", 1)),
            ("str_tab_for_space", value.replace(" ", "\t", 1)),
            ("str_apostrophe_dropped", value.replace("'", "")),
            ("str_colon_suffix", value + ":"),
        ):
            if variant != value:
                out.append((name, variant))
        number = _as_number(value)
        if number is not None:
            out.append(("str_as_number", number))
    elif value is None:
        out += [("null_as_str", "None"), ("null_as_empty", "")]
    elif isinstance(value, list):
        if len(value) > 1 and list(reversed(value)) != value:
            out.append(("list_reversed", list(reversed(value))))
        if value:
            out.append(("list_dropped_last", value[:-1]))
            out.append(("list_duplicated_last", [*value, value[-1]]))
            for item_name, item in value_variants(value[0]):
                if _item_variant(item_name):
                    out.append((f"list_item_{item_name}", [item, *value[1:]]))
        else:
            out.append(("list_filled", ["x"]))
        out.append(("list_as_tuple_str", str(tuple(value))))
    elif isinstance(value, dict):
        keys = list(value)
        if keys:
            out.append(("dict_dropped_key", {k: value[k] for k in keys[1:]}))
            for key in keys:  # every key: BFCL compares dict members one by one
                for item_name, item in value_variants(value[key]):
                    if _item_variant(item_name):
                        out.append((f"dict_value_{item_name}", {**value, key: item}))
        out.append(("dict_extra_key", {**value, "unexpected_key": "x"}))
        out.append(("dict_empty", {}))
    return out


def _as_number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    return number if number == number and abs(number) != float("inf") else None


def _item_variant(name: str) -> bool:
    """Whether a variant is tried inside a list or dict (nested ones too)."""
    while name.startswith(("list_item_", "dict_value_")):
        name = name.split("_", 2)[2]
    return name in _ITEM_VARIANTS


# Variants worth trying inside lists and dicts too (the rest would mostly repeat).
_ITEM_VARIANTS = {
    "int_as_float",
    "int_as_str",
    "float_as_int",
    "bool_as_int",
    "str_upper",
    "str_spaces_to_underscores",
    "str_bang_suffix",
    "str_changed",
    "str_empty",
    "str_as_number",
    "str_accented",
    "dict_dropped_key",
    "dict_extra_key",
    "list_reversed",
}
