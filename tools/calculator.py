"""A safe arithmetic calculator tool.

The expression is parsed with :mod:`ast` and walked node by node; nothing is
ever passed to ``eval``. Only numbers, the operators ``+ - * / // % **``,
unary ``+``/``-``, parentheses, a handful of math functions and the constants
``pi`` and ``e`` are accepted. Anything else is rejected with a readable
:class:`~langchain_core.tools.ToolException`, which the engine turns into an
error tool message.

Result formatting (deterministic, see :func:`format_number`):

- integers print as integers (``391``);
- floats with an integral value below ``1e15`` print without ``.0``
  (``sqrt(16)`` -> ``4``);
- other floats are rounded to 12 significant digits with ``format(x, ".12g")``
  (``0.1 + 0.2`` -> ``0.3``, ``1/3`` -> ``0.333333333333``, ``2.0**60`` ->
  ``1.15292150461e+18``), which hides binary floating-point noise.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

from langchain_core.tools import ToolException, tool

__all__ = [
    "MAX_EXPONENT",
    "MAX_EXPRESSION_LENGTH",
    "MAX_INT_BITS",
    "calculator",
    "evaluate",
    "format_number",
]

Number = int | float

MAX_EXPRESSION_LENGTH = 200
"""Longest expression accepted, in characters (also bounds nesting depth)."""
MAX_EXPONENT = 1000
"""Largest absolute exponent accepted by ``**``."""
MAX_INT_BITS = 4096
"""Largest integer result (in bits, about 1,233 digits) before refusing: keeps
memory and time bounded and stays under Python's int-to-str digit limit."""

_BINARY_OPS: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}

_UNARY_OPS: dict[type[ast.unaryop], Callable[[Number], Number]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}

_FUNCTIONS: dict[str, Callable[..., Number]] = {
    "sqrt": math.sqrt,
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "floor": math.floor,
    "ceil": math.ceil,
    "log": math.log,
    "sin": math.sin,
    "cos": math.cos,
}

_CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}

# Operators people type by habit, with a hint instead of a bare "unsupported".
_HINTS: dict[type[ast.AST], str] = {
    ast.BitXor: "'^' is not a power operator here; use '**'",
    ast.MatMult: "'@' is not supported",
}


def _fail(message: str) -> ToolException:
    return ToolException(f"calculator: {message}")


def _check_size(value: Number) -> Number:
    """Refuse huge integers and non-finite floats produced by any operation."""
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise _fail("result is too large")
    if isinstance(value, float) and not math.isfinite(value):
        raise _fail("result is not a finite number")
    return value


def _power(base: Number, exponent: Number) -> Number:
    if abs(exponent) > MAX_EXPONENT:
        raise _fail(f"exponent {format_number(exponent)} is too large (limit {MAX_EXPONENT})")
    # Estimate the size before computing, so 9**999 ** ... never gets built.
    if (
        isinstance(base, int)
        and isinstance(exponent, int)
        and base.bit_length() * exponent > MAX_INT_BITS + exponent
    ):
        raise _fail("result is too large")
    try:
        result = base**exponent
    except ZeroDivisionError:
        raise _fail("division by zero") from None
    except OverflowError:
        raise _fail("result is too large") from None
    if isinstance(result, complex):
        # (-8) ** (1/3) is complex in Python; this calculator is real-valued.
        raise _fail("result is not a real number")
    return result


def _call(node: ast.Call) -> Number:
    if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
        name = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
        raise _fail(f"unknown function {name!r}; available: {', '.join(sorted(_FUNCTIONS))}")
    if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
        raise _fail(f"{node.func.id}() takes positional arguments only")
    args = [_eval(arg) for arg in node.args]
    name = node.func.id
    if name == "round" and len(args) == 2 and not isinstance(args[1], int):
        raise _fail("round() digits must be an integer")
    try:
        return _FUNCTIONS[name](*args)
    except TypeError:
        raise _fail(f"wrong number of arguments for {name}()") from None
    except ValueError:
        raise _fail(f"math domain error in {name}()") from None
    except ZeroDivisionError:
        raise _fail(f"division by zero in {name}()") from None
    except OverflowError:
        raise _fail(f"result of {name}() is too large") from None


def _eval(node: ast.AST) -> Number:
    """Evaluate one whitelisted AST node; everything else raises."""
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant):
        # bool is an int subclass; True + 1 is not arithmetic anyone meant.
        if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return _check_size(node.value)
        raise _fail(f"unsupported literal {node.value!r}")
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise _fail(f"unknown name {node.id!r}; constants: {', '.join(sorted(_CONSTANTS))}")
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY_OPS:
        return _UNARY_OPS[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.BinOp):
        op_type = type(node.op)
        if op_type in _HINTS:
            raise _fail(_HINTS[op_type])
        left, right = _eval(node.left), _eval(node.right)
        if op_type is ast.Pow:
            return _check_size(_power(left, right))
        if op_type not in _BINARY_OPS:
            raise _fail(f"unsupported operator {op_type.__name__}")
        try:
            return _check_size(_BINARY_OPS[op_type](left, right))
        except ZeroDivisionError:
            raise _fail("division by zero") from None
        except OverflowError:
            raise _fail("result is too large") from None
    if isinstance(node, ast.Call):
        return _check_size(_call(node))
    raise _fail(f"unsupported syntax: {type(node).__name__}")


def evaluate(expression: str) -> Number:
    """Evaluate an arithmetic expression and return the number (int or float).

    Raises:
        ToolException: the expression is empty, too long, not valid arithmetic,
            divides by zero, or produces a result that is too large.
    """
    text = expression.strip()
    if not text:
        raise _fail("empty expression")
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise _fail(f"expression is longer than {MAX_EXPRESSION_LENGTH} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise _fail(f"cannot parse {text!r} as arithmetic") from None
    return _eval(tree)


def format_number(value: Number) -> str:
    """Format a result deterministically (see the module docstring for the rule)."""
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return format(value, ".12g")


@tool(parse_docstring=True)
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression and return the result as text.

    Supports numbers, + - * / // % ** and parentheses, the functions sqrt, abs,
    round, min, max, floor, ceil, log, sin, cos (radians) and the constants pi
    and e. Examples: "17*23", "sqrt(2)*pi", "(1.5+2)**3".

    Args:
        expression: The arithmetic expression to evaluate, e.g. "17*23".
    """
    return format_number(evaluate(expression))
