"""Tests for agentloop.tools.calculator: safe evaluation, limits and formatting."""

from __future__ import annotations

import asyncio
import math

import pytest
from agentloop.tools.calculator import (
    MAX_EXPRESSION_LENGTH,
    calculator,
    evaluate,
    format_number,
)
from langchain_core.tools import ToolException
from langchain_core.utils.function_calling import convert_to_openai_tool


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("17*23", "391"),
        ("1234+5678", "6912"),
        ("2**10", "1024"),
        ("(3+4)*5", "35"),
        ("100/8", "12.5"),
        ("6/3", "2"),
        ("7//2", "3"),
        ("-7//2", "-4"),
        ("100%7", "2"),
        ("-3", "-3"),
        ("+3", "3"),
        ("--3", "3"),
        ("2**-1", "0.5"),
        ("0.1+0.2", "0.3"),
        ("1/3", "0.333333333333"),
        ("3.5*2.4-1.2", "7.2"),
        ("sqrt(144)", "12"),
        ("sqrt(2)", "1.41421356237"),
        ("abs(-42)", "42"),
        ("round(3.14159,2)", "3.14"),
        ("round(2.5)", "2"),
        ("max(47,74)", "74"),
        ("min(3, 1, 2)", "1"),
        ("floor(7.8)", "7"),
        ("ceil(7.2)", "8"),
        ("log(1000)", "6.90775527898"),
        ("log(8, 2)", "3"),
        ("sin(pi/2)", "1"),
        ("cos(0)", "1"),
        ("pi", "3.14159265359"),
        ("e", "2.71828182846"),
        ("  1 + 1  ", "2"),
        ("2.0**60", "1.15292150461e+18"),
        ("1e20", "1e+20"),
        ("10**20", "100000000000000000000"),
    ],
)
def test_evaluates_and_formats(expression: str, expected: str) -> None:
    assert calculator.invoke({"expression": expression}) == expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1/0", "division by zero"),
        ("1//0", "division by zero"),
        ("5%0", "division by zero"),
        ("0**-1", "division by zero"),
        ("log(8, 1)", "division by zero"),
        ("2**100000", "exponent 100000 is too large"),
        ("(10**100)**100", "too large"),
        ("9**999*9**999*9**999*9**999*9**999", "too large"),
        ("1e308*10", "not a finite number"),
        ("2.0**5000", "exponent 5000 is too large"),
        ("10.0**400", "result is too large"),
        ("(-8)**(1/3)", "not a real number"),
        ("sqrt(-1)", "math domain error in sqrt()"),
        ("log(0)", "math domain error in log()"),
        ("2^3", "use '**'"),
        ("", "empty expression"),
        ("   ", "empty expression"),
        ("1+", "cannot parse"),
        ("__import__('os')", "unknown function '__import__'"),
        ("os.system('ls')", "unknown function 'os.system'"),
        ("x+1", "unknown name 'x'"),
        ("'a'*3", "unsupported literal"),
        ("True+1", "unsupported literal"),
        ("1j", "unsupported literal"),
        ("[1, 2]", "unsupported syntax: List"),
        ("(1).real", "unsupported syntax: Attribute"),
        ("1 if 1 else 2", "unsupported syntax: IfExp"),
        ("lambda: 1", "unsupported syntax: Lambda"),
        ("not 1", "unsupported syntax: UnaryOp"),
        ("1 << 2", "unsupported operator LShift"),
        ("1 < 2", "unsupported syntax: Compare"),
        ("max()", "wrong number of arguments for max()"),
        ("sqrt(1, 2)", "wrong number of arguments for sqrt()"),
        ("round(2.5, 0.5)", "digits must be an integer"),
        ("max(*[1])", "positional arguments only"),
        ("round(2.5, ndigits=1)", "positional arguments only"),
    ],
)
def test_rejects_with_readable_error(expression: str, message: str) -> None:
    with pytest.raises(ToolException, match=r"^calculator: ") as info:
        calculator.invoke({"expression": expression})
    assert message in str(info.value)


def test_length_limit() -> None:
    longest = "1+" * ((MAX_EXPRESSION_LENGTH - 1) // 2) + "1"
    assert len(longest) <= MAX_EXPRESSION_LENGTH
    assert evaluate(longest) == MAX_EXPRESSION_LENGTH // 2
    with pytest.raises(ToolException, match="longer than"):
        evaluate("1+" * MAX_EXPRESSION_LENGTH + "1")


def test_deep_nesting_within_length_is_fine() -> None:
    depth = (MAX_EXPRESSION_LENGTH - 1) // 2
    assert evaluate("(" * depth + "1" + ")" * depth) == 1


def test_evaluate_returns_numbers() -> None:
    assert evaluate("17*23") == 391
    assert isinstance(evaluate("17*23"), int)
    assert evaluate("pi") == math.pi


@pytest.mark.parametrize(
    ("value", "text"),
    [(3, "3"), (-0.0, "0"), (4.0, "4"), (1e15, "1e+15"), (0.5, "0.5"), (2 / 3, "0.666666666667")],
)
def test_format_number(value: float, text: str) -> None:
    assert format_number(value) == text


def test_async_invocation_matches_sync() -> None:
    result = asyncio.run(calculator.ainvoke({"expression": "sqrt(2)*pi"}))
    assert result == calculator.invoke({"expression": "sqrt(2)*pi"}) == "4.44288293816"


def test_tool_call_input_returns_tool_message() -> None:
    call = {
        "name": "calculator",
        "args": {"expression": "17*23"},
        "id": "call_1",
        "type": "tool_call",
    }
    message = calculator.invoke(call)
    assert message.content == "391"
    assert message.tool_call_id == "call_1"


def test_schema() -> None:
    schema = convert_to_openai_tool(calculator)["function"]["parameters"]
    assert schema["required"] == ["expression"]
    assert "arithmetic" in calculator.description
