"""BFCL's prompt formats (its format-sensitivity category): the 26 configurations and a
text reply decoded in each, as BFCL's prompting handlers decode it.

A configuration is BFCL's string ``ret_fmt=…&tool_call_tag=…&func_doc_fmt=…&prompt_fmt=…&
style=…`` (``get_all_format_sensitivity_configs``: 4 return formats x tag or not x 3
function-doc formats, plus one markdown and one experimental-style prompt). A reply is
decoded as ``default_decode_ast_prompting`` then ``ast_parse`` do: stripped of backticks,
wrapped in ``[...]``, the ``<TOOLCALL>`` section taken when the format has the tag, then
read as Python calls (keyword arguments only, as BFCL's ``resolve_ast_call``), JSON or
XML; the JSON and XML readers are bfcl-eval's own (``model_handler/parser``, whose imports
are the standard library's). One difference: where BFCL's Python reader ``eval``s an
argument written as an operation (``2 * 3``), this one computes only arithmetic on
literals and fails the reply otherwise; BFCL runs the model's code.
"""

from __future__ import annotations

import ast
import functools
import importlib
import operator
import re
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

from agentloop._packages import data_package

__all__ = ["BFCL_PROMPT_FORMATS", "BfclPromptFormat", "bfcl_prompt_format", "decode_reply"]

_INSTALL = "pip install --no-deps 'bfcl-eval==2026.3.23'"
RETURN_FORMATS = ("python", "json", "verbose_xml", "concise_xml")


def _configs() -> tuple[str, ...]:
    base = [
        f"ret_fmt={ret}&tool_call_tag={tag}&func_doc_fmt={doc}&prompt_fmt=plaintext&style=classic"
        for ret in RETURN_FORMATS
        for tag in ("True", "False")
        for doc in ("python", "xml", "json")
    ]
    tail = "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt="
    return (*base, tail + "markdown&style=classic", tail + "plaintext&style=experimental")


BFCL_PROMPT_FORMATS = _configs()
"""BFCL's format-sensitivity configurations, in its order."""

_PATTERN = re.compile(
    r"^ret_fmt=(python|json|verbose_xml|concise_xml)&tool_call_tag=(True|False)"
    r"&func_doc_fmt=(python|xml|json)&prompt_fmt=(plaintext|markdown)"
    r"&style=(classic|experimental)$"
)


class BfclPromptFormat(NamedTuple):
    """One configuration, read (BFCL's ``parse_prompt_variation_params``)."""

    return_format: str
    tool_call_tag: bool
    function_doc_format: str
    prompt_format: str
    style: str


def bfcl_prompt_format(config: str) -> BfclPromptFormat:
    """A configuration string read; ``ValueError`` (one line) for any other string.

    >>> fmt = bfcl_prompt_format("ret_fmt=json&tool_call_tag=False&func_doc_fmt=xml"
    ...                          "&prompt_fmt=plaintext&style=classic")
    >>> fmt.return_format, fmt.tool_call_tag, fmt.function_doc_format
    ('json', False, 'xml')
    """
    match = _PATTERN.match(config)
    if not match:
        raise ValueError(f"not a BFCL prompt format: {config!r}")
    ret, tag, doc, prompt, style = match.groups()
    return BfclPromptFormat(ret, tag == "True", doc, prompt, style)


@functools.cache
def _parser(name: str) -> Callable[[str], Any]:
    data_package("bfcl_eval", "bfcl-eval")
    module, function = {
        "json": ("json_parser", "parse_json_function_call"),
        "verbose_xml": ("xml_parser", "parse_verbose_xml_function_call"),
        "concise_xml": ("xml_parser", "parse_concise_xml_function_call"),
    }[name]
    try:
        loaded = importlib.import_module(f"bfcl_eval.model_handler.parser.{module}")
    except ImportError:
        raise ValueError(
            f"bfcl_verdict: BFCL's {name} replies are read with bfcl-eval's own parser; {_INSTALL}"
        ) from None
    parse: Callable[[str], Any] = getattr(loaded, function)
    return parse


