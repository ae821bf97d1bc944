"""Resolving user tools by import path, with one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.tools import BaseTool

from agentloop import ToolLoadError, load_tool, load_tools

USER_TOOLS = '''
from langchain_core.tools import BaseTool, tool

@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return key.upper()

def plain(x: int) -> int:
    """Double x."""
    return 2 * x

def undocumented(x: int) -> int:
    return x

class Counter(BaseTool):
    name: str = "counter"
    description: str = "Count."
    def _run(self) -> str:
        return "1"

NOT_A_TOOL = 3
'''


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_tools.py"
    path.write_text(USER_TOOLS)
    return path


def test_file_paths_resolve_tools_functions_and_classes(user_file: Path) -> None:
    looked = load_tool(f"{user_file}:lookup")
    assert looked.invoke({"key": "ab"}) == "AB"
    assert load_tool(f"{user_file}:plain").invoke({"x": 4}) == 8
    counter = load_tool(f"{user_file}:Counter")
    assert isinstance(counter, BaseTool) and counter.name == "counter"


def test_module_paths_resolve() -> None:
    loaded = load_tool("tests.engine.test_dispatch:echo")
    assert loaded.name == "echo"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_colon", "expected 'package.module:name'"),
        ("./missing_file.py:x", "tool file not found"),
        ("no.such.module:x", "cannot import module 'no.such.module'"),
        ("{file}:nothing", "has no attribute 'nothing'"),
        ("{file}:undocumented", "without a docstring"),
        ("{file}:NOT_A_TOOL", "is not a tool"),
    ],
)
def test_errors_are_one_line_and_name_the_problem(user_file: Path, spec: str, message: str) -> None:
    with pytest.raises(ToolLoadError, match=message) as info:
        load_tool(spec.format(file=user_file))
    assert "\n" not in str(info.value)


def test_a_file_that_fails_to_import_is_reported(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('broken at import')\n")
    with pytest.raises(ToolLoadError, match="broken at import"):
        load_tool(f"{bad}:x")


def test_duplicate_names_are_refused(user_file: Path) -> None:
    with pytest.raises(ToolLoadError, match="repeated: lookup"):
        load_tools([f"{user_file}:lookup", f"{user_file}:lookup"])


def test_a_tool_class_takes_constructor_arguments(user_file: Path) -> None:
    from agentloop.engine import tool_factory

    source = user_file.read_text().replace(
        'description: str = "Count."', 'description: str = "Count."\n    start: int = 0'
    )
    user_file.write_text(source.replace('return "1"', "return str(self.start + 1)"))
    make = tool_factory(f"{user_file}:Counter", {"start": 41})
    first, second = make(), make()
    assert first is not second and first.invoke({}) == "42"
    with pytest.raises(ToolLoadError, match=r"unknown argument\(s\) \['stop'\]; accepted: start"):
        tool_factory(f"{user_file}:Counter", {"stop": 1})
    with pytest.raises(ToolLoadError, match="args are for tool classes and factories"):
        tool_factory(f"{user_file}:lookup", {"x": 1})


def test_as_tools_wraps_functions_and_names_the_origin(user_file: Path) -> None:
    from agentloop.engine import as_tools, import_object

    plain, lookup = import_object(f"{user_file}:plain"), import_object(f"{user_file}:lookup")
    assert [t.name for t in as_tools([plain, lookup], "factory f")] == ["plain", "lookup"]
    with pytest.raises(ToolLoadError, match=r"factory f returned a list with str at \[1\]"):
        as_tools([plain, "x"], "factory f")
    with pytest.raises(ToolLoadError, match="factory f: item \\[0\\] is a function without a"):
        as_tools([import_object(f"{user_file}:undocumented")], "factory f")
    with pytest.raises(ToolLoadError, match=r"reward file not found: \./nope\.py"):
        import_object("./nope.py:x", "reward")
