"""A deterministic weather tool backed by a fixed table of cities.

``get_weather`` is an async ``@tool`` shaped like the reference specification's
example (``get_weather(location="Boston, MA", unit="fahrenheit")``). The table
is made up and never changes, so evaluations that use it are reproducible.

Lookup accepts the canonical name (``"Boston, MA"``), the bare city
(``"boston"``) and a few aliases, case-insensitively and ignoring extra spaces.
Temperatures are stored in Fahrenheit; Celsius is ``round((F - 32) * 5 / 9)``
with Python's ``round`` (ties to even), so both units are always integers.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

import anyio
from langchain_core.tools import ToolException, tool

__all__ = ["KNOWN_LOCATIONS", "get_weather", "lookup_weather", "same_location", "to_celsius"]

Unit = Literal["celsius", "fahrenheit"]


class _City(NamedTuple):
    name: str
    fahrenheit: int
    conditions: str
    aliases: tuple[str, ...] = ()


_TABLE: tuple[_City, ...] = (
    _City("Boston, MA", 41, "cloudy", ("boston, massachusetts",)),
    _City("New York, NY", 45, "partly cloudy", ("new york city", "nyc")),
    _City("San Francisco, CA", 58, "foggy", ("sf",)),
    _City("Los Angeles, CA", 72, "sunny", ("la",)),
    _City("Chicago, IL", 38, "windy"),
    _City("Miami, FL", 79, "sunny"),
    _City("Seattle, WA", 48, "rainy"),
    _City("Denver, CO", 35, "snowy"),
    _City("Austin, TX", 68, "clear"),
    _City("Washington, DC", 50, "clear", ("washington dc", "washington d.c.")),
    _City("Toronto, Canada", 33, "light snow"),
    _City("London, UK", 52, "drizzle", ("london, england", "london, united kingdom")),
    _City("Paris, France", 55, "partly cloudy"),
    _City("Berlin, Germany", 46, "overcast"),
    _City("Madrid, Spain", 64, "sunny"),
    _City("Rome, Italy", 61, "clear"),
    _City("Reykjavik, Iceland", 30, "windy"),
    _City("Cairo, Egypt", 86, "sunny"),
    _City("Mumbai, India", 88, "humid"),
    _City("Tokyo, Japan", 64, "clear"),
    _City("Sydney, Australia", 77, "sunny"),
    _City("Rio de Janeiro, Brazil", 84, "thunderstorms", ("rio",)),
)

KNOWN_LOCATIONS: tuple[str, ...] = tuple(city.name for city in _TABLE)
"""Canonical names of every location the tool knows, in table order."""


def _normalize(text: str) -> str:
    # "  Boston ,MA. " -> "boston, ma"
    text = re.sub(r"\s+", " ", text.strip().lower()).rstrip(".")
    return re.sub(r"\s*,\s*", ", ", text)


def _build_index() -> dict[str, _City]:
    index: dict[str, _City] = {}
    for city in _TABLE:
        keys = (city.name, city.name.split(",")[0], *city.aliases)
        for key in keys:
            normalized = _normalize(key)
            # Two cities claiming one alias would make lookups order-dependent.
            if normalized in index and index[normalized] is not city:
                raise RuntimeError(f"ambiguous weather alias {key!r}")
            index[normalized] = city
    return index


_INDEX = _build_index()


def to_celsius(fahrenheit: int) -> int:
    """Convert a Fahrenheit temperature to whole degrees Celsius."""
    return round((fahrenheit - 32) * 5 / 9)


def same_location(value: object, *, location: str) -> bool:
    """Whether the tool reads ``value`` as the city ``location`` names: a ground-truth
    matcher (``{"$match": "agentloop.tools.weather:same_location", "location": "Miami"}``)
    that accepts every name the tool answers for that city (``Miami``, ``Miami, FL``,
    ``miami``), as the schema's "city and state" invites, and nothing it rejects."""
    city = _INDEX.get(_normalize(location))
    if city is None:
        raise ValueError(f"same_location: unknown location {location!r}")
    return isinstance(value, str) and _INDEX.get(_normalize(value)) is city


def lookup_weather(location: str, unit: str = "fahrenheit") -> dict[str, object]:
    """Return the fixed weather report for ``location`` (the tool's sync core).

    Raises:
        ToolException: the location is unknown or the unit is not
            ``"celsius"``/``"fahrenheit"``.
    """
    if unit not in ("celsius", "fahrenheit"):
        raise ToolException(f"get_weather: unit must be 'celsius' or 'fahrenheit', not {unit!r}")
    city = _INDEX.get(_normalize(location))
    if city is None:
        examples = "; ".join(KNOWN_LOCATIONS[:6])
        raise ToolException(
            f"get_weather: unknown location {location!r}. Known locations include "
            f"{examples} ({len(KNOWN_LOCATIONS)} in all)."
        )
    temperature = city.fahrenheit if unit == "fahrenheit" else to_celsius(city.fahrenheit)
    return {
        "location": city.name,
        "temperature": temperature,
        "unit": unit,
        "conditions": city.conditions,
    }


@tool(parse_docstring=True)
async def get_weather(location: str, unit: Unit = "fahrenheit") -> dict[str, object]:
    """Get the current weather in a given location.

    Covers about twenty major cities, e.g. Boston, MA; Paris; Tokyo.

    Args:
        location: The city and state, e.g. San Francisco, CA
        unit: The temperature unit, celsius or fahrenheit.
    """
    # A real backend would await I/O here; the checkpoint keeps it a true
    # coroutine that yields to the event loop like one.
    await anyio.sleep(0)
    return lookup_weather(location, unit)
