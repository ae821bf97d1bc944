"""Tests for agentloop.tools.weather: lookup, units, errors and async-only invocation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agentloop.tools.weather import KNOWN_LOCATIONS, get_weather, lookup_weather, to_celsius
from langchain_core.tools import StructuredTool, ToolException
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ValidationError


def run(args: dict[str, Any]) -> Any:
    return asyncio.run(get_weather.ainvoke(args))


def test_reference_example() -> None:
    assert run({"location": "Boston, MA", "unit": "fahrenheit"}) == {
        "location": "Boston, MA",
        "temperature": 41,
        "unit": "fahrenheit",
        "conditions": "cloudy",
    }


@pytest.mark.parametrize(
    "spelling",
    ["Boston", "boston", "BOSTON, MA", "  Boston ,MA. ", "Boston,  ma", "boston, massachusetts"],
)
def test_accepts_spellings(spelling: str) -> None:
    assert run({"location": spelling})["location"] == "Boston, MA"


def test_default_unit_is_fahrenheit() -> None:
    report = run({"location": "Paris"})
    assert report["unit"] == "fahrenheit"
    assert report["location"] == "Paris, France"


def test_celsius_is_converted_from_table() -> None:
    fahrenheit = run({"location": "Tokyo"})
    celsius = run({"location": "Tokyo", "unit": "celsius"})
    assert celsius["temperature"] == to_celsius(fahrenheit["temperature"]) == 18
    assert celsius["unit"] == "celsius"
    assert celsius["conditions"] == fahrenheit["conditions"]


@pytest.mark.parametrize(("f", "c"), [(32, 0), (212, 100), (-40, -40), (41, 5), (55, 13), (30, -1)])
def test_to_celsius(f: int, c: int) -> None:
    assert to_celsius(f) == c


def test_every_known_location_resolves_to_itself() -> None:
    assert len(KNOWN_LOCATIONS) >= 20
    for name in KNOWN_LOCATIONS:
        for unit in ("fahrenheit", "celsius"):
            report = lookup_weather(name, unit)
            assert report["location"] == name
            assert isinstance(report["temperature"], int)
        # The bare city name also works.
        assert lookup_weather(name.split(",")[0])["location"] == name


def test_unknown_location_lists_known_ones() -> None:
    with pytest.raises(ToolException) as info:
        run({"location": "Atlantis"})
    message = str(info.value)
    assert "'Atlantis'" in message
    assert "Boston, MA" in message
    assert f"{len(KNOWN_LOCATIONS)} in all" in message


def test_bad_unit_is_rejected_by_schema() -> None:
    with pytest.raises(ValidationError):
        run({"location": "Boston", "unit": "kelvin"})
    with pytest.raises(ToolException, match="unit must be"):
        lookup_weather("Boston", "kelvin")


def test_missing_location_is_rejected_by_schema() -> None:
    with pytest.raises(ValidationError):
        run({"unit": "celsius"})


def test_is_async_only() -> None:
    assert isinstance(get_weather, StructuredTool)
    assert get_weather.coroutine is not None
    assert get_weather.func is None
    with pytest.raises(NotImplementedError):
        get_weather.invoke({"location": "Boston"})


def test_concurrent_calls() -> None:
    async def main() -> list[Any]:
        return await asyncio.gather(
            *(get_weather.ainvoke({"location": name}) for name in KNOWN_LOCATIONS)
        )

    reports = asyncio.run(main())
    assert [r["location"] for r in reports] == list(KNOWN_LOCATIONS)


def test_schema_matches_reference() -> None:
    schema = convert_to_openai_tool(get_weather)["function"]["parameters"]
    assert schema["required"] == ["location"]
    assert schema["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert schema["properties"]["location"]["description"].startswith("The city and state")
