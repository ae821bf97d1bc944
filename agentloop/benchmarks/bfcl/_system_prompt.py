"""The system prompt BFCL gives a prompting (non-function-calling) model, in each of its
prompt formats (``bfcl_eval.model_handler.utils.formulate_system_prompt``).

The templates are bfcl-eval's own (``constants/default_prompts.py``, plain constants);
the function docs are rendered here as BFCL renders them: ``json.dumps(indent=4)``, its
XML (``_generate_function_doc_xml``) or its Python docstrings
(``_generate_function_doc_python``). A question that brings its own system message gets
the prompt in front of it, as ``system_prompt_pre_processing_chat_model`` does.
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
from types import ModuleType
from typing import Any

from agentloop.benchmarks.bfcl._package import BFCL_INSTALL, bfcl_package
from agentloop.errors import DatasetError

__all__ = ["function_doc", "system_prompt", "with_system_prompt"]


@functools.cache
def _templates() -> ModuleType:
    if bfcl_package() is None:
        raise DatasetError(f"BFCL prompt formats: bfcl-eval is not installed; {BFCL_INSTALL}")
    return importlib.import_module("bfcl_eval.constants.default_prompts")


def system_prompt(config: str, functions: list[dict[str, Any]]) -> str:
    """BFCL's system prompt for one prompt format and the entry's function docs."""
    from agentloop.evals import bfcl_prompt_format  # at first use, as in _format_sensitivity

    fmt = bfcl_prompt_format(config)
    t = _templates()
    style = t.PROMPT_STYLE_TEMPLATES[fmt.style]
    call_format = style["tool_call_with_tag" if fmt.tool_call_tag else "tool_call_no_tag"]
    return str(
        t.PROMPT_TEMPLATE_MAPPING[fmt.prompt_format].format(
            persona=style["persona"],
            task=style["task"],
            tool_call_format=call_format.format(
                output_format=t.OUTPUT_FORMAT_MAPPING[fmt.return_format],
                param_types=t.PARAM_TYPE_MAPPING[fmt.return_format],
            ),
            multiturn_behavior=style["multiturn_behavior"],
            available_tools=style["available_tools"].format(
                format=fmt.function_doc_format,
                functions=function_doc(functions, fmt.function_doc_format),
            ),
        )
    )


def with_system_prompt(
    messages: list[dict[str, Any]], config: str, functions: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The question's messages with BFCL's system prompt first (a new copy)."""
    messages = copy.deepcopy(messages)
    prompt = system_prompt(config, functions)
    if messages and messages[0].get("role") == "system":
        messages[0]["content"] = prompt + "\n\n" + messages[0]["content"]
    else:
        messages.insert(0, {"role": "system", "content": prompt})
    return messages


def function_doc(functions: list[dict[str, Any]], doc_format: str) -> str:
    """The function docs in one of BFCL's three doc formats."""
    if doc_format == "json":
        return json.dumps(functions, indent=4)
    if doc_format == "xml":
        return "\n".join(_xml_function(f) for f in functions)
    if doc_format == "python":
        blocks: list[str] = []
        for f in functions:
            blocks += [_python_function(f), "\n"]
        return "\n\n".join(blocks)
    raise ValueError(f"not a BFCL function-doc format: {doc_format!r}")


def _xml_function(fn: dict[str, Any]) -> str:
    schema = fn["parameters"]
    required = schema.get("required")
    params = "".join(
        _xml_param(name, meta, required, 2) for name, meta in schema.get("properties", {}).items()
    )
    desc = fn.get("description", "")
    return (
        f'<function name="{fn["name"]}">\n  <desc>{desc}</desc>\n  <params>\n'
        f"{params}  </params>\n</function>\n"
    )


def _xml_param(name: str, meta: dict[str, Any], required: Any, level: int) -> str:
    indent = " " * level * 2
    kind = meta.get("type", "string")
    desc = meta.get("description", "")
    # no required list: every parameter is required (BFCL's rule)
    is_required = "true" if required is None or name in required else "false"
    if "enum" in meta:
        desc += f" Enum values: {meta['enum']}."
    if "items" in meta and "type" in meta["items"]:
        kind = f"{kind}[{meta['items']['type']}]"
    elif "additionalProperties" in meta:
        kind = f"{kind}[{meta['additionalProperties'].get('type', 'string')}]"
    attrs = [f'name="{name}", type="{kind}", required="{is_required}"']
    if "default" in meta:
        attrs.append(f'default="{meta["default"]!r}"')
    # BFCL drops every comma of the attributes, a default's own included
    parts = [f"{indent}<param " + " ".join(attrs).replace(",", "") + ">\n"]
    parts.append(f"{indent}  <desc>{desc}</desc>\n")
    if "properties" in meta:
        child_required = meta.get("required")
        parts.append(f"{indent}  <params>\n")
        for child, child_meta in meta["properties"].items():
            parts.append(_xml_param(child, child_meta, child_required, level + 2))
        parts.append(f"{indent}  </params>\n")
    parts.append(f"{indent}</param>\n")
    return "".join(parts)


_PY_TYPES = {"string": "str", "number": "float", "integer": "int", "boolean": "bool"}


def _py_type(meta: dict[str, Any]) -> str:
    kind = meta.get("type", "string")
    if kind in _PY_TYPES:
        return _PY_TYPES[kind]
    if kind in {"array", "list", "tuple"} and "items" in meta:
        return f"list[{_py_type(meta['items'])}]"
    if kind in {"object", "dict"}:
        if "additionalProperties" in meta:
            return f"dict[str, {_py_type(meta['additionalProperties'])}]"
        return "dict"
    return str(kind)


def _py_param(name: str, meta: dict[str, Any], depth: int) -> list[str]:
    indent = " " * 8 + " " * 4 * depth
    desc = meta.get("description", "")
    if "enum" in meta:
        desc += f" Enum values: {meta['enum']}."
    default = f", default={meta['default']!r}" if "default" in meta else ""
    lines = [f"{indent}{name} ({_py_type(meta)}{default}): {desc}\n"]
    for child, child_meta in meta.get("properties", {}).items():
        lines += _py_param(child, child_meta, depth + 1)
    return lines


def _python_function(fn: dict[str, Any]) -> str:
    lines = [f"# Function: {fn['name']}\n", '    """\n', f"    {fn.get('description', '')}\n\n"]
    properties = fn.get("parameters", {}).get("properties", {})
    if properties:
        lines.append("    Args:\n")
        for name, meta in properties.items():
            lines += _py_param(name, meta, 0)
    lines.append('    """\n')
    return "".join(lines)
