"""Your tools: the two ways to write a LangChain tool.

- ``convert_units``: an ``@tool`` function. Its name, docstring (with ``parse_docstring``,
  the ``Args:`` too) and type hints are all the model knows about it: they become its
  schema (``agentloop tools schemas my_tools`` prints it).
- ``CurrencyConverter``: a ``BaseTool`` class, with an explicit arguments schema and a
  constructor argument (``fee_percent``, set in eval.yaml). agentloop makes a new instance
  for every sample, so state never leaks from one sample to the next.

Raise ``ToolException`` with a clear message when a call cannot be served: the model gets
it as that call's error and can try again.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.tools import BaseTool, ToolException, tool
from pydantic import BaseModel, Field

Unit = Literal["km", "mi", "kg", "lb", "C", "F"]

_TO_BASE = {"km": 1.0, "mi": 1.609344, "kg": 1.0, "lb": 0.45359237}
_DIMENSION = {"km": "length", "mi": "length", "kg": "mass", "lb": "mass"}
_USD_PER_UNIT = {"USD": 1.0, "EUR": 1.08, "GBP": 1.27, "JPY": 0.0067}


def _two_decimals(value: float) -> str:
    """``26.1``, ``270``, ``1234567.89``: rounded to 2 decimals, no trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


@tool(parse_docstring=True)
def convert_units(value: float, from_unit: Unit, to_unit: Unit) -> str:
    """Convert a value between units of length (km, mi), mass (kg, lb) or temperature (C, F).

    Args:
        value: The value to convert.
        from_unit: Its unit.
        to_unit: The unit to convert to; the result is rounded to 2 decimals: "26.1 mi".
    """
    if {from_unit, to_unit} <= {"C", "F"}:
        celsius = value if from_unit == "C" else (value - 32) * 5 / 9
        result = celsius if to_unit == "C" else celsius * 9 / 5 + 32
    elif _DIMENSION.get(from_unit, "temperature") == _DIMENSION.get(to_unit, "temperature"):
        result = value * _TO_BASE[from_unit] / _TO_BASE[to_unit]
    else:
        raise ToolException(f"cannot convert {from_unit} to {to_unit}")
    return f"{_two_decimals(result)} {to_unit}"


class CurrencyArgs(BaseModel):
    amount: float = Field(description="The amount of money to convert.")
    from_currency: Literal["USD", "EUR", "GBP", "JPY"] = Field(description="Its currency.")
    to_currency: Literal["USD", "EUR", "GBP", "JPY"] = Field(description="The target currency.")


class CurrencyConverter(BaseTool):
    """Currency conversion at fixed rates (a real tool would ask a rates service)."""

    name: str = "convert_currency"
    description: str = (
        "Convert an amount of money from one currency to another (USD, EUR, GBP, JPY). "
        'Returns the amount rounded to 2 decimals with its currency, e.g. "270 USD".'
    )
    args_schema: type[BaseModel] = CurrencyArgs
    fee_percent: float = 0.0
    """Charged on every conversion (a constructor argument: see eval.yaml)."""

    def _run(self, amount: float, from_currency: str, to_currency: str) -> str:
        if amount < 0:
            raise ToolException("amount must not be negative")
        usd = amount * _USD_PER_UNIT[from_currency] * (1 - self.fee_percent / 100)
        return f"{_two_decimals(usd / _USD_PER_UNIT[to_currency])} {to_currency}"