def decode_reply(text: str, fmt: BfclPromptFormat) -> list[Any]:
    """The reply as BFCL's decoded calls ``[{name: {param: value}}]``; raises (any
    exception: BFCL's decoder failing, which fails the entry) when it cannot be read.

    >>> fmt = bfcl_prompt_format(BFCL_PROMPT_FORMATS[0])  # Python calls in <TOOLCALL>
    >>> decode_reply("<TOOLCALL>[math.gcd(num1=2 * 20, num2=50), f(1)]</TOOLCALL>", fmt)
    [{'math.gcd': {'num1': 40, 'num2': 50}}, {'f': {}}]
    """
    result = text.strip("`\n ")
    if not result.startswith("["):
        result = "[" + result
    if not result.endswith("]"):
        result = result + "]"
    if fmt.tool_call_tag:
        match = re.search(r"<TOOLCALL>(.*?)</TOOLCALL>", result, re.DOTALL)
        if not match:
            raise ValueError("no <TOOLCALL> section")
        result = match.group(1).strip()
    if fmt.return_format == "python":
        return _python_calls(result)
    if fmt.return_format == "json":
        found = re.search(r"\[.*\]", result, re.DOTALL)
        return list(_parser("json")(found.group(0) if found else result))
    if not re.search(r"<functions>(.*?)</functions>", result, re.DOTALL):
        raise ValueError("no <functions> section")
    found = re.search(r"<functions>(.*?)</functions>", result, re.DOTALL)
    assert found is not None
    return list(_parser(fmt.return_format)(found.group(0)))


def _python_calls(text: str) -> list[Any]:
    # Python warns about some text it still reads (an invalid escape as in a Markdown
    # ``data\_set``); BFCL reads it, so no warning filter (``-W error``) may fail it here
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        body = ast.parse(text.strip().strip("'"), mode="eval").body
    if isinstance(body, ast.Call):
        return [_call(body)]
    elements = getattr(body, "elts", None)
    if elements is None:  # BFCL: AttributeError
        raise ValueError("not a list of calls")
    calls = []
    for element in elements:
        if not isinstance(element, ast.Call):  # BFCL: AssertionError
            raise ValueError("not a call")
        calls.append(_call(element))
    return calls


def _call(node: ast.Call) -> dict[Any, Any]:
    """BFCL's ``resolve_ast_call``: the dotted name; keyword arguments only."""
    parts = []
    func = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return {".".join(reversed(parts)): {kw.arg: _value(kw.value) for kw in node.keywords}}


def _value(node: ast.AST) -> Any:
    """BFCL's ``resolve_ast_by_type``, without running the model's code."""
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        # BFCL negates the operand's value whatever the operator (``+5`` reads -5)
        operand = node.operand
        if not isinstance(operand, ast.Constant):
            raise ValueError("an operator on a non-literal")
        literal: Any = operand.value
        return -literal  # TypeError for a string, as BFCL's
    if isinstance(node, ast.List):
        return [_value(v) for v in node.elts]
    if isinstance(node, ast.Dict):
        return {
            _value(k) if k is not None else _unsupported(): _value(v)
            for k, v in zip(node.keys, node.values, strict=True)
        }
    if isinstance(node, ast.BinOp):
        return _arithmetic(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return ast.unparse(node) if not node.keywords else _call(node)
    if isinstance(node, ast.Tuple):
        return tuple(_value(v) for v in node.elts)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    return _unsupported()  # Lambda too: BFCL's reading of it always raises


def _unsupported() -> Any:
    raise ValueError("an argument BFCL cannot read")


_OPERATORS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
}
_LARGEST = 1_000_000  # digits' bits, or items: more is refused rather than built


def _arithmetic(node: ast.AST) -> Any:
    """What BFCL's ``eval`` gives for an operation on literals (``2 * 3.5``, ``2**10``,
    ``"a" + "b"``); anything else raises (BFCL would run it as code), and so does a
    result too large to build (``9**9**9``, which hangs BFCL)."""
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _arithmetic(node.left), _arithmetic(node.right)
        _check_size(node.op, left, right)
        return _OPERATORS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_arithmetic(node.operand))
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ValueError("an expression BFCL would run as code") from None


def _check_size(op: ast.operator, left: Any, right: Any) -> None:
    ints = type(left) is int and type(right) is int
    if isinstance(op, ast.Pow) and ints and max(abs(left), 2).bit_length() * right > _LARGEST:
        raise ValueError("a power too large to compute")
    if isinstance(op, ast.Mult):
        for seq, times in ((left, right), (right, left)):
            sized = isinstance(seq, (str, bytes, list, tuple)) and isinstance(times, int)
            if sized and len(seq) * times > _LARGEST:
                raise ValueError("a repetition too large to build")
